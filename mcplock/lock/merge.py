"""Three-way merge of locks as data (pure; the git merge driver's core).

``merge(base, ours, theirs)`` walks the lock model, not its lines: per server, per item of
every kind the model has (``ITEM_KINDS``, the instructions), per unit of an item. A unit is
what one person decides or one probe records, merged whole or not at all:

- an item's **review** (its accepted definition and hash, its pending proposal, its
  rejected hash — and any field the model adds to an entry): two branches that accepted,
  rejected or staged different things disagree, and the item conflicts whole (each side as
  that branch has it), since a mix would be a review nobody made;
- each **flag** of an item (``enabled``, ``approval``): merged per key, so ``enabled`` set on
  one branch and ``approval`` on the other both stay — unless the accepted definition changed on
  one branch and a flag on the other: that flag was decided for the definition its branch had,
  so the item conflicts (``definition`` and the flag);
- a server's **launch** (transport, command, args, env, url, headers, source, config hash…:
  bound together by ``config-hash`` and by the trust record), its **identity** (server info
  and protocol version, recorded by one probe), its ``policy``, its **package** pin, and any
  other field the model adds to a server, each on its own.

A unit changed on one side only takes that side; changed the same way on both, either; a
real disagreement is a :class:`Conflict`, confined to its item (or to the server's own
settings), and the merge returns two locks that differ only there: every conflict taken
from ours, and every conflict taken from theirs. :mod:`mcplock.lock.conflict` writes them
as one file with a marked region per conflict.
"""

from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass, field
from typing import Any

from mcplock.lock.model import CONNECTION, Entry, Lock, ServerEntry

ABSENT: Any = None  # an entry or server that a version does not have

# ServerEntry fields merged as one unit; any field not named here is a unit of its own
_SERVER_UNITS = {
    "launch": (
        "transport",
        "command",
        "args",
        "env",
        "cwd",
        "pass_env",
        "url",
        "headers",
        "source",
        "config_hash",
        "auth",
        "client",
        "client_capabilities",
        "pin_resources",
    ),
    "identity": ("server_info", "protocol_version"),
}
_SERVER_SKIP = ("name", "items", "instructions")
FLAGS = ("enabled", "approval")  # an Entry's fields merged per key; every other field is the review


@dataclass(frozen=True)
class Conflict:
    """Where two branches disagree: a whole server (``kind`` None, ``whole``), the server's own
    settings (``kind`` None), or one item (``kind`` and ``key``). ``units``: what disagrees."""

    server: str
    kind: str | None = None
    key: str | None = None
    units: tuple[str, ...] = ()
    whole: bool = False  # the server was removed on one side and changed on the other


@dataclass
class Merged:
    ours: Lock  # the merge, every conflict as ours has it
    theirs: Lock  # the merge, every conflict as theirs has it
    conflicts: list[Conflict] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return not self.conflicts


def _pick(b: Any, o: Any, t: Any) -> tuple[Any, Any, bool]:
    """The three-way rule for one unit: (ours' result, theirs' result, conflict)."""
    if o == t:
        return o, o, False
    if o == b:
        return t, t, False
    if t == b:
        return o, o, False
    return o, t, True


def _fields(obj: Any) -> list[str]:
    names = [f.name for f in dataclasses.fields(obj)]
    if isinstance(obj, ServerEntry):  # its connection fields live in its spec: merged field by field
        names = [n for n in names if n != "spec"] + list(CONNECTION)
    return names


def _review(e: Entry | None) -> Any:
    if e is None:
        return ABSENT
    return tuple((n, getattr(e, n)) for n in _fields(e) if n not in FLAGS and n not in ("kind", "key"))


def _accepted(e: Entry) -> tuple[Any, Any]:
    """What a person reviewed and accepted: the definition and its hash (not a pending proposal)."""
    return e.definition, e.hash


def merge_entry(
    b: Entry | None,
    o: Entry | None,
    t: Entry | None,
) -> tuple[Entry | None, Entry | None, tuple[str, ...]]:
    """One item: (ours' result, theirs' result, the units that conflict)."""
    if o == t:
        return o, o, ()
    if o is None or t is None:  # removed on one side
        other = t if o is None else o
        if other == b:
            return None, None, ()
        if b is None:  # added on one side only
            return other, other, ()
        return o, t, ("removed",)
    rb, ro, rt = _review(b), _review(o), _review(t)
    review_o, _, review_conflict = _pick(rb, ro, rt)
    if review_conflict:
        return o, t, ("definition",)
    base_of_review = o if review_o == ro else t
    other = t if base_of_review is o else o
    if b is not None and _accepted(b) != _accepted(base_of_review):
        # the reviewed definition changed on one side: a flag the other side set was decided
        # for the definition it had, not this one; applying it would be a review nobody made
        moved = tuple(
            f for f in FLAGS if getattr(other, f) != getattr(b, f) and getattr(other, f) != getattr(base_of_review, f)
        )
        if moved:
            return o, t, ("definition", *moved)
    merged_o = copy.deepcopy(base_of_review)
    merged_t = copy.deepcopy(base_of_review)
    units: list[str] = []
    for flag in FLAGS:
        fo, ft, c = _pick(getattr(b, flag) if b is not None else ABSENT, getattr(o, flag), getattr(t, flag))
        setattr(merged_o, flag, fo)
        setattr(merged_t, flag, ft)
        if c:
            units.append(flag)
    # a quarantine (refresh staged a change and disabled the tool) holds: the other branch's
    # own `enabled` becomes the one accepting the change gives back
    p = merged_o.pending
    if p is not None and p.enabled_before is not None and review_o != rb and "enabled" not in units:
        if b is not None and other.enabled != b.enabled:
            for m in (merged_o, merged_t):
                m.pending.enabled_before = other.enabled  # type: ignore[union-attr]
        for m in (merged_o, merged_t):
            m.enabled = base_of_review.enabled
    return merged_o, merged_t, tuple(units)


