"""The MCP Registry's generic API v0.1: a server's entry by name (and version), its versions,
and search. The official registry and private ones speak the same API.

- ``GET /v0.1/servers/{name}/versions/{version|latest}``: ``{"server": server.json, "_meta": …}``;
- ``GET /v0.1/servers/{name}/versions``: ``{"servers": [...], "metadata": {...}}``;
- ``GET /v0.1/servers?search=TEXT&version=latest&cursor=…``: pages with ``metadata.nextCursor``.

The entry's status (``active``, ``deprecated``, ``deleted``) is the registry's own, in
``_meta["io.modelcontextprotocol.registry/official"]``. Which registry: ``--registry URL``, else
``MCPLOCK_REGISTRY_URL``, else the official one.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlencode

from mcplock.errors import McplockError
from mcplock.packages.errors import RegistryError
from mcplock.text.untrusted import shell_word

DEFAULT = "https://registry.modelcontextprotocol.io"
OFFICIAL_META = "io.modelcontextprotocol.registry/official"
STATUSES = ("active", "deprecated", "deleted")
MAX_PAGES = 20
# a registry name: reverse-DNS namespace, a slash, the server's name
NAME = re.compile(r"[a-zA-Z0-9.-]+\.[a-zA-Z0-9-]+/[a-zA-Z0-9._-]+")


def is_name(text: str) -> bool:
    """``io.github.owner/server`` (optionally ``@VERSION``): a registry name, not a server name."""
    return NAME.fullmatch(text.split("@", 1)[0]) is not None


def base_url(override: str | None = None, environ: Mapping[str, str] | None = None) -> str:
    env = os.environ if environ is None else environ
    url = override or env.get("MCPLOCK_REGISTRY_URL") or DEFAULT
    return url.rstrip("/")


@dataclass(frozen=True)
class Entry:
    """One version of a server in the registry."""

    name: str
    version: str
    status: str  # "active" | "deprecated" | "deleted"
    server: dict[str, Any]  # server.json as the registry serves it
    registry: str  # the registry's base URL
    is_latest: bool = False
    published: str | None = None

    @property
    def description(self) -> str:
        d = self.server.get("description")
        return d if isinstance(d, str) else ""


def _entry(doc: Any, registry: str) -> Entry | None:
    if not isinstance(doc, dict) or not isinstance(doc.get("server"), dict):
        return None
    server = doc["server"]
    meta = _official(doc)
    status = meta.get("status") or server.get("status") or "active"
    name, version = server.get("name"), server.get("version")
    if not isinstance(name, str) or not isinstance(version, str):
        return None
    # a status is a word of the registry's, whatever its letter case: "Deleted" is deleted
    return Entry(
        name=name,
        version=version,
        status=str(status).strip().casefold(),
        server=server,
        registry=registry,
        is_latest=bool(meta.get("isLatest")),
        published=meta.get("publishedAt"),
    )


def _official(doc: dict[str, Any]) -> Any:
    """What the registry itself says of an entry (status, latest, publish time): its
    ``_meta`` under :data:`OFFICIAL_META`; ``{}`` for nothing."""
    return ((doc.get("_meta") or {}).get(OFFICIAL_META)) or {}


def _entries(doc: Any, registry: str) -> list[Entry]:
    """The entries a list reply (``{"servers": [...]}``) holds; what is not an entry is skipped."""
    if not isinstance(doc, dict):
        return []
    return [e for e in (_entry(d, registry) for d in doc.get("servers") or []) if e is not None]


def _get(url: str, what: str) -> Any:
    from mcplock.packages.registries import get_json

    return get_json(url, what)


def get(name: str, version: str | None = None, registry: str = DEFAULT) -> Entry:
    """The entry of ``name`` at ``version`` (None: the latest)."""
    path = f"{registry}/v0.1/servers/{quote(name, safe='')}/versions/{quote(version or 'latest', safe='')}"
    doc = _get(path, f"MCP Registry server {name}")
    entry = _entry(doc, registry)
    if entry is None:
        raise _not_found(name, version, registry)
    return served_as_asked(entry, name, version)


def _not_found(name: str, version: str | None, registry: str) -> RegistryError:
    """Why the registry has no entry for ``name`` at ``version``: a version it does not have,
    or a server it does not know (with the name its search finds closest)."""
    if version is not None and versions(name, registry):
        return RegistryError(
            "unknown-version",
            f"the MCP Registry at {registry} has no version {version} of {name}",
            hint=f"see its versions with `mcplock inspect {shell_word(name)}`",
        )
    guess = _suggest(name, registry)
    return RegistryError(
        "unknown-server",
        f"the MCP Registry at {registry} has no server named {name}",
        hint=f"did you mean {guess}? `mcplock add {shell_word(guess)}`"
        if guess
        else f"look it up with `mcplock search {shell_word(name.rsplit('/', 1)[-1])}`",
    )


class MismatchError(McplockError):
    """The registry answered a request with another server's entry, or another version than the
    one asked for (exit 2): nothing of it is used, nothing is fetched."""

    exit_code = 2
    code = "registry-mismatch"


def served_as_asked(entry: Entry, name: str, version: str | None) -> Entry:
    """``entry`` when it is the one asked for: its ``server.name`` is ``name`` exactly and, when a
    version was asked for, its version is that one. Otherwise :class:`MismatchError`: the
    ownership check compares a package's claim with the entry's name, so an entry served for
    another name would let that name's package in under the asked one."""
    if entry.name != name:
        raise MismatchError(
            f"the MCP Registry at {entry.registry} answered the request for {name} with the entry of "
            f"{entry.name}; refused, nothing was fetched",
            hint="the registry is broken or hostile: check the registry URL (--registry, MCPLOCK_REGISTRY_URL)",
        )
    if version is not None and entry.version != version:
        raise MismatchError(
            f"the MCP Registry at {entry.registry} answered the request for {name} {version} with "
            f"version {entry.version}; refused, nothing was fetched",
            hint=f"see its versions with `mcplock inspect {shell_word(name)}`",
        )
    return entry


