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
from mcplock.interop.reader import COVERAGE, surface_hash
from mcplock.lock.model import Lock, ServerEntry


@dataclass(frozen=True)
class Disagreement:
    code: str  # "not-in-lock" | "not-in-document" | "target" | "surface" | "config" | "items" | "version"
    server: str
    message: str

    def as_json(self) -> dict[str, str]:
        return {"code": self.code, "server": self.server, "message": self.message}


def _match(e: dict[str, Any], lock: Lock) -> ServerEntry | None:
    name = e.get("name")
    if isinstance(name, str) and name in lock.servers:
        return lock.servers[name]
    source = e.get("source")
    sid = source.get("id") if isinstance(source, dict) else None
    found = [s for s in lock.servers.values() if s.spec.registry is not None and s.spec.registry.name == sid]
    return found[0] if len(found) == 1 else None


_TARGET_KEYS = ("type", "registryType", "identifier", "version", "url")


def compare(doc: dict[str, Any], lock: Lock) -> list[Disagreement]:
    out: list[Disagreement] = []
    seen: set[str] = set()
    top = doc.get("extensions")
    ours = top.get(produce.NAMESPACE) if isinstance(top, dict) else None
    omitted = (
        {o.get("server") for o in (ours or {}).get("omitted", []) if isinstance(o, dict)}
        if isinstance(ours, dict)
        else set()
    )
    for e in doc.get("entries") or []:
        if not isinstance(e, dict):
            continue
        shown = str(e.get("name"))
        srv = _match(e, lock)
        if srv is None:
            out.append(Disagreement("not-in-lock", shown, f"entry `{shown}` has no server in the lock"))
            continue
        seen.add(srv.name)
        want = produce.entry(srv)
        t: dict[str, Any] = e["target"] if isinstance(e.get("target"), dict) else {}
        w: dict[str, Any] = want["target"]
        diffs = [k for k in _TARGET_KEYS if t.get(k) != w.get(k)]
        got_art = (t.get("artifact") or {}).get("digest") if isinstance(t.get("artifact"), dict) else None
        if got_art != (w.get("artifact") or {}).get("digest"):
            diffs.append("artifact.digest")
        if diffs:
            out.append(
                Disagreement(
                    "target", srv.name, f"`{srv.name}`: the target differs from the lock's pin ({', '.join(diffs)})"
                )
            )
        s = e.get("surface")
        if not isinstance(s, dict):
            out.append(
                Disagreement(
                    "surface",
                    srv.name,
                    f"`{srv.name}`: the entry pins no surface; the lock accepted {want['surface']['toolCount']} tools",
                )
            )
        else:
            cov: list[Any] = s["coverage"] if isinstance(s.get("coverage"), list) else list(COVERAGE)
            tools = produce.accepted_tools(srv)
            try:
                mine = surface_hash(tools, [c for c in cov if isinstance(c, str)])
            except ValueError:
                mine = None
            missing = [c for c in COVERAGE if c not in cov]
            if missing:  # §5: a coverage downgrade is drift, whatever the hash over the rest says
                out.append(
                    Disagreement(
                        "surface",
                        srv.name,
                        f"`{srv.name}`: the surface does not cover "
                        f"{', '.join(missing)}, which the lock pins (a coverage downgrade)",
                    )
                )
            elif s.get("hash") != mine:
                out.append(
                    Disagreement(
                        "surface",
                        srv.name,
                        f"`{srv.name}`: the surface hash is not the one of "
                        f"the lock's {len(tools)} accepted tools (over {', '.join(map(str, cov))})",
                    )
                )
            elif s.get("toolCount") != len(tools):
                out.append(
                    Disagreement(
                        "surface",
                        srv.name,
                        f"`{srv.name}`: toolCount {s.get('toolCount')} but the lock accepted {len(tools)} tools",
                    )
                )
        if e.get("configDigest") != want["configDigest"]:
            out.append(
                Disagreement(
                    "config",
                    srv.name,
                    f"`{srv.name}`: the config digest is not the one of "
                    "the lock's launch (command, arguments, environment, URL or headers differ)",
                )
            )
        ext = e.get("extensions")
        theirs = ext.get(produce.NAMESPACE) if isinstance(ext, dict) else None
        if isinstance(theirs, dict):
            mine_items = want["extensions"][produce.NAMESPACE]["items"]
            got_items = theirs.get("items")
            strip = _without_findings
            if strip(got_items) != strip(mine_items):
                out.append(
                    Disagreement(
                        "items",
                        srv.name,
                        f"`{srv.name}`: the pinned items (hashes, flags or "
                        "review states) differ from the lock's: " + _item_diff(got_items, mine_items),
                    )
                )
    for name in sorted(set(lock.servers) - seen):
        if name in omitted:
            continue
        out.append(Disagreement("not-in-document", name, f"`{name}` is locked but has no entry in the document"))
    return out


def _without_findings(items: Any) -> Any:
    """Lint findings are mcplock's opinion of its version, not a pin: compared without them."""
    if not isinstance(items, dict):
        return items
    return {
        k: {
            key: {f: v for f, v in rec.items() if f != "findings"} if isinstance(rec, dict) else rec
            for key, rec in (v.items() if isinstance(v, dict) else [])
        }
        for k, v in items.items()
    }


def _item_diff(got: Any, want: dict[str, Any]) -> str:
    got = got if isinstance(got, dict) else {}
    names = []
    for kind in sorted(set(got) | set(want)):
        a, b = got.get(kind) or {}, want.get(kind) or {}
        if not isinstance(a, dict):
            names.append(kind)
            continue
        for key in sorted(set(a) | set(b)):
            ra, rb = _without_findings({kind: {key: a.get(key)}}), _without_findings({kind: {key: b.get(key)}})
            if ra != rb:
                names.append(f"{kind} {key}" if kind != "instructions" else "instructions")
    shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
    return shown or "their shape"
