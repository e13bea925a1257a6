"""opencode: ``opencode.json`` / ``opencode.jsonc`` ``permission["S_T"] = "deny"|"ask"|"allow"``.

opencode names an MCP tool ``<server>_<tool>``, both sanitised ``[^A-Za-z0-9_-]`` → ``_``, and
the **last** matching key of ``permission`` wins: mcplock adds its keys after the user's, so a
user's earlier wildcard (``"github_*": "ask"``) does not override the lock.
"""

from __future__ import annotations

from mcplock.hosts.export.interface import Decisions, Exporter, Item, sanitize


def tool_id(server: str, tool: str) -> str:
    return f"{sanitize(server)}_{sanitize(tool)}"


class Opencode(Exporter):
    host = "opencode"
    files = ("opencode.jsonc", "opencode.json")
    servers_file = None  # the servers are in the same file as the rules
    servers_keys = ("mcp",)
    default_file = "opencode.json"
    guard_keeps = ("enabled", "disabled", "timeout")

    def rules(self, decisions: Decisions) -> list[Item]:
        return [
            Item("key", ("permission", tool_id(s, t)), d)
            for s in sorted(decisions)
            for t, d in sorted(decisions[s].items())
        ]

    def guard_entry(self, name: str, lock_args: list[str]) -> dict[str, object]:
        return {"type": "local", "command": ["mcplock", "run", name, *lock_args]}

    def is_guard(self, entry: object) -> bool:
        cmd = entry.get("command") if isinstance(entry, dict) else None
        return isinstance(cmd, list) and cmd[:2] == ["mcplock", "run"]
