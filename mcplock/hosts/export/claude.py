"""Claude Code: ``.claude/settings.json`` ``permissions.deny|ask|allow`` with ``mcp__S__T``.

Claude Code evaluates deny, then ask, then allow, so a user's broader allow never weakens
what mcplock writes. Names: ``[^A-Za-z0-9_-]`` → ``_`` in the server and the tool name.

No default deny: a deny of the whole server (``mcp__S``) would win over the per-tool allows too.
A tool the lock does not know has no rule, so Claude Code asks for it, unless the user's own
``allow`` names the whole server (``mcp__S``, ``mcp__S__*``): ``check`` reports such a rule.
"""

from __future__ import annotations

from typing import Any

from mcplock.hosts.export.interface import Decisions, Exporter, Item, sanitize


class ClaudeCode(Exporter):
    host = "claude-code"
    files = (".claude/settings.json",)
    servers_file = ".mcp.json"
    guard_keeps = ("timeout", "alwaysLoad")
    default_deny = False
    unknown_tools = "asks before running a tool the lock does not know, unless a broad allow (`mcp__S`) lets it run"

    switch_files = (".claude/settings.local.json",)

    def tool_ids(self, server: str, tool: str) -> tuple[str, ...]:
        return (f"mcp__{sanitize(server)}__{sanitize(tool)}",)

    def starts(self, name: str, entry: Any, settings: list[Any]) -> bool:
        """A server of ``.mcp.json`` that ``disabledMcpjsonServers`` lists (in the project's
        settings or its local settings) is never started."""
        off = [s.get("disabledMcpjsonServers") for s in settings if isinstance(s, dict)]
        return not any(isinstance(names, list) and name in names for names in off)

    def lock_arg(self, rel_lock: str) -> str | None:
        return "${CLAUDE_PROJECT_DIR:-.}/" + rel_lock  # Claude Code sets it for the servers it starts

    def rules(self, decisions: Decisions) -> list[Item]:
        return [
            Item("member", ("permissions", d), f"mcp__{sanitize(s)}__{sanitize(t)}")
            for s in sorted(decisions)
            for t, d in sorted(decisions[s].items())
        ]

    def contradictions(self, data: dict[str, Any], decisions: Decisions) -> list[str]:
        perms = data.get("permissions")
        allow = perms.get("allow") if isinstance(perms, dict) else None
        if not isinstance(allow, list):
            return []
        out = []
        for s in sorted(decisions):
            broad = [r for r in allow if r in (f"mcp__{sanitize(s)}", f"mcp__{sanitize(s)}__*")]
            if broad:
                out.append(
                    f"`permissions.allow` has {broad[0]!r}: Claude Code runs every tool of `{s}` without "
                    "asking, tools the lock does not know included"
                )
        return out
