"""The review workflow (stage, accept, reject) as pure state transitions on the model.

``stage`` turns a live snapshot into pending proposals (what ``refresh`` and ``add``
do); ``accept`` and ``reject`` settle them. Nothing here does I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mcplock.lock.hashing import definition_hash
from mcplock.lock.model import ITEM_KINDS, Entry, Pending, ServerEntry
from mcplock.lock.targets import item_target
from mcplock.model.snapshot import KEY_FIELD, Snapshot


def default_approval(policy: str, definition: Any) -> str:
    """The approval a newly accepted tool gets from its server's policy.

    ``writes`` trusts ``readOnlyHint: true`` only to pre-select "never" for a person to
    confirm; most servers publish no annotations, so ``writes`` is usually ``all``.
    """
    if policy == "none" or (policy == "writes" and _says_read_only(definition)):
        return "never"
    return "always"


def _says_read_only(definition: Any) -> bool:
    """Whether a tool's definition carries the annotation ``readOnlyHint: true``."""
    ann = definition.get("annotations") if isinstance(definition, dict) else None
    return isinstance(ann, dict) and ann.get("readOnlyHint") is True


def stricter(a: str, b: str) -> str:
    return "never" if a == "never" and b == "never" else "always"


@dataclass
class StageResult:
    new: list[str] = field(default_factory=list)  # items as named inside the server (targets.item_target)
    changed: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    tampered: list[str] = field(default_factory=list)  # re-staged: the stored definition failed its hash
    unchanged: int = 0

    @property
    def proposals(self) -> int:
        return len(self.new) + len(self.changed) + len(self.removed)

    def staged(self, change: str) -> list[str]:
        """The list a proposal of ``change`` ("new" or "changed") is counted in."""
        return self.new if change == "new" else self.changed


def live_items(server: ServerEntry, snap: Snapshot) -> dict[str, dict[str, tuple[Any, str]]]:
    """kind -> key -> (definition, hash) of what the server offers now (what the lock pins)."""
    out = {kind: _offered(server, snap, kind) for kind in ITEM_KINDS}
    out["instructions"] = _offered_instructions(server, snap)
    return out


def _offered(server: ServerEntry, snap: Snapshot, kind: str) -> dict[str, tuple[Any, str]]:
    """key -> (definition, hash) of the items of one kind the snapshot shows (resources only when
    the server pins them)."""
    if kind == "resource" and not server.spec.pin_resources:
        return {}
    got: dict[str, tuple[Any, str]] = {}
    for d in snap.items(kind):
        key = d[KEY_FIELD[kind]]
        got[key] = (d, definition_hash(d, what=f"{kind} `{server.name}/{key}`"))
    return got


def _offered_instructions(server: ServerEntry, snap: Snapshot) -> dict[str, tuple[Any, str]]:
    if snap.instructions is None:
        return {}
    h = definition_hash(snap.instructions, what=f"`{server.name}` instructions")
    return {"instructions": (snap.instructions, h)}


def _restore(entry: Entry) -> None:
    """Upstream matches what was accepted: drop a stale proposal, undo a quarantine."""
    if entry.pending is not None:
        if entry.pending.enabled_before is not None:
            entry.enabled = entry.pending.enabled_before
        entry.pending = None


def _stage_change(entry: Entry, definition: Any, h: str) -> None:
    """A change upstream, a stored definition that fails its hash, or a rejected tool whose server
    offers the accepted definition again: staged for a person to review, a tool quarantined (the
    rug-pull shape) with the ``enabled`` that accepting gives back, a person's approval kept."""
    old = entry.pending
    before = old.enabled_before if old is not None else None
    if before is None and entry.kind == "tool" and entry.rejected_hash is None:
        before = entry.enabled
    approval = old.approval if old is not None else None
    entry.pending = Pending(change="changed", definition=definition, hash=h, enabled_before=before, approval=approval)
    if entry.kind == "tool":
        entry.enabled = False


def _propose(entry: Entry, definition: Any, h: str, result: StageResult) -> None:
    """Record what the server offers for ``entry`` (``definition``, its hash ``h``) in ``result``:
    nothing new, already staged, or a new proposal."""
    if entry.rejected_hash == h:
        entry.pending = None  # seen and rejected: not proposed again until it changes
        result.unchanged += 1
        return
    tampered = entry.tampered()  # the stored definition fails its hash: never kept as accepted
    if _offers_accepted(entry, h) and not tampered:
        _restore(entry)
        result.unchanged += 1
        return
    staged = _still_staged(entry, h)
    if staged is not None:
        result.staged(staged.change).append(item_target(entry))
        return
    if entry.definition is None:
        _stage_new(entry, definition, h)
        result.new.append(item_target(entry))
        return
    _stage_change(entry, definition, h)
    if tampered:
        result.tampered.append(item_target(entry))
    result.changed.append(item_target(entry))


def _offers_accepted(entry: Entry, h: str) -> bool:
    """Whether the server offers the accepted definition (and nothing was rejected since)."""
    return entry.definition is not None and entry.hash == h and entry.rejected_hash is None


