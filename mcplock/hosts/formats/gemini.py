"""Gemini CLI: ``.gemini/settings.json``. Precedence ``httpUrl`` (http) > ``url`` (its ``type``,
else remote) > ``command``; ``mcp.allowed``/``mcp.excluded`` noted; ``cwd`` is read."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mcplock.hosts.formats.interface import Found, Importer
from mcplock.hosts.importers import Entry, Skip, explicit_type, guess_remote
from mcplock.lock.spec import Transport

ENTRY_KEYS = ("httpUrl", "trust", "includeTools", "excludeTools")  # what only a Gemini entry has


class Gemini(Importer):
    host = "gemini"
    reads_cwd = True

    def by_name(self, path: Path, data: dict[str, Any]) -> bool:
        return path.parent.name.lower() == ".gemini" and path.name.lower() == "settings.json"

    def annotate(self, data: dict[str, Any], found: list[Found]) -> None:
        gemini = data.get("mcp")
        if not isinstance(gemini, dict):
            gemini = {}
        allowed, excluded = gemini.get("allowed"), gemini.get("excluded")
        for n, _, extra in found:
            why = _not_started(n, allowed, excluded)
            if why is not None:
                extra.append(why)

    def transport(self, e: Entry, warnings: list[str]) -> tuple[Transport, str | None]:
        http_url = e.string("httpUrl")
        url = e.string("url")
        t = explicit_type(e)
        if http_url is not None:  # precedence: httpUrl > url > command
            _warn_type_ignored(t, warnings)
            return Transport.HTTP, http_url
        if url is not None:
            if t is Transport.STDIO:
                raise Skip('type "stdio" with a url and no command')
            return (t or guess_remote(url, self.host, warnings)), url
        if e.string("command") is not None:
            return Transport.STDIO, None
        raise Skip("none of command, url, httpUrl")


def _not_started(name: str, allowed: Any, excluded: Any) -> str | None:
    """Why Gemini CLI does not start the server: ``mcp.excluded`` lists it, or ``mcp.allowed``
    does not (None: it starts it)."""
    if isinstance(excluded, list) and name in excluded:
        return "listed in mcp.excluded: Gemini CLI does not start it"
    if isinstance(allowed, list) and name not in allowed:
        return "not in mcp.allowed: Gemini CLI does not start it"
    return None


def _warn_type_ignored(t: Transport | None, warnings: list[str]) -> None:
    """A warning when an entry with ``httpUrl`` names another type (``httpUrl`` wins)."""
    if t not in (None, Transport.HTTP):
        warnings.append(f"httpUrl with type {t!r}: httpUrl wins, imported as Streamable HTTP")
