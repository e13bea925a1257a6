"""Windsurf: ``mcp_config.json`` (under ``.codeium``/``windsurf``). Cursor's rules, the URL in
``serverUrl`` (or ``url``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mcplock.hosts.formats.interface import Importer, editor_transport
from mcplock.hosts.importers import Entry
from mcplock.lock.spec import Transport


class Windsurf(Importer):
    host = "windsurf"

    def by_name(self, path: Path, data: dict[str, Any]) -> bool:
        return path.name.lower() == "mcp_config.json" or path.parent.name.lower() in (".codeium", "windsurf")

    def transport(self, e: Entry, warnings: list[str]) -> tuple[Transport, str | None]:
        url = e.string("serverUrl") if e.has("serverUrl") else e.string("url")
        return editor_transport(e, self.host, url, warnings)
