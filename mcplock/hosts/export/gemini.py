"""Gemini CLI: ``.gemini/settings.json``.

Every tool the lock lets run (allowed or asked) → its own name in ``mcpServers.S.includeTools``,
Gemini's allowlist: present, only the tools it names are offered (present and empty, none), so a
tool the server starts offering after the export is not. ``enabled = false`` → the tool's own
name in ``mcpServers.S.excludeTools`` too (which wins over ``includeTools``); both are matched
against the name the server lists. ``approval = "never"`` → ``mcp_S_T`` in ``tools.allowed``;
``approval = "always"`` is the default (Gemini asks). The tool id is Gemini's
``generateValidName``: ``mcp_`` + ``S_T``, ``[^A-Za-z0-9_.:-]`` → ``_``, a leading non-letter
gets ``_``, and an id over 63 characters is cut to its first and last 30 around ``...``.
"""

from __future__ import annotations

import re
from typing import Any

from mcplock.hosts.export.interface import ALLOW, ASK, DENY, Decisions, Exporter, Item


def tool_id(server: str, tool: str) -> str:
    name = f"mcp_{server}_{tool}"
    name = re.sub(r"[^A-Za-z0-9_\-.:]", "_", name)
    if re.match(r"[^A-Za-z_]", name):
        name = "_" + name
    if len(name) > 63:
        name = name[:30] + "..." + name[-30:]
    return name


class Gemini(Exporter):
    host = "gemini"
    files = (".gemini/settings.json",)
    servers_file = ".gemini/settings.json"
    per_server_in_file = True
    guard_keeps = ("includeTools", "excludeTools", "trust", "timeout", "description")

    def tool_ids(self, server: str, tool: str) -> tuple[str, ...]:
        return (tool_id(server, tool),)

    def starts(self, name: str, entry: Any, settings: list[Any]) -> bool:
        """``mcp.excluded`` names servers Gemini CLI never starts; ``mcp.allowed``, when set, the
        only ones it starts."""
        mcp = settings[0].get("mcp") if settings and isinstance(settings[0], dict) else None
        if not isinstance(mcp, dict):
            return True
        allowed, excluded = mcp.get("allowed"), mcp.get("excluded")
        if isinstance(excluded, list) and name in excluded:
            return False
        return not isinstance(allowed, list) or name in allowed

    def rules(self, decisions: Decisions) -> list[Item]:
        out = []
        for s in sorted(decisions):
            out += _tool_lists(s, sorted(decisions[s].items()))
        out += [
            Item("member", ("tools", "allowed"), tool_id(s, t))
            for s in sorted(decisions)
            for t, d in sorted(decisions[s].items())
            if d == ALLOW
        ]
        return out

    def contradictions(self, data: dict[str, Any], decisions: Decisions) -> list[str]:
        servers = data.get("mcpServers")
        if not isinstance(servers, dict):
            return []
        out = []
        for s in sorted(decisions):
            note = _trust_overrides(s, servers.get(s), decisions[s])
            if note is not None:
                out.append(note)
        return out


def _tool_lists(s: str, tools: list[tuple[str, str]]) -> list[Item]:
    """A server's ``includeTools`` (written whole: the tools not denied) and its ``excludeTools``
    members (the denied ones)."""
    return [
        Item("list", ("mcpServers", s, "includeTools"), ""),
        *(Item("member", ("mcpServers", s, "includeTools"), t) for t, d in tools if d != DENY),
        *(Item("member", ("mcpServers", s, "excludeTools"), t) for t, d in tools if d == DENY),
    ]


def _trust_overrides(s: str, entry: Any, tools: dict[str, str]) -> str | None:
    """The contradiction when the server's entry is trusted (Gemini CLI then asks for nothing)
    and the lock asks for some of its tools; None when there is none."""
    asks = sorted(t for t, d in tools.items() if d == ASK)
    if isinstance(entry, dict) and entry.get("trust") is True and asks:
        return (
            f"`mcpServers.{s}.trust` is true: Gemini CLI runs every tool of `{s}` without asking, "
            f"where the lock asks for {', '.join(asks)}"
        )
    return None
