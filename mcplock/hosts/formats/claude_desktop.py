"""Claude Desktop: ``claude_desktop_config.json``, stdio only (``command``/``args``/``env``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mcplock.hosts.formats.interface import Importer
from mcplock.hosts.importers import Entry, Skip
from mcplock.lock.spec import Transport


class ClaudeDesktop(Importer):
    host = "claude-desktop"

    def by_name(self, path: Path, data: dict[str, Any]) -> bool:
        return path.name.lower() == "claude_desktop_config.json"

    def transport(self, e: Entry, warnings: list[str]) -> tuple[Transport, str | None]:
        if e.string("command") is not None:
            return Transport.STDIO, None
        if e.string("url") is not None:
            raise Skip("remote server in claude_desktop_config.json: Claude Desktop reads only command/args/env here")
        raise Skip("missing command")
