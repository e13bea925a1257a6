"""Cursor: the project's CLI permissions, ``.cursor/cli.json`` ``permissions.deny|allow`` with
``Mcp(S:T)`` (deny wins). The editor keeps its MCP approvals and auto-run allowlist in the app;
nothing project-scoped holds them, so ``approval = "always"`` (the editor's default: it asks)
writes nothing and the editor's per-tool toggles cannot be exported.
"""

from __future__ import annotations

from mcplock.hosts.export.interface import ASK, Decisions, Exporter, Item


class Cursor(Exporter):
    host = "cursor"
    files = (".cursor/cli.json",)
    servers_file = ".cursor/mcp.json"

    def rules(self, decisions: Decisions) -> list[Item]:
        return [
            Item("member", ("permissions", d), f"Mcp({s}:{t})")
            for s in sorted(decisions)
            for t, d in sorted(decisions[s].items())
            if d != ASK
        ]
