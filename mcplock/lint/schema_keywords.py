"""How each JSON Schema keyword's change reads: tightened, loosened or neutral.

:mod:`mcplock.lint.schema` finds what changed (deepdiff) and hands each change here as a
unit: one keyword of a schema object (``maxLength``, ``enum``, ``properties`` with
``required``, the numeric bounds together …), or a sub-schema that is not an object on both
sides (added, removed, a boolean schema).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from mcplock.lint.schema_bounds import _numeric_bounds
from mcplock.lint.schema_verdicts import LOOSENED, MISSING, NEUTRAL, TIGHTENED, Classified, _j, _num, _types, join

# keyword -> +1 when a larger value accepts more, -1 when a larger value accepts less
_UPPER = ("maxLength", "maximum", "exclusiveMaximum", "maxItems", "maxProperties", "maxContains")
_LOWER = ("minLength", "minimum", "exclusiveMinimum", "minItems", "minProperties", "minContains")
# a value present restricts; absent accepts anything
_RESTRICTING = ("pattern", "format", "const", "multipleOf", "contentMediaType", "contentEncoding")
SCHEMA_VALUED = (
    "items",
    "additionalItems",
    "contains",
    "not",
    "if",
    "then",
    "else",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
)
SCHEMA_MAPS = ("patternProperties", "dependentSchemas")
DEF_MAPS = ("$defs", "definitions")
# text and annotations of a schema: the model reads them, they do not change what validates
TEXT_KEYWORDS = (
    "description",
    "title",
    "examples",
    "default",
    "$comment",
    "deprecated",
    "readOnly",
    "writeOnly",
    "x-description",
    "$schema",
)
# neutral entries whose `what` starts with one of these do not change what the model is told or sent
COSMETIC_KEYWORDS = ("title", "$comment", "examples", "empty", "$schema", "respelled:", "enum reordered")

# keywords whose value is a list of sub-schemas (judged one per position when the lengths hold)
BRANCHES = ("anyOf", "oneOf", "allOf", "prefixItems")


def _sub(old: Any, new: Any, path: str) -> list[Classified]:
    """A nested pair of sub-schemas, diffed on its own."""
    from mcplock.lint.schema import classify_schema_change

    return classify_schema_change(old, new, path)


def classify_unit(old: Any, new: Any, path: str, key: str | None, out: list[Classified]) -> None:
    """Classify one unit: the sub-schema as a whole (``key`` None) or one keyword of a schema object."""
    if key is None:
        _whole(old, new, path or "(schema)", out)
        return
    unit = _UNITS.get(key)
    if unit is not None:
        unit(old, new, path, out)
        return
    judge = _KEYWORDS.get(key, _unordered)
    judge(key, old.get(key, MISSING), new.get(key, MISSING), join(path, key), out)


def _whole(old: Any, new: Any, where: str, out: list[Classified]) -> None:
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


def _added_or_removed(o: Any, n: Any, p: str, out: list[Classified], name: Callable[[Any], str]) -> bool:
    """Whether a keyword whose presence restricts was added (tightened) or removed (loosened): if so
    it is reported, as ``name(value)`` added or removed."""
    if o is MISSING:
        out.append((p, TIGHTENED, f"{name(n)} added"))
        return True
    if n is MISSING:
        out.append((p, LOOSENED, f"{name(o)} removed"))
        return True
    return False


# how a set of accepted values changed: (any added, any removed) -> direction
_DIRECTION = {(False, False): "same", (True, False): "wider", (False, True): "narrower", (True, True): "changed"}
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


def _type(_key: str, o: Any, n: Any, p: str, out: list[Classified]) -> None:
    if _added_or_removed(o, n, p, out, lambda v: f"type {_j(v)}"):
        return
    ot, nt = _types(o), _types(n)
    direction = "same" if ot is None or nt is None else _DIRECTION[bool(nt - ot), bool(ot - nt)]
    verdict, how = _TYPE_CHANGE[direction]
    out.append((p, verdict, f"type{how} {_j(o)} → {_j(n)}"))


def _enum(_key: str, o: Any, n: Any, p: str, out: list[Classified]) -> None:
    if _added_or_removed(o, n, p, out, lambda _v: "enum"):
        return
    if not isinstance(o, list) or not isinstance(n, list):
        out.append((p, NEUTRAL, "enum changed"))
        return
    os_, ns = set(map(_j, o)), set(map(_j, n))
    verdict, what = _ENUM_CHANGE[_DIRECTION[bool(ns - os_), bool(os_ - ns)]]
    out.append((p, verdict, what.format(added=", ".join(sorted(ns - os_)), removed=", ".join(sorted(os_ - ns)))))


def _bound(key: str, o: Any, n: Any, p: str, out: list[Classified]) -> None:
    if _added_or_removed(o, n, p, out, lambda v: f"{key} {_j(v)}"):
        return
    if not _num(o) or not _num(n):
        out.append((p, NEUTRAL, f"{key} {_j(o)} → {_j(n)}"))  # draft-4 boolean exclusive* and the like
        return
    raised = n > o
    # a larger maximum accepts more, a larger minimum less
    verdict = LOOSENED if raised == (key in _UPPER) else TIGHTENED
    out.append((p, verdict, f"{key} {'raised' if raised else 'lowered'} {_j(o)} → {_j(n)}"))


def _req(schema: dict[str, Any]) -> set[str]:
    r = schema.get("required")
    return {x for x in r if isinstance(x, str)} if isinstance(r, list) else set()


def _map(value: Any) -> dict[str, Any]:
    """A keyword's value that maps names to sub-schemas; {} when it is not an object."""
    return value if isinstance(value, dict) else {}


