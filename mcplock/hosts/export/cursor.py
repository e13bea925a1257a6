"""Cursor: two project files.

- ``.cursor/permissions.json`` ``mcpAllowlist``: ``"S:T"`` for each tool with
  ``approval = "never"`` (the editor runs those without asking). Cursor's current reference
  reads this file per repository (``<workspace>/.cursor/permissions.json``, its arrays added to
  the user's ``~/.cursor/permissions.json``); older releases read only the user's file, which
  mcplock never writes. Once the key is set it replaces the allowlist edited in the app.
  The allowlist cannot deny: a disabled tool is simply not on it, so the editor asks.
- ``.cursor/cli.json`` (the Cursor CLI) ``permissions.deny|allow`` with ``Mcp(S:T)``; deny wins.
  ``approval = "always"`` writes nothing in either file: Cursor asks by default.

No default deny in either file: the allowlist cannot deny, and a deny of the whole server in
``cli.json`` (``Mcp(S:*)``) would win over its per-tool allows. A tool the lock does not know is
on no list, so Cursor asks for it, unless a user's own entry names the whole server (``S:*``,
``Mcp(S:*)``): ``check`` reports such an entry.
"""

from __future__ import annotations

from typing import Any

from mcplock.hosts.export.interface import ALLOW, ASK, Decisions, Exporter, Item

UNKNOWN = "asks before running a tool the lock does not know, unless a broad allow (`S:*`) lets it run"


def _broad(entries: Any, server: str, spell: str) -> str | None:
    if not isinstance(entries, list):
        return None
    return next((e for e in entries if e in (spell.format(f"{server}:*"), spell.format("*:*"))), None)


class CursorAllowlist(Exporter):
    host = "cursor"
    files = (".cursor/permissions.json",)
    launches_file = ".cursor/mcp.json"
    default_deny = False
    unknown_tools = UNKNOWN

    def tool_ids(self, server: str, tool: str) -> tuple[str, ...]:
        return (f"{server}:{tool}",)

    def contradictions(self, data: dict[str, Any], decisions: Decisions) -> list[str]:
        out = []
        for s in sorted(decisions):
            broad = _broad(data.get("mcpAllowlist"), s, "{}")
            if broad:
                out.append(
                    f"`mcpAllowlist` has {broad!r}: Cursor runs every tool of `{s}` without asking, "
                    "tools the lock does not know included"
                )
        return out

    def rules(self, decisions: Decisions) -> list[Item]:
        return [
            Item("member", ("mcpAllowlist",), f"{s}:{t}")
            for s in sorted(decisions)
            for t, d in sorted(decisions[s].items())
            if d == ALLOW
        ]


class Cursor(Exporter):
    host = "cursor"
    files = (".cursor/cli.json",)
    servers_file = ".cursor/mcp.json"
    also = (CursorAllowlist(),)
    guard_keeps = ("envFile",)
    default_deny = False
    unknown_tools = UNKNOWN

    def tool_ids(self, server: str, tool: str) -> tuple[str, ...]:
        return (f"{server}:{tool}",)

    def contradictions(self, data: dict[str, Any], decisions: Decisions) -> list[str]:
        perms = data.get("permissions")
        out = []
        for s in sorted(decisions):
            broad = _broad(perms.get("allow") if isinstance(perms, dict) else None, s, "Mcp({})")
            if broad:
                out.append(
                    f"`permissions.allow` has {broad!r}: the Cursor CLI runs every tool of `{s}` without "
                    "asking, tools the lock does not know included"
                )
        return out

    def env_ref(self, var: str) -> str:
        return "${env:" + var + "}"

    def lock_arg(self, rel_lock: str) -> str | None:
        return "${workspaceFolder}/" + rel_lock

    def rules(self, decisions: Decisions) -> list[Item]:
        return [
            Item("member", ("permissions", d), f"Mcp({s}:{t})")
            for s in sorted(decisions)
            for t, d in sorted(decisions[s].items())
            if d != ASK
        ]
