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
from typing import Any, TypeVar

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
_GROUPED = frozenset(n for names in _SERVER_UNITS.values() for n in names)
_SERVER_SKIP = ("name", "items", "instructions")
_T = TypeVar("_T", Entry, ServerEntry)

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


def _one_sided(b: _T | None, o: _T | None, t: _T | None) -> tuple[_T | None, _T | None, bool]:
    """A server or item one side does not have (ours' result, theirs' result, conflict): gone
    when the other side left it as it was, kept when only one side added it; removed on one side
    and changed on the other is a conflict."""
    other = t if o is None else o
    if other == b:
        return None, None, False
    if b is None:  # added on one side only
        return other, other, False
    return o, t, True


def _flags_for_another_definition(b: Entry | None, reviewed: Entry, other: Entry) -> tuple[str, ...]:
    """The flags ``other`` set when the side that ``reviewed`` accepted another definition than
    ``b``'s: each was decided for the definition its branch had, not this one; applying it would
    be a review nobody made."""
    if b is None or _accepted(b) == _accepted(reviewed):
        return ()
    return tuple(f for f in FLAGS if getattr(other, f) != getattr(b, f) and getattr(other, f) != getattr(reviewed, f))


def _merge_flags(b: Entry | None, o: Entry, t: Entry, merged: tuple[Entry, Entry]) -> list[str]:
    """Each flag merged on its own into ``merged`` (ours', theirs'); the flags that conflict."""
    units: list[str] = []
    for flag in FLAGS:
        fo, ft, c = _pick(getattr(b, flag) if b is not None else ABSENT, getattr(o, flag), getattr(t, flag))
        setattr(merged[0], flag, fo)
        setattr(merged[1], flag, ft)
        if c:
            units.append(flag)
    return units


def _hold_quarantine(b: Entry | None, reviewed: Entry, other: Entry, merged: tuple[Entry, Entry]) -> None:
    """A quarantine (refresh staged a change and disabled the tool) holds: the other branch's
    own ``enabled`` becomes the one accepting the change gives back."""
    for m in merged:
        if m.pending is not None and b is not None and other.enabled != b.enabled:
            m.pending.enabled_before = other.enabled
        m.enabled = reviewed.enabled


def merge_entry(
    b: Entry | None,
    o: Entry | None,
    t: Entry | None,
) -> tuple[Entry | None, Entry | None, tuple[str, ...]]:
    """One item: (ours' result, theirs' result, the units that conflict)."""
    if o == t:
        return o, o, ()
    if o is None or t is None:  # removed on one side
        mo, mt, conflict = _one_sided(b, o, t)
        return mo, mt, ("removed",) if conflict else ()
    return _merge_both(b, o, t)


def _merge_both(b: Entry | None, o: Entry, t: Entry) -> tuple[Entry, Entry, tuple[str, ...]]:
    """An item both sides have, and differ on: its review merged whole, then its flags each on
    its own (ours' result, theirs' result, the units that conflict)."""
    rb, ro, rt = _review(b), _review(o), _review(t)
    review_o, _, review_conflict = _pick(rb, ro, rt)
    if review_conflict:
        return o, t, ("definition",)
    reviewed = o if review_o == ro else t  # the side whose review the merge takes
    other = t if reviewed is o else o
    moved = _flags_for_another_definition(b, reviewed, other)
    if moved:
        return o, t, ("definition", *moved)
    merged = copy.deepcopy(reviewed), copy.deepcopy(reviewed)
    units = _merge_flags(b, o, t, merged)
    if _quarantined(merged[0]) and review_o != rb and "enabled" not in units:
        _hold_quarantine(b, reviewed, other, merged)
    return merged[0], merged[1], tuple(units)


def _quarantined(e: Entry) -> bool:
    """A proposal that took the item's ``enabled`` away (and keeps it to give back)."""
    return e.pending is not None and e.pending.enabled_before is not None


def _get(s: ServerEntry, n: str) -> Any:
    return getattr(s.spec if n in CONNECTION else s, n)


def _set(s: ServerEntry, n: str, v: Any) -> None:
    if n in CONNECTION:
        s.spec = dataclasses.replace(s.spec, **{n: copy.deepcopy(v)})
    else:
        setattr(s, n, copy.deepcopy(v))


def _server_units(s: ServerEntry) -> dict[str, Any]:
    out: dict[str, Any] = {}
    present = _fields(s)
    for unit, names in _SERVER_UNITS.items():
        out[unit] = tuple((n, _get(s, n)) for n in names if n in present)
    for n in present:
        if _own_unit(n):
            out[n] = _get(s, n)
    return out


