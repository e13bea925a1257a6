"""opencode: ``opencode.json(c)`` (``mcp``, or ``mcp.servers`` from v2). ``type`` ``local`` (a
``command`` array, ``environment``) or ``remote`` (``url``); ``enabled``/``disabled`` noted."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mcplock.hosts.formats.interface import Convert, Found, Importer
from mcplock.hosts.importers import Entry, Skip, guess_remote
from mcplock.lock.spec import Transport


class Opencode(Importer):
    host = "opencode"
    servers_key = ("mcp",)

    def by_name(self, path: Path, data: dict[str, Any]) -> bool:
        return path.name.lower() in ("opencode.json", "opencode.jsonc") or "opencode.ai" in str(data.get("$schema", ""))

    def keys(self, data: dict[str, Any]) -> tuple[str, ...] | None:
        mcp = data.get("mcp")  # v2 moves the servers under mcp.servers
        return ("mcp", "servers") if isinstance(mcp, dict) and isinstance(mcp.get("servers"), dict) else ("mcp",)

    def annotate(self, data: dict[str, Any], found: list[Found]) -> None:
        for _n, e, extra in found:
            if e.flag("enabled") is False:
                extra.append("disabled in this file (enabled = false)")
            elif e.flag("disabled") is True:
                extra.append("disabled in this file (disabled = true)")

    def check_fields(self, e: Entry) -> None:
        e.string("url")  # its command is an array (:meth:`stdio`)

    def transport(self, e: Entry, warnings: list[str]) -> tuple[Transport, str | None]:
        url = e.string("url")
        t = e.string("type")
        if t == "local":
            return Transport.STDIO, None
        if t == "remote":
            if url is None:
                raise Skip('type "remote" without a url')
            return guess_remote(url, self.host, warnings), url
        raise Skip('opencode needs "type": "local" or "remote"')

    def stdio(self, e: Entry, conv: Convert, warnings: list[str]) -> dict[str, Any]:
        argv = e.str_list("command")
        if not argv or not argv[0].strip():
            raise Skip("empty command")
        return {
            "command": conv(argv[0]),
            "args": [conv(a) for a in argv[1:]],
            "env": {k: conv(v) for k, v in e.str_map("environment").items()},
            "cwd": None,
        }
