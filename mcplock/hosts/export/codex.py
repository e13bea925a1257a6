"""Codex: ``.codex/config.toml``: every tool the lock lets run (allowed or asked) in
``[mcp_servers.S] enabled_tools``, Codex's allowlist (checked before ``disabled_tools``; present
and empty, no tool of the server runs), so a tool the server starts offering after the export is
not enabled; ``enabled = false`` → the tool in ``disabled_tools`` too; ``approval = "always"``
→ ``[mcp_servers.S.tools.T] approval_mode = "prompt"``; ``"never"`` → ``approval_mode = "approve"``.
Codex matches raw server and tool names (table keys), so nothing is sanitised; rules go only
to servers the file defines (Codex rejects a server table without ``command`` or ``url``).
"""

from __future__ import annotations

import json
import tomllib
from typing import Any

from mcplock.hosts.export.interface import ALLOW, DENY, Decisions, Exporter, Item
from mcplock.hosts.export.tomledit import TomlText
from mcplock.hosts.export.tomlread import Table


class Codex(Exporter):
    host = "codex"
    files = (".codex/config.toml",)
    fmt = "toml"
    servers_file = ".codex/config.toml"
    servers_keys = ("mcp_servers",)
    per_server_in_file = True

    def starts(self, name: str, entry: Any, settings: list[Any]) -> bool:
        """``enabled = false`` keeps a server off."""
        return not isinstance(entry, dict) or entry.get("enabled") is not False

    def rules(self, decisions: Decisions) -> list[Item]:
        out = []
        for s in sorted(decisions):
            tools = sorted(decisions[s].items())
            out.append(Item("list", ("mcp_servers", s, "enabled_tools"), ""))
            out += [Item("member", ("mcp_servers", s, "enabled_tools"), t) for t, d in tools if d != DENY]
            out += [_decision_item(s, t, d) for t, d in tools]
        return out


def _decision_item(s: str, t: str, d: str) -> Item:
    """What a tool's decision writes: a ``disabled_tools`` member for deny, else its
    ``approval_mode`` (approve for allow, prompt for ask)."""
    if d == DENY:
        return Item("member", ("mcp_servers", s, "disabled_tools"), t)
    mode = "approve" if d == ALLOW else "prompt"
    return Item("key", ("mcp_servers", s, "tools", t, "approval_mode"), mode)


# --- --guard: the launch keys of `[mcp_servers.S]`, edited as text ------------------------------
#
# The original body of the server's table (its direct keys, up to the next table header) is
# kept verbatim; the guarded body has the launch keys replaced by `command`/`args` of the
# guard, every other key (timeouts, tool lists, `env_vars`) left where it was. `env` and other
# sub-tables are untouched. (mcplock.core.export_guard then appends to `env_vars` the variables
# the lock names for the server: Codex hands the command nothing else.)

_LAUNCH = ("command", "args", "cwd", "url", "bearer_token_env_var", "http_headers", "env_http_headers")


def _body(text: str, name: str) -> Table | None:
    return TomlText(text).tables().get(("mcp_servers", name))


def guard_body(
    text: str,
    name: str,
    args: list[str],
    command: str = "mcplock",
) -> tuple[str, str, dict[str, Any]] | None:
    """(new text, the original body verbatim, the original body parsed), or None if the file
    defines no such server."""
    lines = text.splitlines(keepends=True)
    found = _body(text, name)
    if found is None:
        return None
    start, end, stmts = found.start, found.end, found.stmts
    original = "".join(lines[start:end])
    launch = [(a, b) for a, b, key in stmts if key in _LAUNCH]
    nl = "\r\n" if "\r\n" in text else "\n"
    guard = f"command = {json.dumps(command, ensure_ascii=False)}{nl}args = {json.dumps(args, ensure_ascii=False)}{nl}"
    body = _guarded_body(lines, start, end, launch, guard)
    return "".join(lines[:start]) + body + "".join(lines[end:]), original, tomllib.loads(original)


def _guarded_body(lines: list[str], start: int, end: int, launch: list[tuple[int, int]], guard: str) -> str:
    """The table's body (lines ``start:end``) without the launch keys' statements, the guard's
    keys where the first of them was (at the top when there is none)."""
    at = launch[0][0] if launch else start
    kept = [line for i, line in enumerate(lines[start:end], start) if not _in_launch(i, launch)]
    pos = sum(1 for i in range(start, at) if not _in_launch(i, launch))
    return "".join(kept[:pos]) + guard + "".join(kept[pos:])


def _in_launch(i: int, launch: list[tuple[int, int]]) -> bool:
    """Whether line ``i`` belongs to one of the launch keys' statements (``[first, end)`` lines)."""
    return any(a <= i < b for a, b in launch)


def restore_body(text: str, name: str, original: str) -> str:
    lines = text.splitlines(keepends=True)
    found = _body(text, name)
    if found is None:
        return text
    start, end = found.start, found.end
    return "".join(lines[:start]) + original + "".join(lines[end:])
