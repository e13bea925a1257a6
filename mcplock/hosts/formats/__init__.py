"""Importers: one module per host config format behind :class:`~mcplock.hosts.formats.interface.Importer`,
registered here (as :mod:`mcplock.hosts.export` registers the exporters). The shared pieces —
an entry's typed fields, the transport rules several hosts share, one server built from an
entry — are :mod:`mcplock.hosts.importers`; reading a file is :func:`mcplock.hosts.load_host_config`."""

from __future__ import annotations

from mcplock.hosts.formats.claude_code import ClaudeCode
from mcplock.hosts.formats.claude_desktop import ClaudeDesktop
from mcplock.hosts.formats.codex import Codex
from mcplock.hosts.formats.cursor import Cursor
from mcplock.hosts.formats.gemini import Gemini
from mcplock.hosts.formats.interface import Importer
from mcplock.hosts.formats.opencode import Opencode
from mcplock.hosts.formats.vscode import VsCode
from mcplock.hosts.formats.windsurf import Windsurf

IMPORTERS: dict[str, Importer] = {
    i.host: i for i in (ClaudeCode(), ClaudeDesktop(), Cursor(), VsCode(), Windsurf(), Codex(), Gemini(), Opencode())
}
# the order file names are tried in (a name several could claim goes to the first)
BY_NAME: tuple[Importer, ...] = tuple(
    IMPORTERS[h]
    for h in ("codex", "claude-desktop", "windsurf", "cursor", "vscode", "gemini", "opencode", "claude-code")
)

__all__ = ["BY_NAME", "IMPORTERS", "Importer"]
