"""Codex: ``.codex/config.toml``: ``enabled = false`` → the tool in ``[mcp_servers.S]
disabled_tools``; ``approval = "always"`` → ``[mcp_servers.S.tools.T] approval_mode = "prompt"``;
``"never"`` → ``approval_mode = "approve"``. Codex matches raw server and tool names (table
keys), so nothing is sanitised; rules go only to servers the file defines (Codex rejects a
server table without ``command`` or ``url``).
"""

from __future__ import annotations

from mcplock.hosts.export.interface import ALLOW, DENY, Decisions, Exporter, Item


class Codex(Exporter):
    host = "codex"
    files = (".codex/config.toml",)
    fmt = "toml"
    servers_file = ".codex/config.toml"
    servers_keys = ("mcp_servers",)
    per_server_in_file = True

    def rules(self, decisions: Decisions) -> list[Item]:
        out = []
        for s in sorted(decisions):
            for t, d in sorted(decisions[s].items()):
                if d == DENY:
                    out.append(Item("member", ("mcp_servers", s, "disabled_tools"), t))
                else:
                    mode = "approve" if d == ALLOW else "prompt"
                    out.append(Item("key", ("mcp_servers", s, "tools", t, "approval_mode"), mode))
        return out
