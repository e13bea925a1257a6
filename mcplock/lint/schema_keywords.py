"""How each JSON Schema keyword's change reads: tightened, loosened or neutral.

:mod:`mcplock.lint.schema` finds what changed (deepdiff) and hands each change here as a
unit: one keyword of a schema object (``maxLength``, ``enum``, ``properties`` with
``required``, the numeric bounds together …), or a sub-schema that is not an object on both
sides (added, removed, a boolean schema). The keywords that hold sub-schemas (``items``,
``anyOf``, ``additionalProperties`` as a schema …) are judged by the differ, which diffs the
sub-schemas in turn; the numeric bounds are :mod:`mcplock.lint.schema_bounds`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from mcplock.lint.schema_bounds import bound, numeric_bounds
from mcplock.lint.schema_vocabulary import (
    DEF_MAPS,
    DIRECTION,
    LOOSENED,
    LOWER,
    MISSING,
    NEUTRAL,
    RESTRICTING,
    SCHEMA_MAPS,
    TIGHTENED,
    UPPER,
    Classified,
    added_or_removed,
    as_json,
    join,
    types_of,
)


def whole(old: Any, new: Any, where: str, out: list[Classified]) -> None:
    """A sub-schema that is not an object on both sides: added, removed, a boolean schema, a shape change."""
    if old == new and type(old) is type(new):
        return  # e.g. `items: null` and no `items`: the same (no) schema
    if _absent_or_bool(old) or _absent_or_bool(new):
        out.append((where, *_absent_or_boolean(old, new)))
    else:
        out.append((where, NEUTRAL, "schema changed shape"))


def _absent_or_bool(schema: Any) -> bool:
    """Whether a sub-schema is absent (None) or a boolean schema."""
    return isinstance(schema, bool) or schema is None


def _absent_or_boolean(old: Any, new: Any) -> tuple[str, str]:
    """(verdict, what) of a sub-schema absent (None) or boolean on one side at least."""
    if old is None:
        return NEUTRAL if new is not False else TIGHTENED, "schema added"
    if new is None:
        return LOOSENED, "schema removed"
    if old is True or new is False:
        return TIGHTENED, "schema now rejects more"
    return LOOSENED, "schema now accepts anything" if new is True else "schema opened"


# type: direction -> (verdict, how the message says it)
_TYPE_CHANGE = {
    "same": (NEUTRAL, ""),
    "wider": (LOOSENED, " widened"),
    "narrower": (TIGHTENED, " narrowed"),
    "changed": (NEUTRAL, " changed"),
}
# enum: direction -> (verdict, message with the values {added} and {removed})
_ENUM_CHANGE = {
    "same": (NEUTRAL, "enum reordered"),
    "wider": (LOOSENED, "enum widened (added {added})"),
    "narrower": (TIGHTENED, "enum narrowed (removed {removed})"),
    "changed": (NEUTRAL, "enum changed (added {added}; removed {removed})"),
}


def judge_type(_key: str, o: Any, n: Any, p: str, out: list[Classified]) -> None:
    if added_or_removed(o, n, p, out, lambda v: f"type {as_json(v)}"):
        return
    ot, nt = types_of(o), types_of(n)
    direction = "same" if ot is None or nt is None else DIRECTION[bool(nt - ot), bool(ot - nt)]
    verdict, how = _TYPE_CHANGE[direction]
    out.append((p, verdict, f"type{how} {as_json(o)} → {as_json(n)}"))


def judge_enum(_key: str, o: Any, n: Any, p: str, out: list[Classified]) -> None:
    if added_or_removed(o, n, p, out, lambda _v: "enum"):
        return
    if not isinstance(o, list) or not isinstance(n, list):
        out.append((p, NEUTRAL, "enum changed"))
        return
    os_, ns = set(map(as_json, o)), set(map(as_json, n))
    verdict, what = _ENUM_CHANGE[DIRECTION[bool(ns - os_), bool(os_ - ns)]]
    out.append((p, verdict, what.format(added=", ".join(sorted(ns - os_)), removed=", ".join(sorted(os_ - ns)))))


def _req(schema: dict[str, Any]) -> set[str]:
    r = schema.get("required")
    return {x for x in r if isinstance(x, str)} if isinstance(r, list) else set()


def _map(value: Any) -> dict[str, Any]:
    """A keyword's value that maps names to sub-schemas; {} when it is not an object."""
    return value if isinstance(value, dict) else {}


