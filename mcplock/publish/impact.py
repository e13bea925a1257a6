"""``mcplock surface --against PREVIOUS``: what a release does to every client that pinned the
previous one (docs/publishers.md).

A pinned client's lock accepted the previous release's surface. On its next ``refresh`` each item
of the new release is one of:

- ``quarantined``: a changed tool — staged for review and disabled until someone accepts it;
- ``new``: an added item — staged, a tool disabled until accepted;
- ``review``: any other changed item (a prompt, a template, the instructions, a document) —
  staged for review;
- ``removed``: an item the release no longer offers — its removal staged;
- ``unchanged``: the same definition, hash for hash — no client sees a thing.

Each change carries the severity and the findings a client's ``diff`` shows (the same comparison:
:func:`mcplock.lint.compare.compare`), so the author sees the ``high`` a client would see before
publishing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mcplock.model.severity import SEVERITIES, at_least
from mcplock.publish.statement import Statement

EFFECTS = ("quarantined", "new", "review", "removed", "unchanged")


@dataclass
class Item:
    kind: str
    name: str
    effect: str  # one of EFFECTS
    change: Any = None  # the lint.compare.Change (None: unchanged)

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "name": self.name, "effect": self.effect}
        if self.change is not None:
            c = self.change.as_json()
            out.update({k: c[k] for k in ("change", "fields", "severity", "reason", "findings")})
        return out


@dataclass
class Impact:
    previous: str  # what the release is compared with (a path, a package)
    items: list[Item] = field(default_factory=list)
    identity: dict[str, Any] | None = None

    def of(self, effect: str) -> list[Item]:
        return [i for i in self.items if i.effect == effect]

    @property
    def changed(self) -> list[Item]:
        return [i for i in self.items if i.change is not None]

    def worst(self) -> str | None:
        sevs = [i.change.severity for i in self.changed]
        return next((s for s in SEVERITIES if s in sevs), None)

    def fails(self, fail_on: str | None) -> bool:
        return fail_on is not None and any(at_least(i.change.severity, fail_on) for i in self.changed)

    def summary(self) -> dict[str, Any]:
        return {**{e: len(self.of(e)) for e in EFFECTS}, "worst": self.worst()}

    def as_json(self) -> dict[str, Any]:
        return {
            "against": self.previous,
            "items": [i.as_json() for i in self.items],
            "identity": self.identity,
            "summary": self.summary(),
        }


def _effect(c: Any) -> str:
    if c.change == "removed":
        return "removed"
    if c.change == "added":
        return "new"
    return "quarantined" if c.kind == "tool" else "review"


def impact(previous: Statement, current: Statement, label: str) -> Impact:
    """Every item of either release and what a client that pinned ``previous`` sees of it."""
    from mcplock.lint.compare import compare
    from mcplock.lint.cross_server import cross_server, tools_in_view
    from mcplock.lock.model import Lock
    from mcplock.publish.offline import statement_entry

    name = current.name
    entry = statement_entry(previous, name)
    snap = current.snapshot()
    d = compare(entry, snap)
    cross_server([d], tools_in_view(Lock({name: entry}), {name: snap}))
    out = Impact(label, identity=d.identity)
    changed = {(c.kind, c.name) for c in d.changes}
    out.items = [Item(c.kind, c.name, _effect(c), c) for c in d.changes]
    for kind, hashes in sorted(current.hashes().items()):
        before = previous.hashes().get(kind, {})
        for key in sorted(hashes):
            if (kind, key) not in changed and before.get(key) == hashes[key]:
                out.items.append(Item(kind, key, "unchanged"))
    order = {s: i for i, s in enumerate(SEVERITIES)}
    out.items.sort(key=lambda i: (EFFECTS.index(i.effect), order.get(i.change.severity, 9) if i.change else 9))
    return out
