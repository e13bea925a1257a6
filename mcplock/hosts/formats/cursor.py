"""Cursor: ``.cursor/mcp.json``. An explicit ``type`` wins; else ``command`` is stdio, ``url``
remote; both without a type is ambiguous (skipped)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mcplock.hosts.formats.interface import Importer, editor_transport
from mcplock.hosts.importers import Entry
from mcplock.lock.spec import Transport


class Cursor(Importer):
    host = "cursor"

    def by_name(self, path: Path, data: dict[str, Any]) -> bool:
        return path.parent.name.lower() == ".cursor" and path.name.lower() == "mcp.json"

    def transport(self, e: Entry, warnings: list[str]) -> tuple[Transport, str | None]:
        return editor_transport(e, self.host, e.string("url"), warnings)