def _get(s: ServerEntry, n: str) -> Any:
    return getattr(s.spec if n in CONNECTION else s, n)


def _set(s: ServerEntry, n: str, v: Any) -> None:
    if n in CONNECTION:
        s.spec = dataclasses.replace(s.spec, **{n: copy.deepcopy(v)})
    else:
        setattr(s, n, copy.deepcopy(v))


def _server_units(s: ServerEntry) -> dict[str, Any]:
    grouped = {n for names in _SERVER_UNITS.values() for n in names}
    out: dict[str, Any] = {}
    present = _fields(s)
    for unit, names in _SERVER_UNITS.items():
        out[unit] = tuple((n, _get(s, n)) for n in names if n in present)
    for n in present:
        if n not in grouped and n not in _SERVER_SKIP:
            out[n] = _get(s, n)
    return out


def _set_units(s: ServerEntry, units: dict[str, Any]) -> None:
    for unit, value in units.items():
        if unit in _SERVER_UNITS:
            for n, v in value:
                _set(s, n, v)
        else:
            _set(s, unit, value)


def merge_server(
    b: ServerEntry | None,
    o: ServerEntry,
    t: ServerEntry,
) -> tuple[ServerEntry, ServerEntry, list[Conflict]]:
    name = o.name
    ub = _server_units(b) if b is not None else {}
    uo, ut = _server_units(o), _server_units(t)
    res_o, res_t = copy.deepcopy(o), copy.deepcopy(o)
    own: list[str] = []
    for unit in uo:
        vo, vt, c = _pick(ub.get(unit, ABSENT), uo[unit], ut[unit])
        _set_units(res_o, {unit: vo})
        _set_units(res_t, {unit: vt})
        if c:
            own.append(unit)
    io, it, ic = merge_entry(b.instructions if b else None, o.instructions, t.instructions)
    res_o.instructions, res_t.instructions = copy.deepcopy(io), copy.deepcopy(it)
    if ic:
        own.append("instructions")
    conflicts = [Conflict(name, units=tuple(own))] if own else []
    kinds = list(dict.fromkeys([*o.items, *t.items, *(b.items if b else {})]))
    for kind in kinds:
        bo, oo, to = (b.items.get(kind, {}) if b else {}), o.items.get(kind, {}), t.items.get(kind, {})
        res_o.items[kind], res_t.items[kind] = {}, {}
        for key in sorted({*bo, *oo, *to}):
            eo, et, units = merge_entry(bo.get(key), oo.get(key), to.get(key))
            if eo is not None:
                res_o.items[kind][key] = copy.deepcopy(eo)
            if et is not None:
                res_t.items[kind][key] = copy.deepcopy(et)
            if units:
                conflicts.append(Conflict(name, kind, key, units))
    return res_o, res_t, conflicts


def merge(base: Lock | None, ours: Lock, theirs: Lock) -> Merged:
    """Merge ``ours`` and ``theirs``, both descended from ``base`` (None: no common version)."""
    bs = base.servers if base is not None else {}
    out_o = Lock(version=max(ours.version, theirs.version), path=ours.path)
    out_t = Lock(version=out_o.version, path=ours.path)
    conflicts: list[Conflict] = []
    for name in sorted({*bs, *ours.servers, *theirs.servers}):
        b, o, t = bs.get(name), ours.servers.get(name), theirs.servers.get(name)
        if o == t:
            merged_o = merged_t = o
        elif o is None or t is None:
            other = t if o is None else o
            if other == b:
                merged_o = merged_t = None
            elif b is None:  # added on one side only
                merged_o = merged_t = other
            else:
                merged_o, merged_t = o, t
                conflicts.append(Conflict(name, units=("removed",), whole=True))
        else:
            merged_o, merged_t, found = merge_server(b, o, t)
            conflicts.extend(found)
        if merged_o is not None:
            out_o.servers[name] = copy.deepcopy(merged_o)
        if merged_t is not None:
            out_t.servers[name] = copy.deepcopy(merged_t)
    return Merged(out_o, out_t, conflicts)
