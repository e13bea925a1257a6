"""The digests mcp-lock/1 defines (docs/interop.md): an entry's integrity, the whole lock's digest,
and the tool surface's records and hash. Pure: :mod:`mcplock.interop.reader` checks documents with
them, the producer writes them, and the organisation layer and the publisher kit name surfaces by them."""

from __future__ import annotations

from typing import Any

from mcplock.interop.canonical import digest

COVERAGE = ("name", "description", "inputSchema")


def entry_integrity(entry: dict[str, Any]) -> str:
    """§8.2: the digest of the entry's canonical form without its ``integrity`` member."""
    return digest({k: v for k, v in entry.items() if k != "integrity"})


def whole_lock_digest(doc: dict[str, Any]) -> str:
    """§8.3: the digest of ``{specVersion, entries, extensions}`` (top-level timestamps left out)."""
    core = {k: doc[k] for k in ("specVersion", "entries", "extensions") if k in doc}
    return digest(core)


def surface_records(tools: list[dict[str, Any]], coverage: tuple[str, ...] | list[str]) -> list[dict[str, Any]]:
    """§5: one record per tool, exactly the coverage fields (those the tool has), sorted by name in
    UTF-16 code units."""
    records = [{f: t[f] for f in coverage if f in t} for t in tools]
    return sorted(records, key=lambda r: str(r.get("name", "")).encode("utf-16-be"))


def surface_hash(tools: list[dict[str, Any]], coverage: tuple[str, ...] | list[str] = COVERAGE) -> str:
    return digest(surface_records(tools, coverage))
