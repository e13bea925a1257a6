"""Whether an ``mcp-lock/1`` document and an ``mcp.lock`` say the same (``verify-lock`` beside a lock).

Each entry is matched to a locked server by name (else by its registry ``source.id``), and the
facts an enforcer acts on are compared with what mcplock would export for that server now: the
target (type, registry, identifier, version, artefact digest), the surface hash (recomputed
from the lock's accepted tools over the entry's own coverage, so a document made by another
tool with another coverage is still compared), the tool count, the config digest, and — when
the entry carries mcplock's extension — every item's hash and flags. The document's own
integrity is the reader's business (:mod:`.reader`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcplock.interop import produce
from mcplock.interop.digests import COVERAGE, surface_hash
from mcplock.lock.model import Lock, ServerEntry


@dataclass(frozen=True)
class Disagreement:
    # "not-in-lock" | "not-in-document" | "target" | "entry" | "surface" | "config" | "extension" | "items"
    code: str
    server: str
    message: str

    def as_json(self) -> dict[str, str]:
        return {"code": self.code, "server": self.server, "message": self.message}


def _match(e: dict[str, Any], lock: Lock) -> ServerEntry | None:
    """The locked server an entry is of: by its name, else the one server added from its registry id."""
    name = e.get("name")
    if isinstance(name, str) and name in lock.servers:
        return lock.servers[name]
    return _by_registry_id(e, lock)


def _by_registry_id(e: dict[str, Any], lock: Lock) -> ServerEntry | None:
    source = e.get("source")
    sid = source.get("id") if isinstance(source, dict) else None
    found = [s for s in lock.servers.values() if s.spec.registry is not None and s.spec.registry.name == sid]
    return found[0] if len(found) == 1 else None


_TARGET_KEYS = ("type", "registryType", "identifier", "version", "url", "transport", "headerSecretNames")


def compare(doc: dict[str, Any], lock: Lock) -> list[Disagreement]:
    """Every disagreement, entry by entry in the document's order, then the locked servers the
    document has no entry for (and does not say it left out), by name."""
    out: list[Disagreement] = []
    seen: set[str] = set()
    for e in doc.get("entries") or []:
        if not isinstance(e, dict):
            continue
        srv = _match(e, lock)
        if srv is None:
            shown = str(e.get("name"))
            out.append(Disagreement("not-in-lock", shown, f"entry `{shown}` has no server in the lock"))
            continue
        seen.add(srv.name)
        out.extend(_entry_disagreements(e, srv))
    omitted = _omitted(doc)
    for name in sorted(set(lock.servers) - seen):
        why = produce.omitted(lock.servers[name])
        if name in omitted and why is not None:
            continue  # left out for a reason mcplock itself would leave it out for
        said = " (the document says it left it out, but mcplock would export it)" if name in omitted else ""
        out.append(Disagreement("not-in-document", name, f"`{name}` is locked but has no entry in the document{said}"))
    return out


def _omitted(doc: dict[str, Any]) -> set[Any]:
    """The servers mcplock's extension says the document leaves out on purpose."""
    top = doc.get("extensions")
    ours = top.get(produce.NAMESPACE) if isinstance(top, dict) else None
    if not isinstance(ours, dict):
        return set()
    return {o.get("server") for o in ours.get("omitted", []) if isinstance(o, dict)}


def _entry_disagreements(e: dict[str, Any], srv: ServerEntry) -> list[Disagreement]:
    """What one entry says otherwise than mcplock would export for its server now: the target,
    the surface, the config digest, mcplock's items — in that order."""
    want = produce.entry(srv)
    found = (
        _target(e, want, srv),
        _fields(e, want, srv),
        _surface(e, want, srv),
        _config(e, want, srv),
        _extension(e, want, srv),
        _items(e, want, srv),
    )
    return [d for d in found if d is not None]


# the entry's own fields an enforcer acts on, beside its target (``verification`` only in a
# document mcplock wrote: another tool records its own verifiers)
_FIELDS = ("version", "client", "scope")


def _ours(e: dict[str, Any]) -> dict[str, Any] | None:
    ext = e.get("extensions")
    theirs = ext.get(produce.NAMESPACE) if isinstance(ext, dict) else None
    return theirs if isinstance(theirs, dict) else None


def _fields(e: dict[str, Any], want: dict[str, Any], srv: ServerEntry) -> Disagreement | None:
    diffs = [k for k in _FIELDS if e.get(k) != want.get(k)]
    if _ours(e) is not None and e.get("verification") != want.get("verification"):
        diffs.append("verification")
    if not diffs:
        return None
    return Disagreement("entry", srv.name, f"`{srv.name}`: the entry's {', '.join(diffs)} differ from the lock's")


def _extension(e: dict[str, Any], want: dict[str, Any], srv: ServerEntry) -> Disagreement | None:
    """mcplock's extension beside its items: the launch, the policy, the pending count, the pin,
    the registry entry, the client identity — every member as mcplock would write it now."""
    theirs = _ours(e)
    if theirs is None:
        return None
    mine = want["extensions"][produce.NAMESPACE]
    diffs = sorted(k for k in (set(theirs) | set(mine)) - {"items"} if theirs.get(k) != mine.get(k))
    if not diffs:
        return None
    return Disagreement(
        "extension", srv.name, f"`{srv.name}`: mcplock's extension differs from the lock in {', '.join(diffs)}"
    )


