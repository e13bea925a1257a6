"""Pure comparison: a locked server × a live snapshot → changes (DESIGN §5, §7).

Drift is a result, not an error. A live definition is compared with the accepted
one by hash; one whose hash is the rejected one counts as reviewed. Server identity
(serverInfo, protocol version) is reported apart and never counts as drift.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mcplock.errors import ProbeError
from mcplock.lock.model import ITEM_KINDS, Entry, ServerEntry
from mcplock.lock.review import live_items
from mcplock.snapshot import Snapshot

SEVERITIES = ("critical", "high", "medium", "low", "info")
_LOW_FIELDS = {"title", "icons", "_meta"}


@dataclass
class Change:
    kind: str  # "tool" | "prompt" | "resource-template" | "resource" | "instructions"
    name: str
    change: str  # "added" | "removed" | "changed"
    fields: list[str]
    severity: str
    locked_hash: str | None
    live_hash: str | None
    locked: Any = None  # accepted definition
    live: Any = None  # live definition
    findings: list[Any] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind, "name": self.name, "change": self.change, "fields": self.fields,
            "severity": self.severity, "locked_hash": self.locked_hash, "live_hash": self.live_hash,
            "findings": [f.as_json() if hasattr(f, "as_json") else f for f in self.findings],
        }


@dataclass
class PendingItem:
    kind: str
    name: str
    change: str  # "new" | "changed" | "removed"

    def as_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "name": self.name, "change": self.change}


@dataclass
class ServerDiff:
    name: str
    status: str  # "ok" | "drift" | "unreachable"
    error: ProbeError | None = None
    changes: list[Change] = field(default_factory=list)
    pending: list[PendingItem] = field(default_factory=list)
    identity: dict[str, Any] | None = None

    @property
    def findings(self) -> bool:
        return bool(self.changes or self.pending)

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "status": self.status,
            "error": None if self.error is None else {"kind": self.error.kind, "message": self.error.message, "hint": self.error.hint},
            "changes": [c.as_json() for c in self.changes],
            "pending": [p.as_json() for p in self.pending],
            "identity": self.identity,
        }


def changed_fields(old: Any, new: Any) -> list[str]:
    if not isinstance(old, dict) or not isinstance(new, dict):
        return [] if old == new else ["text"]
    return sorted(k for k in set(old) | set(new) if old.get(k, _MISSING) != new.get(k, _MISSING))


_MISSING = object()


def _flag(ann: Any, key: str) -> Any:
    return ann.get(key) if isinstance(ann, dict) else None


def severity(kind: str, change: str, fields: list[str], old: Any, new: Any) -> str:
    """Baseline severity from the shape of a change (the security lint can raise it)."""
    if change in ("added", "removed"):
        return "high" if kind in ("tool", "instructions") else "medium"
    if kind == "instructions":
        return "high"
    f = set(fields)
    if "annotations" in f:
        oa, na = (old or {}).get("annotations"), (new or {}).get("annotations")
        if _flag(oa, "readOnlyHint") is False and _flag(na, "readOnlyHint") is True:
            return "critical"
        if _flag(oa, "destructiveHint") is True and _flag(na, "destructiveHint") is False:
            return "critical"
    if f & {"description", "inputSchema", "name", "arguments", "uriTemplate"}:
        return "high"
    if f <= _LOW_FIELDS:
        return "low"
    return "medium"  # outputSchema, annotations, unknown fields


def compare(server: ServerEntry, snap: Snapshot) -> ServerDiff:
    result = ServerDiff(name=server.name, status="ok")
    live = live_items(server, snap)
    for kind in ("instructions", *ITEM_KINDS):
        if kind == "instructions":
            existing: dict[str, Entry] = {"instructions": server.instructions} if server.instructions else {}
        else:
            existing = server.items[kind]
        offered = live[kind]
        for key in sorted(offered):
            definition, h = offered[key]
            e = existing.get(key)
            if e is not None and e.definition is not None:
                if e.hash == h or e.rejected_hash == h:
                    continue
                fields = changed_fields(e.definition, definition)
                result.changes.append(Change(kind, key, "changed", fields, severity(kind, "changed", fields, e.definition, definition),
                                             e.hash, h, e.definition, definition))
            else:
                if e is not None and e.rejected_hash == h:
                    continue
                fields = sorted(definition) if isinstance(definition, dict) else ["text"]
                result.changes.append(Change(kind, key, "added", fields, severity(kind, "added", fields, None, definition),
                                             None, h, None, definition))
        for key in sorted(existing):
            e = existing[key]
            if key in offered or e.definition is None:
                continue
            fields = sorted(e.definition) if isinstance(e.definition, dict) else ["text"]
            result.changes.append(Change(kind, key, "removed", fields, severity(kind, "removed", fields, e.definition, None),
                                         e.hash, None, e.definition, None))
    result.pending = [PendingItem(e.kind, e.key, e.pending.change) for e in server.entries() if e.pending is not None]
    locked_id = {"server_info": server.server_info, "protocol_version": server.protocol_version}
    live_info = snap.server_info if isinstance(snap.server_info, dict) else None
    live_id = {"server_info": {k: v for k, v in (live_info or {}).items() if isinstance(v, str)} or None,
               "protocol_version": snap.protocol_version}
    if locked_id != live_id:
        result.identity = {"locked": locked_id, "live": live_id}
    if result.changes:
        result.status = "drift"
    return result


def unreachable(server: ServerEntry, error: ProbeError) -> ServerDiff:
    d = ServerDiff(name=server.name, status="unreachable", error=error)
    d.pending = [PendingItem(e.kind, e.key, e.pending.change) for e in server.entries() if e.pending is not None]
    return d


def exit_code(diffs: list[ServerDiff]) -> int:
    if any(d.findings for d in diffs):
        return 1
    if any(d.status == "unreachable" for d in diffs):
        return 3
    return 0
