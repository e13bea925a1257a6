"""Where the hosts mcplock knows keep their user-level MCP configs (one machine's servers, for
``mcplock inventory --user``), relative to the home directory. Each host documents its own;
a machine has the ones of the hosts installed on it, so every path is tried and the ones that
exist are read. Plain data, no I/O."""

from __future__ import annotations

import os
from pathlib import Path

#: (path under the home directory, host), in the order an inventory lists them. Claude Desktop
#: and VS Code keep theirs in the platform's application-data directory (Linux, macOS, Windows).
USER_CONFIGS: tuple[tuple[str, str], ...] = (
    (".claude.json", "claude-code"),  # the user scope (each project's local scope is that project's)
    (".config/Claude/claude_desktop_config.json", "claude-desktop"),
    ("Library/Application Support/Claude/claude_desktop_config.json", "claude-desktop"),
    ("AppData/Roaming/Claude/claude_desktop_config.json", "claude-desktop"),
    (".cursor/mcp.json", "cursor"),
    (".config/Code/User/mcp.json", "vscode"),
    ("Library/Application Support/Code/User/mcp.json", "vscode"),
    ("AppData/Roaming/Code/User/mcp.json", "vscode"),
    (".codeium/windsurf/mcp_config.json", "windsurf"),
    (".codex/config.toml", "codex"),
    (".gemini/settings.json", "gemini"),
    (".config/opencode/opencode.json", "opencode"),
    (".config/opencode/opencode.jsonc", "opencode"),
)


def user_configs(home: str | os.PathLike[str]) -> list[tuple[Path, str]]:
    """The user-level host configs present under ``home``: (path, host), in :data:`USER_CONFIGS` order."""
    root = Path(home)
    return [(root / rel, host) for rel, host in USER_CONFIGS if (root / rel).is_file()]
