"""Exporters: the lock's per-tool flags as each host's own permission settings.

One module per host behind :class:`~mcplock.hosts.export.interface.Exporter`; the merge and
writes live in :mod:`mcplock.core.export`. See docs/export.md.
"""

from __future__ import annotations

from mcplock.hosts.export.claude import ClaudeCode
from mcplock.hosts.export.codex import Codex
from mcplock.hosts.export.cursor import Cursor
from mcplock.hosts.export.gemini import Gemini
from mcplock.hosts.export.interface import Exporter
from mcplock.hosts.export.opencode import Opencode

EXPORTERS: dict[str, Exporter] = {e.host: e for e in (ClaudeCode(), Codex(), Gemini(), Opencode(), Cursor())}
EXPORT_HOSTS: tuple[str, ...] = tuple(EXPORTERS)

__all__ = ["EXPORTERS", "EXPORT_HOSTS", "Exporter"]
