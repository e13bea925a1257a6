"""Where a person reads about the release an update moves to (the pull request's table links it):
npmjs.com or pypi.org when mcplock asks the public registry, the MCP Registry's record of an
entry's version."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from mcplock.core.update import Row


def release_links(rows: list[Row]) -> dict[str, str]:
    """Server → the page of the release its row moved to, for the rows that have one."""
    links: dict[str, str] = {}
    for r in rows:
        link = release_link(r)
        if link:
            links[r.server] = link
    return links


def release_link(row: Row, environ: Any = None) -> str | None:
    """Where a person reads about the release the row moves to: npmjs.com or pypi.org (only when
    mcplock asks the public registry), the MCP Registry's record of the entry's version."""
    to = row.new_pin.version if row.new_pin is not None else row.latest
    link = _RELEASE_LINKS.get(row.registry or "")
    if not to or not row.package or link is None:
        return None
    return link(row, to, environ)


def _npm_link(row: Row, to: str, environ: Any) -> str | None:
    """The release on npmjs.com, when mcplock asks the public npm registry."""
    from urllib.parse import quote

    from mcplock.packages import registries

    if registries.npm_registry(environ).rstrip("/") != "https://registry.npmjs.org":
        return None
    return f"https://www.npmjs.com/package/{quote(row.package or '', safe='@/')}/v/{quote(to, safe='')}"


def _pypi_link(row: Row, to: str, environ: Any) -> str | None:
    """The release on pypi.org, when mcplock asks the public index."""
    from urllib.parse import quote

    from mcplock.packages import registries

    if registries.pypi_url(environ).rstrip("/") != "https://pypi.org":
        return None
    return f"https://pypi.org/project/{quote(row.package or '', safe='')}/{quote(to, safe='')}/"


def _mcp_registry_link(row: Row, to: str, environ: Any) -> str | None:
    """The MCP Registry's record of the entry's new version (an http(s) registry only)."""
    from urllib.parse import quote

    ref = row.new_ref
    if ref is None or not re.match(r"https?://", ref.url):
        return None
    return f"{ref.url.rstrip('/')}/v0.1/servers/{quote(ref.name, safe='')}/versions/{quote(ref.version, safe='')}"


_RELEASE_LINKS: dict[str, Callable[[Row, str, Any], str | None]] = {
    "npm": _npm_link,
    "pypi": _pypi_link,
    "mcp-registry": _mcp_registry_link,
}
