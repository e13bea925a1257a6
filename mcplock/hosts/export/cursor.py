"""Cursor: two project files.

- ``.cursor/permissions.json`` ``mcpAllowlist``: ``"S:T"`` for each tool with
  ``approval = "never"`` (the editor runs those without asking). Cursor's current reference
  reads this file per repository (``<workspace>/.cursor/permissions.json``, its arrays added to
  the user's ``~/.cursor/permissions.json``); older releases read only the user's file, which
  mcplock never writes. Once the key is set it replaces the allowlist edited in the app.
  The allowlist cannot deny: a disabled tool is simply not on it, so the editor asks.
- ``.cursor/cli.json`` (the Cursor CLI) ``permissions.deny|allow`` with ``Mcp(S:T)``; deny wins.
  ``approval = "always"`` writes nothing in either file: Cursor asks by default.
"""

from __future__ import annotations

from mcplock.hosts.export.interface import ALLOW, ASK, Decisions, Exporter, Item


class CursorAllowlist(Exporter):
    host = "cursor"
    files = (".cursor/permissions.json",)

    def rules(self, decisions: Decisions) -> list[Item]:
        return [Item("member", ("mcpAllowlist",), f"{s}:{t}")
                for s in sorted(decisions) for t, d in sorted(decisions[s].items()) if d == ALLOW]


class Cursor(Exporter):
    host = "cursor"
    files = (".cursor/cli.json",)
    servers_file = ".cursor/mcp.json"
    also = (CursorAllowlist(),)
    guard_keeps = ("envFile",)

    def env_ref(self, var: str) -> str:
        return "${env:" + var + "}"

    def lock_arg(self, rel_lock: str) -> str | None:
        return "${workspaceFolder}/" + rel_lock

    def rules(self, decisions: Decisions) -> list[Item]:
        return [Item("member", ("permissions", d), f"Mcp({s}:{t})")
                for s in sorted(decisions) for t, d in sorted(decisions[s].items()) if d != ASK]