def _suggest(name: str, registry: str) -> str | None:
    """The registry name its search finds closest to ``name`` (None: none close, or no answer)."""
    from mcplock.packages.errors import did_you_mean

    namespace, _, words = name.rpartition("/")
    found: list[str] = []
    for text in dict.fromkeys(t for t in (words, namespace) if t):  # the registry's search is a substring match
        try:
            found += [e.name for e in search(text, registry, limit=50)]
        except McplockError:  # a suggestion is a courtesy, never a reason to fail
            return None
    return did_you_mean(name, found)


def versions(name: str, registry: str = DEFAULT) -> list[Entry]:
    doc = _get(f"{registry}/v0.1/servers/{quote(name, safe='')}/versions", f"MCP Registry server {name}")
    return [e for e in _entries(doc, registry) if e.name == name]  # another server's entry is not one of these


def search(text: str, registry: str = DEFAULT, *, limit: int = 50) -> list[Entry]:
    """The latest version of every server the registry's search matches (cursor pagination,
    bounded: :data:`MAX_PAGES`, a cursor seen before ends it), each (name, version) once."""
    out: list[Entry] = []
    have: set[tuple[str, str]] = set()
    cursor: str | None = None
    seen: set[str] = set()
    for _ in range(MAX_PAGES):
        page = _search_page(text, registry, limit, cursor)
        if page is None:
            break
        entries, cursor = page
        out += _unlisted(entries, have)
        if not cursor or cursor in seen or len(out) >= limit:
            break
        seen.add(cursor)
    return out[:limit]


def _unlisted(entries: list[Entry], have: set[tuple[str, str]]) -> list[Entry]:
    """The entries whose (name, version) is not in ``have`` yet, each once (``have`` learns them)."""
    new: list[Entry] = []
    for e in entries:
        if (e.name, e.version) not in have:
            have.add((e.name, e.version))
            new.append(e)
    return new


def _search_page(text: str, registry: str, limit: int, cursor: str | None) -> tuple[list[Entry], Any] | None:
    """One page of a search: its entries and the next cursor; None when the answer is no page."""
    query = {"search": text, "version": "latest", "limit": str(min(limit, 100))}
    if cursor:
        query["cursor"] = cursor
    doc = _get(f"{registry}/v0.1/servers?{urlencode(query)}", f"MCP Registry search {text!r}")
    if not isinstance(doc, dict):
        return None
    return _entries(doc, registry), (doc.get("metadata") or {}).get("nextCursor")