def _props(schema: dict[str, Any]) -> dict[str, Any]:
    return _map(schema.get("properties"))


def _properties(old: dict[str, Any], new: dict[str, Any], path: str, out: list[Classified]) -> None:
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


def _openness(v: Any) -> str:
    """What an ``additionalProperties`` value admits: "closed" (false), "open" (absent or true), else
    "schema" (a sub-schema, or a value that is not one)."""
    if v is False:
        return "closed"
    return "open" if v is MISSING or v is True else "schema"


_ADDITIONAL: dict[tuple[str, str], tuple[str, str]] = {  # (old, new) openness -> (verdict, what)
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


def _additional(_key: str, o: Any, n: Any, p: str, out: list[Classified]) -> None:
    if isinstance(o, dict) and isinstance(n, dict):
        out.extend(_sub(o, n, p))
    else:
        out.append((p, *_ADDITIONAL[_openness(o), _openness(n)]))


def _as_list(v: Any) -> list[Any] | None:
    """A list keyword's value: [] when absent, None when it is not a list."""
    if isinstance(v, list):
        return v
    return [] if v is MISSING else None


def _schema_list(key: str, o: Any, n: Any, p: str, out: list[Classified], *, more_is_looser: bool) -> None:
    """A list of sub-schemas: each position diffed on its own while the count holds, else judged by
    the branches added or removed."""
    ol, nl = _as_list(o), _as_list(n)
    if ol is None or nl is None:
        out.append((p, NEUTRAL, f"{key} changed"))
    elif len(ol) == len(nl):
        for i, (a, b) in enumerate(zip(ol, nl, strict=False)):
            out.extend(_sub(a, b, f"{p}[{i}]"))
    else:
        out.append((p, *_branch_count(key, ol, nl, more_is_looser)))


def _branch_count(key: str, ol: list[Any], nl: list[Any], more_is_looser: bool) -> tuple[str, str]:
    """(verdict, what) of a list of sub-schemas whose count changed: branches only added, only
    removed, or both (neutral)."""
    oj, nj = list(map(_j, ol)), list(map(_j, nl))
    added, removed = _only_in(nj, oj), _only_in(oj, nj)
    direction = _DIRECTION[bool(added), bool(removed)]
    if direction == "wider":
        return LOOSENED if more_is_looser else TIGHTENED, f"{key}: {len(added)} branch(es) added"
    if direction == "narrower":
        return TIGHTENED if more_is_looser else LOOSENED, f"{key}: {len(removed)} branch(es) removed"
    return NEUTRAL, f"{key} changed"


def _only_in(these: list[str], others: list[str]) -> list[str]:
    """The entries of ``these`` that ``others`` lacks (repeats kept)."""
    return [x for x in these if x not in others]


def _schema_map(key: str, o: Any, n: Any, p: str, out: list[Classified]) -> None:
    # a definition added or removed changes nothing until a $ref uses it
    when_added, when_removed = (NEUTRAL, NEUTRAL) if key in DEF_MAPS else (LOOSENED, TIGHTENED)
    for name, added in _one_sided(_map(o), _map(n)):
        verdict, verb = (when_added, "added") if added else (when_removed, "removed")
        out.append((f"{p}.{name}", verdict, f"{key} `{name}` {verb}"))


def _restricting(key: str, o: Any, n: Any, p: str, out: list[Classified]) -> None:
    """A keyword whose presence restricts (``pattern``, ``format``, ``const`` …): absent accepts anything."""
    if not _added_or_removed(o, n, p, out, lambda _v: key):
        out.append((p, NEUTRAL, f"{key} changed"))


def _unique(_key: str, _o: Any, n: Any, p: str, out: list[Classified]) -> None:
    out.append((p, TIGHTENED if n is True else LOOSENED, f"uniqueItems {'required' if n is True else 'dropped'}"))


def _schema_valued(key: str, o: Any, n: Any, p: str, out: list[Classified]) -> None:
    """Sub-schemas: a branch more accepts more, but in ``allOf`` and ``prefixItems`` (where each is
    one more constraint)."""
    _schema_list(key, o, n, p, out, more_is_looser=key not in ("allOf", "prefixItems"))


def _dependent_required(_key: str, _o: Any, _n: Any, p: str, out: list[Classified]) -> None:
    out.append((p, NEUTRAL, "dependentRequired changed"))


def _unordered(key: str, o: Any, n: Any, p: str, out: list[Classified]) -> None:
    """Text keywords (TEXT_KEYWORDS), ``$ref`` and the keywords that cannot be ordered."""
    verb = "added" if o is MISSING else "removed" if n is MISSING else "changed"
    out.append((p, NEUTRAL, f"{key} {verb}"))


# the units that read a whole schema object (old, new, path, out) rather than one keyword's values
_UNITS: dict[str, Callable[[Any, Any, str, list[Classified]], None]] = {
    "<bounds>": _numeric_bounds,
    "properties": _properties,
}
# keyword -> how its change reads (key, old value, new value, path, out); any other is _unordered
_Judge = Callable[[str, Any, Any, str, list[Classified]], None]
_KEYWORDS: dict[str, _Judge] = {
    "type": _type,
    "enum": _enum,
    **dict.fromkeys(_UPPER + _LOWER, _bound),
    **dict.fromkeys(_RESTRICTING, _restricting),
    "uniqueItems": _unique,
    "additionalProperties": _additional,
    **dict.fromkeys(SCHEMA_VALUED + BRANCHES, _schema_valued),
    **dict.fromkeys(SCHEMA_MAPS + DEF_MAPS, _schema_map),
    "dependentRequired": _dependent_required,
}