def _target(e: dict[str, Any], want: dict[str, Any], srv: ServerEntry) -> Disagreement | None:
    t: dict[str, Any] = e["target"] if isinstance(e.get("target"), dict) else {}
    w: dict[str, Any] = want["target"]
    diffs = [k for k in _TARGET_KEYS if t.get(k) != w.get(k)]
    if _artifact_digest(t) != _artifact_digest(w):
        diffs.append("artifact.digest")
    if not diffs:
        return None
    why = f"`{srv.name}`: the target differs from the lock's pin ({', '.join(diffs)})"
    return Disagreement("target", srv.name, why)


def _artifact_digest(target: dict[str, Any]) -> Any:
    artifact = target.get("artifact")
    return artifact.get("digest") if isinstance(artifact, dict) else None


def _surface(e: dict[str, Any], want: dict[str, Any], srv: ServerEntry) -> Disagreement | None:
    """The surface pin against the lock's accepted tools, over the entry's own coverage."""
    s = e.get("surface")
    if not isinstance(s, dict):
        accepted = want["surface"]["toolCount"]
        return _surface_says(srv, f"the entry pins no surface; the lock accepted {accepted} tools")
    cov: list[Any] = s["coverage"] if isinstance(s.get("coverage"), list) else list(COVERAGE)
    tools = produce.accepted_tools(srv)
    why = _surface_drift(s, cov, _surface_hash_over(tools, cov), len(tools))
    return _surface_says(srv, why) if why is not None else None


def _surface_hash_over(tools: list[dict[str, Any]], cov: list[Any]) -> str | None:
    """The hash of the lock's tools over the coverage's names (None: they have no canonical form)."""
    try:
        return surface_hash(tools, [c for c in cov if isinstance(c, str)])
    except ValueError:
        return None


def _surface_drift(s: dict[str, Any], cov: list[Any], mine: str | None, count: int) -> str | None:
    """How the entry's surface differs from the lock's ``count`` tools (their hash ``mine``): a
    coverage that leaves out what the lock pins first (§5: a downgrade is drift whatever the hash
    over the rest says), then the hash, then the count; None when it does not."""
    missing = [c for c in COVERAGE if c not in cov]
    if missing:
        return f"the surface does not cover {', '.join(missing)}, which the lock pins (a coverage downgrade)"
    if s.get("hash") != mine:
        return f"the surface hash is not the one of the lock's {count} accepted tools (over {', '.join(map(str, cov))})"
    if s.get("toolCount") != count:
        return f"toolCount {s.get('toolCount')} but the lock accepted {count} tools"
    return None


def _surface_says(srv: ServerEntry, what: str) -> Disagreement:
    return Disagreement("surface", srv.name, f"`{srv.name}`: {what}")


def _config(e: dict[str, Any], want: dict[str, Any], srv: ServerEntry) -> Disagreement | None:
    if e.get("configDigest") == want["configDigest"]:
        return None
    return Disagreement(
        "config",
        srv.name,
        f"`{srv.name}`: the config digest is not the one of "
        "the lock's launch (command, arguments, environment, URL or headers differ)",
    )


def _items(e: dict[str, Any], want: dict[str, Any], srv: ServerEntry) -> Disagreement | None:
    """mcplock's own items (when the entry carries its extension), compared without findings."""
    ext = e.get("extensions")
    theirs = ext.get(produce.NAMESPACE) if isinstance(ext, dict) else None
    if not isinstance(theirs, dict):
        return None
    mine_items = want["extensions"][produce.NAMESPACE]["items"]
    got_items = theirs.get("items")
    if _without_findings(got_items) == _without_findings(mine_items):
        return None
    return Disagreement(
        "items",
        srv.name,
        f"`{srv.name}`: the pinned items (hashes, flags or "
        "review states) differ from the lock's: " + _item_diff(got_items, mine_items),
    )


def _without_findings(items: Any) -> Any:
    """Lint findings are mcplock's opinion of its version, not a pin: compared without them."""
    if not isinstance(items, dict):
        return items
    return {k: _kind_without_findings(v) for k, v in items.items()}


def _kind_without_findings(v: Any) -> dict[Any, Any]:
    """One kind's records without their findings (a kind that is not a table: no records)."""
    return {key: _record_without_findings(rec) for key, rec in (v.items() if isinstance(v, dict) else [])}


def _record_without_findings(rec: Any) -> Any:
    return {f: v for f, v in rec.items() if f != "findings"} if isinstance(rec, dict) else rec


def _item_diff(got: Any, want: dict[str, Any]) -> str:
    """The first five items that differ (and how many more), or "their shape" when no one item does."""
    names = _differing_items(got if isinstance(got, dict) else {}, want)
    shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
    return shown or "their shape"


def _differing_items(got: dict[str, Any], want: dict[str, Any]) -> list[str]:
    """``kind key`` of every item that differs without its findings; a kind that is not a table, whole."""
    names = []
    for kind in sorted(set(got) | set(want)):
        a, b = got.get(kind) or {}, want.get(kind) or {}
        if isinstance(a, dict):
            names.extend(_differing_keys(kind, a, b))
        else:
            names.append(kind)
    return names


def _differing_keys(kind: str, a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    """The items of one kind whose records differ without their findings."""
    names = []
    for key in sorted(set(a) | set(b)):
        ra, rb = _without_findings({kind: {key: a.get(key)}}), _without_findings({kind: {key: b.get(key)}})
        if ra != rb:
            names.append(f"{kind} {key}" if kind != "instructions" else "instructions")
    return names