def _props(schema: dict[str, Any]) -> dict[str, Any]:
    return _map(schema.get("properties"))


def properties(old: dict[str, Any], new: dict[str, Any], path: str, out: list[Classified]) -> None:
    """``properties`` with ``required``: the properties added or removed, the names required or no
    longer, and an empty keyword added or removed."""
    op, np_ = _props(old), _props(new)
    orq, nrq = _req(old), _req(new)
    _properties_added_or_removed(op, np_, nrq, join(path, "properties"), out)
    _required_changed(op, np_, orq, nrq, join(path, "required"), out)
    _empty_toggled("properties", old, new, bool(op or np_), join(path, "properties"), out)
    _empty_toggled("required", old, new, bool(orq or nrq), join(path, "required"), out)


def _empty_toggled(k: str, old: dict[str, Any], new: dict[str, Any], used: bool, p: str, out: list[Classified]) -> None:
    """An empty keyword ``k`` added or removed (neutral): on one side only, and neither side uses it."""
    ov, nv = old.get(k, MISSING), new.get(k, MISSING)
    if (ov is MISSING) != (nv is MISSING) and not used:
        out.append((p, NEUTRAL, f"empty `{k}` {'added' if ov is MISSING else 'removed'}"))


def _one_sided(om: dict[str, Any], nm: dict[str, Any]) -> Iterator[tuple[str, bool]]:
    """The names of one side only, sorted, each with whether it was added (else removed). A name on
    both sides is judged where deepdiff saw it change, inside it."""
    for name in sorted(set(om) | set(nm)):
        if name not in om:
            yield name, True
        elif name not in nm:
            yield name, False


def _properties_added_or_removed(
    op: dict[str, Any], np_: dict[str, Any], nrq: set[str], base: str, out: list[Classified]
) -> None:
    """A new input is a new capability (loosened) unless it is required (tightened); a removed one tightens."""
    for name, added in _one_sided(op, np_):
        p = f"{base}.{name}"
        if not added:
            out.append((p, TIGHTENED, f"property `{name}` removed"))
        elif name in nrq:
            out.append((p, TIGHTENED, f"new required property `{name}`"))
        else:
            out.append((p, LOOSENED, f"property `{name}` added"))


def _required_changed(
    op: dict[str, Any], np_: dict[str, Any], orq: set[str], nrq: set[str], rp: str, out: list[Classified]
) -> None:
    for name in sorted(orq - nrq):
        out.append((rp, LOOSENED, f"property `{name}` no longer required"))
    for name in sorted(nrq - orq):
        if name in np_ and name not in op:
            continue  # reported with the new property
        out.append((rp, TIGHTENED, f"property `{name}` now required"))


def openness(v: Any) -> str:
    """What an ``additionalProperties`` value admits: "closed" (false), "open" (absent or true), else
    "schema" (a sub-schema, or a value that is not one)."""
    if v is False:
        return "closed"
    return "open" if v is MISSING or v is True else "schema"


ADDITIONAL: dict[tuple[str, str], tuple[str, str]] = {  # (old, new) openness -> (verdict, what)
    ("closed", "closed"): (NEUTRAL, "additionalProperties changed"),
    ("closed", "schema"): (LOOSENED, "additionalProperties opened"),
    ("closed", "open"): (LOOSENED, "additionalProperties opened"),
    ("schema", "closed"): (TIGHTENED, "additionalProperties closed (false)"),
    ("open", "closed"): (TIGHTENED, "additionalProperties closed (false)"),
    ("open", "schema"): (TIGHTENED, "additionalProperties restricted"),
    ("open", "open"): (TIGHTENED, "additionalProperties restricted"),  # absent and true, as judged so far
    ("schema", "open"): (LOOSENED, "additionalProperties opened"),
    ("schema", "schema"): (NEUTRAL, "additionalProperties changed"),
}


