"""VS Code: ``.vscode/mcp.json`` (``servers``), an older ``settings.json`` (``mcp.servers``) and
``devcontainer.json`` (``customizations.vscode.mcp.servers``). An explicit ``type`` wins; both
``command`` and ``url`` without a type start the command (what VS Code does); ``cwd`` is read."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mcplock.hosts.formats.interface import Importer, editor_transport
from mcplock.hosts.importers import Entry, dig
from mcplock.lock.spec import Transport

#: where VS Code's files keep servers: mcp.json's ``servers``, an older build's ``mcp`` object
#: in settings.json, a devcontainer.json's customizations
_SERVER_PLACES = (("servers",), ("mcp", "servers"), ("customizations", "vscode", "mcp", "servers"))


class VsCode(Importer):
    host = "vscode"
    servers_key = ("servers",)
    reads_cwd = True

    def by_name(self, path: Path, data: dict[str, Any]) -> bool:
        name = path.name.lower()
        return (path.parent.name.lower() == ".vscode" and name in ("mcp.json", "settings.json")) or name in (
            "devcontainer.json",
            ".devcontainer.json",
        )

    def keys(self, data: dict[str, Any]) -> tuple[str, ...] | None:
        """The first place the file keeps servers in (:data:`_SERVER_PLACES`), None for none."""
        for keys in _SERVER_PLACES:
            holder = dig(data, keys[:-1])
            if isinstance(holder, dict) and keys[-1] in holder:
                return keys
        return None

    def missing(self, data: dict[str, Any]) -> str:
        note = "no `servers` in this file: nothing to import"
        if "mcpServers" in data:
            note += " (VS Code reads `servers`, not `mcpServers`)"
        return note

    def transport(self, e: Entry, warnings: list[str]) -> tuple[Transport, str | None]:
        return editor_transport(
            e,
            self.host,
            e.string("url"),
            warnings,
            both="both command and url without a type: VS Code starts the command (stdio)",
        )
