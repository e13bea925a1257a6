"""Claude Code: ``.claude/settings.json`` ``permissions.deny|ask|allow`` with ``mcp__S__T``.

Claude Code evaluates deny, then ask, then allow, so a user's broader allow never weakens
what mcplock writes. Names: ``[^A-Za-z0-9_-]`` → ``_`` in the server and the tool name.
"""

from __future__ import annotations

from mcplock.hosts.export.interface import Decisions, Exporter, Item, sanitize


class ClaudeCode(Exporter):
    host = "claude-code"
    files = (".claude/settings.json",)
    servers_file = ".mcp.json"
    guard_keeps = ("timeout", "alwaysLoad")

    def lock_arg(self, rel_lock: str) -> str | None:
        return "${CLAUDE_PROJECT_DIR:-.}/" + rel_lock  # Claude Code sets it for the servers it starts

    def rules(self, decisions: Decisions) -> list[Item]:
        return [
            Item("member", ("permissions", d), f"mcp__{sanitize(s)}__{sanitize(t)}")
            for s in sorted(decisions)
            for t, d in sorted(decisions[s].items())
        ]