def as_list(v: Any) -> list[Any] | None:
    """A list keyword's value: [] when absent, None when it is not a list."""
    if isinstance(v, list):
        return v
    return [] if v is MISSING else None


def branch_count(key: str, ol: list[Any], nl: list[Any], more_is_looser: bool) -> tuple[str, str]:
    """(verdict, what) of a list of sub-schemas whose count changed: branches only added, only
    removed, or both (neutral)."""
    oj, nj = list(map(as_json, ol)), list(map(as_json, nl))
    added, removed = _only_in(nj, oj), _only_in(oj, nj)
    direction = DIRECTION[bool(added), bool(removed)]
    if direction == "wider":
        return LOOSENED if more_is_looser else TIGHTENED, f"{key}: {len(added)} branch(es) added"
    if direction == "narrower":
        return TIGHTENED if more_is_looser else LOOSENED, f"{key}: {len(removed)} branch(es) removed"
    return NEUTRAL, f"{key} changed"


def _only_in(these: list[str], others: list[str]) -> list[str]:
    """The entries of ``these`` that ``others`` lacks (repeats kept)."""
    return [x for x in these if x not in others]


def schema_map(key: str, o: Any, n: Any, p: str, out: list[Classified]) -> None:
    # a definition added or removed changes nothing until a $ref uses it
    when_added, when_removed = (NEUTRAL, NEUTRAL) if key in DEF_MAPS else (LOOSENED, TIGHTENED)
    for name, added in _one_sided(_map(o), _map(n)):
        verdict, verb = (when_added, "added") if added else (when_removed, "removed")
        out.append((f"{p}.{name}", verdict, f"{key} `{name}` {verb}"))


def restricting(key: str, o: Any, n: Any, p: str, out: list[Classified]) -> None:
    """A keyword whose presence restricts (``pattern``, ``format``, ``const`` …): absent accepts anything."""
    if not added_or_removed(o, n, p, out, lambda _v: key):
        out.append((p, NEUTRAL, f"{key} changed"))


def unique(_key: str, _o: Any, n: Any, p: str, out: list[Classified]) -> None:
    out.append((p, TIGHTENED if n is True else LOOSENED, f"uniqueItems {'required' if n is True else 'dropped'}"))


def dependent_required(_key: str, _o: Any, _n: Any, p: str, out: list[Classified]) -> None:
    out.append((p, NEUTRAL, "dependentRequired changed"))


def unordered(key: str, o: Any, n: Any, p: str, out: list[Classified]) -> None:
    """Text keywords (TEXT_KEYWORDS), ``$ref`` and the keywords that cannot be ordered."""
    verb = "added" if o is MISSING else "removed" if n is MISSING else "changed"
    out.append((p, NEUTRAL, f"{key} {verb}"))


# the units that read a whole schema object (old, new, path, out) rather than one keyword's values
UNITS: dict[str, Callable[[Any, Any, str, list[Classified]], None]] = {
    "<bounds>": numeric_bounds,
    "properties": properties,
}
# keyword -> how its change reads (key, old value, new value, path, out); any other is unordered, and
# the keywords that hold sub-schemas are the differ's (mcplock.lint.schema)
Judge = Callable[[str, Any, Any, str, list[Classified]], None]
KEYWORDS: dict[str, Judge] = {
    "type": judge_type,
    "enum": judge_enum,
    **dict.fromkeys(UPPER + LOWER, bound),
    **dict.fromkeys(RESTRICTING, restricting),
    "uniqueItems": unique,
    **dict.fromkeys(SCHEMA_MAPS + DEF_MAPS, schema_map),
    "dependentRequired": dependent_required,
}
