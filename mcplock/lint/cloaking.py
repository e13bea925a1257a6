"""Whether a server answers another host otherwise than the probe (``diff --cloak``;
docs/protocol.md, "Cloaking"): each identity's answer compared with the first, item by item, by
hash; an item listed exactly to the clients that declare a capability it needs is the protocol
at work, not cloaking (issue 42.2)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcplock.errors import ProbeError
from mcplock.lock.model import ServerEntry
from mcplock.lock.review import live_items
from mcplock.model.snapshot import Snapshot

_SAW = {
    "only-here": "lists it; the first answer does not",
    "missing": "does not list it; the first answer does",
    "changed": "is served another definition than the first answer's",
}


@dataclass
class Cloaked:
    """What one well-known host's identity saw that the first answer did not (``diff --cloak``):
    ``change`` is ``only-here`` (listed for this identity only), ``missing`` (not listed for it),
    ``changed`` (listed differently), or ``failed`` (it could not be probed as that identity: a
    note, ``info``, since a flaky server is not proof)."""

    identity: str  # the identity, described (its label and clientInfo)
    kind: str
    name: str
    change: str
    severity: str
    message: str

    def as_json(self) -> dict[str, Any]:
        return {
            "identity": self.identity,
            "kind": self.kind,
            "name": self.name,
            "change": self.change,
            "severity": self.severity,
            "message": self.message,
        }


def _hashes(server: ServerEntry, snap: Snapshot) -> dict[tuple[str, str], str]:
    """(kind, key) -> hash of each item a snapshot offers."""
    return {(kind, key): h for kind, got in live_items(server, snap).items() for key, (_d, h) in got.items()}


def _cloak(desc: str, kind: str, key: str, a: str | None, b: str | None) -> Cloaked:
    """An item the identity ``desc`` is answered otherwise (``a``: its hash in the first answer, ``b``: in its own)."""
    change = "only-here" if a is None else "missing" if b is None else "changed"
    return Cloaked(
        desc,
        kind,
        key,
        change,
        "critical",
        f"{desc} {_SAW[change]}: the server answers this host otherwise than the probe",
    )


def _answer_cloaks(server: ServerEntry, base: dict[tuple[str, str], str], desc: str, got: Any) -> list[Cloaked]:
    """What one identity's answer (a Snapshot or a ProbeError) has otherwise than the first answer
    (``base``: its hashes), item by item; an ``info`` note when it could not be compared."""
    from mcplock.errors import HashError

    if isinstance(got, ProbeError):
        why = got.message.splitlines()[0] if got.message else got.kind
        return [Cloaked(desc, "server", server.name, "failed", "info", f"could not be probed as {desc}: {why}")]
    try:
        theirs = _hashes(server, got)
    except HashError as e:
        return [Cloaked(desc, "server", server.name, "failed", "info", f"as {desc}: {e}")]
    return [
        _cloak(desc, kind, key, base.get((kind, key)), theirs.get((kind, key)))
        for kind, key in sorted(set(base) | set(theirs))
        if base.get((kind, key)) != theirs.get((kind, key))
    ]


def cloaking(server: ServerEntry, first: Snapshot, others: list[tuple[Any, Any]]) -> list[Cloaked]:
    """What each identity's answer (``others``: (identity, Snapshot or ProbeError)) has that the
    first answer has not, item by item: each a ``critical`` finding naming the identity — unless
    the item is listed exactly to the clients that declare a capability it needs (issue 42.2:
    server-everything offers its sampling tool only to a client that declares ``sampling``):
    that is the protocol at work, said once as an ``info`` note, not cloaking."""
    base = _hashes(server, first)
    out: list[Cloaked] = []
    for who, got in others:
        out += _answer_cloaks(server, base, who.describe(), got)
    gated = _capability_gated(server, first, others, {(c.kind, c.name) for c in out if c.change != "changed"})
    kept = [c for c in out if (c.kind, c.name) not in gated or c.change == "changed"]
    notes = [
        Cloaked(
            "every identity",
            kind,
            key,
            "capability",
            "info",
            f"offered only to clients that declare `{cap}` (the identities that do not are not shown it): "
            "the protocol at work, not cloaking",
        )
        for (kind, key), cap in sorted(gated.items())
    ]
    return kept + notes


def _capability_gated(
    server: ServerEntry, first: Snapshot, others: list[tuple[Any, Any]], items: set[tuple[str, str]]
) -> dict[tuple[str, str], str]:
    """Of ``items`` (listed to some identities, not to others): each that every answer lists
    exactly when its client declared one capability, with that capability."""
    answers = [first, *(got for _who, got in others if isinstance(got, Snapshot))]
    try:
        listed = [(set(a.client_capabilities or ()), set(_hashes(server, a))) for a in answers]
    except Exception:  # an answer that cannot be hashed was reported already
        return {}
    declared = sorted({c for caps, _ in listed for c in caps})
    out: dict[tuple[str, str], str] = {}
    for item in items:
        cap = next((c for c in declared if all((item in have) == (c in caps) for caps, have in listed)), None)
        if cap is not None:
            out[item] = cap
    return out