def _own_unit(n: str) -> bool:
    """A server field merged as a unit of its own: in no group, and not merged elsewhere."""
    return n not in _GROUPED and n not in _SERVER_SKIP


def _set_units(s: ServerEntry, units: dict[str, Any]) -> None:
    for unit, value in units.items():
        if unit in _SERVER_UNITS:
            for n, v in value:
                _set(s, n, v)
        else:
            _set(s, unit, value)


def _merge_settings(
    b: ServerEntry | None, o: ServerEntry, t: ServerEntry, res_o: ServerEntry, res_t: ServerEntry
) -> list[str]:
    """The server's own units and its instructions merged into ``res_o`` and ``res_t``; the ones that conflict."""
    ub = _server_units(b) if b is not None else {}
    uo, ut = _server_units(o), _server_units(t)
    own: list[str] = []
    for unit in uo:
        vo, vt, c = _pick(ub.get(unit, ABSENT), uo[unit], ut[unit])
        _set_units(res_o, {unit: vo})
        _set_units(res_t, {unit: vt})
        if c:
            own.append(unit)
    if _merge_instructions(b, o, t, res_o, res_t):
        own.append("instructions")
    return own


def _merge_instructions(
    b: ServerEntry | None, o: ServerEntry, t: ServerEntry, res_o: ServerEntry, res_t: ServerEntry
) -> bool:
    """The server's instructions merged into ``res_o`` and ``res_t``: whether they conflict."""
    io, it, ic = merge_entry(b.instructions if b else None, o.instructions, t.instructions)
    res_o.instructions, res_t.instructions = copy.deepcopy(io), copy.deepcopy(it)
    return bool(ic)


def merge_server(
    b: ServerEntry | None,
    o: ServerEntry,
    t: ServerEntry,
) -> tuple[ServerEntry, ServerEntry, list[Conflict]]:
    name = o.name
    res_o, res_t = copy.deepcopy(o), copy.deepcopy(o)
    own = _merge_settings(b, o, t, res_o, res_t)
    conflicts = [Conflict(name, units=tuple(own))] if own else []
    kinds = list(dict.fromkeys([*o.items, *t.items, *(b.items if b else {})]))
    for kind in kinds:
        bo = b.items.get(kind, {}) if b else {}
        res_o.items[kind], res_t.items[kind], found = _merge_items(bo, o.items.get(kind, {}), t.items.get(kind, {}))
        conflicts += [Conflict(name, kind, key, units) for key, units in found]
    return res_o, res_t, conflicts


def _merge_items(
    b: dict[str, Entry], o: dict[str, Entry], t: dict[str, Entry]
) -> tuple[dict[str, Entry], dict[str, Entry], list[tuple[str, tuple[str, ...]]]]:
    """The items of one kind, key by key: (ours' result, theirs' result, (key, units) of each conflict)."""
    res_o: dict[str, Entry] = {}
    res_t: dict[str, Entry] = {}
    conflicts: list[tuple[str, tuple[str, ...]]] = []
    for key in sorted({*b, *o, *t}):
        eo, et, units = merge_entry(b.get(key), o.get(key), t.get(key))
        if eo is not None:
            res_o[key] = copy.deepcopy(eo)
        if et is not None:
            res_t[key] = copy.deepcopy(et)
        if units:
            conflicts.append((key, units))
    return res_o, res_t, conflicts


def _merge_name(
    name: str, b: ServerEntry | None, o: ServerEntry | None, t: ServerEntry | None
) -> tuple[ServerEntry | None, ServerEntry | None, list[Conflict]]:
    """The three versions of one server name: (ours' result, theirs' result, its conflicts)."""
    if o == t:
        return o, o, []
    if o is None or t is None:
        merged_o, merged_t, removed = _one_sided(b, o, t)
        return merged_o, merged_t, [Conflict(name, units=("removed",), whole=True)] if removed else []
    return merge_server(b, o, t)


def merge(base: Lock | None, ours: Lock, theirs: Lock) -> Merged:
    """Merge ``ours`` and ``theirs``, both descended from ``base`` (None: no common version)."""
    bs = base.servers if base is not None else {}
    out_o = Lock(version=max(ours.version, theirs.version), path=ours.path)
    out_t = Lock(version=out_o.version, path=ours.path)
    conflicts: list[Conflict] = []
    for name in sorted({*bs, *ours.servers, *theirs.servers}):
        merged_o, merged_t, found = _merge_name(name, bs.get(name), ours.servers.get(name), theirs.servers.get(name))
        conflicts.extend(found)
        if merged_o is not None:
            out_o.servers[name] = copy.deepcopy(merged_o)
        if merged_t is not None:
            out_t.servers[name] = copy.deepcopy(merged_t)
    return Merged(out_o, out_t, conflicts)