def _still_staged(entry: Entry, h: str) -> Pending | None:
    """The entry's proposal when it already is for ``h`` (and its stored definition is intact)."""
    p = entry.pending
    if p is not None and p.hash == h and not entry.tampered(pending=True):
        return p
    return None


def _stage_new(entry: Entry, definition: Any, h: str) -> None:
    """A never-accepted item staged as new, disabled; a person's approval for it kept."""
    approval = entry.pending.approval if entry.pending is not None else None
    entry.pending = Pending(change="new", definition=definition, hash=h, approval=approval)
    entry.enabled = False


def _entry(server: ServerEntry, kind: str, key: str) -> Entry:
    """``server``'s entry for an offered item, a new one (not accepted) when it has none."""
    entry = server.find(kind, key)
    if entry is None:
        entry = Entry(kind=kind, key=key, enabled=kind != "tool")
        if kind == "instructions":
            server.instructions = entry
        else:
            server.items[kind][key] = entry
    return entry


def _gone(server: ServerEntry, kind: str, key: str, result: StageResult) -> None:
    """An item the server no longer offers: forgotten when it was never accepted, else its
    removal staged (a quarantine's ``enabled`` kept for it)."""
    entry = server.pinned(kind)[key]
    if entry.definition is None:
        _drop(server, kind, key)  # never accepted and now gone: nothing left to track
        return
    if entry.pending is None or entry.pending.change != "removed":
        before = entry.pending.enabled_before if entry.pending else None
        entry.pending = Pending(change="removed", enabled_before=before)
    result.removed.append(item_target(entry))


def _drop(server: ServerEntry, kind: str, key: str) -> None:
    """Take an item (or the instructions) out of the server's tables."""
    if kind == "instructions":
        server.instructions = None
    else:
        server.items[kind].pop(key, None)


def stage(server: ServerEntry, snap: Snapshot) -> StageResult:
    """Record what ``snap`` shows as pending proposals on ``server`` (what `refresh` does).

    A definition that cannot be hashed raises :class:`HashError` before ``server`` changes."""
    result = StageResult()
    live = live_items(server, snap)
    server.server_info = snap.server_info if isinstance(snap.server_info, dict) else None
    server.protocol_version = snap.protocol_version
    if snap.client_capabilities is not None:
        server.client_capabilities = tuple(snap.client_capabilities)  # the client it was probed as
    for kind in ("instructions", *ITEM_KINDS):
        _stage_kind(server, kind, live[kind], result)
    return result


def _stage_kind(server: ServerEntry, kind: str, offered: dict[str, tuple[Any, str]], result: StageResult) -> None:
    """Propose what the server offers of one kind; stage the removal of what it no longer does."""
    existing = server.pinned(kind)
    for key, (definition, h) in offered.items():
        _propose(_entry(server, kind, key), definition, h, result)
    for key in list(existing):
        if key not in offered:
            _gone(server, kind, key, result)


def proposed_approval(server: ServerEntry, entry: Entry) -> str:
    """The approval ``entry`` gets when its pending proposal is accepted.

    A person's choice (``mcplock approval`` while the proposal was pending) outranks the policy.
    Otherwise a new tool gets the policy's default, and a change can raise an approval, never
    lower it: it becomes the stricter of the one it had and the policy's default.
    """
    p = entry.pending
    if p is not None and p.approval is not None:
        return p.approval
    policy_default = default_approval(server.policy, p.definition if p is not None else entry.definition)
    if p is None or p.change == "new" or entry.definition is None:
        return policy_default
    return stricter(entry.approval, policy_default)


def accept(server: ServerEntry, entry: Entry, *, approval: str | None = None) -> str:
    """Promote ``entry``'s pending proposal. Returns what happened ("accepted", "removed")."""
    p = entry.pending
    if p is None:
        return "nothing"
    if p.change == "removed":
        _drop(server, entry.kind, entry.key)
        return "removed"
    entry.approval = approval if approval is not None else proposed_approval(server, entry)
    entry.enabled = _enabled_on_accept(entry, p)
    entry.definition = p.definition
    entry.hash = p.hash
    entry.rejected_hash = None
    entry.pending = None
    return "accepted"


def _enabled_on_accept(entry: Entry, p: Pending) -> bool:
    """Whether an entry is enabled once ``p`` is accepted: a changed tool gets back the ``enabled``
    it had before its quarantine; everything else is enabled."""
    if entry.kind != "tool" or p.change == "new" or entry.definition is None:
        return True
    return True if p.enabled_before is None else p.enabled_before


def reject(server: ServerEntry, entry: Entry) -> str:
    """Record the proposal as seen; the tool stays (or becomes) disabled."""
    p = entry.pending
    if p is None:
        return "nothing"
    if p.change == "removed":
        return "removal"  # the server no longer offers it: only accepting makes sense
    entry.rejected_hash = p.hash
    entry.pending = None
    if entry.kind == "tool":
        entry.enabled = False
    return "rejected"
