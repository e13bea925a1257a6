"""How each JSON Schema keyword's change reads: tightened, loosened or neutral.

:mod:`mcplock.lint.schema` finds what changed (deepdiff) and hands each change here as a
unit: one keyword of a schema object (``maxLength``, ``enum``, ``properties`` with
``required``, the numeric bounds together …), or a sub-schema that is not an object on both
sides (added, removed, a boolean schema).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

TIGHTENED, LOOSENED, NEUTRAL = "tightened", "loosened", "neutral"

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

Classified = tuple[str, str, str]  # (path, "tightened" | "loosened" | "neutral", what)
# keywords whose value is a list of sub-schemas (judged one per position when the lengths hold)
BRANCHES = ("anyOf", "oneOf", "allOf", "prefixItems")
NUMERIC = ("maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum")


def _j(v: Any) -> str:
    return json.dumps(v, sort_keys=True, ensure_ascii=False)


def _types(v: Any) -> set[str] | None:
    if isinstance(v, str):
        return {v}
    if isinstance(v, list) and all(isinstance(x, str) for x in v):
        s = set(v)
        if "number" in s:
            s.add("integer")
        return s
    return None


def _num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _sub(old: Any, new: Any, path: str) -> list[Classified]:
    """A nested pair of sub-schemas, diffed on its own."""
    from mcplock.lint.schema import classify_schema_change

    return classify_schema_change(old, new, path)


def classify_unit(old: Any, new: Any, path: str, key: str | None, out: list[Classified]) -> None:
    """Classify one unit: the sub-schema as a whole (``key`` None) or one keyword of a schema object."""
    if key is None:
        _whole(old, new, path or "(schema)", out)
    elif key == "<bounds>":
        _numeric_bounds(old, new, path, out)
    elif key == "properties":
        _properties(old, new, path, out)
    else:
        judge = _KEYWORDS.get(key, _unordered)
        judge(key, old.get(key, MISSING), new.get(key, MISSING), join(path, key), out)


def _whole(old: Any, new: Any, where: str, out: list[Classified]) -> None:
    """A sub-schema that is not an object on both sides: added, removed, a boolean schema, a shape change."""
    if old == new and type(old) is type(new):
        return  # e.g. `items: null` and no `items`: the same (no) schema
    if isinstance(old, bool) or isinstance(new, bool) or old is None or new is None:
        out.append((where, *_absent_or_boolean(old, new)))
    else:
        out.append((where, NEUTRAL, "schema changed shape"))


def _absent_or_boolean(old: Any, new: Any) -> tuple[str, str]:
    """(verdict, what) of a sub-schema absent (None) or boolean on one side at least."""
    if old is None:
        return NEUTRAL if new is not False else TIGHTENED, "schema added"
    if new is None:
        return LOOSENED, "schema removed"
    if old is True or new is False:
        return TIGHTENED, "schema now rejects more"
    return LOOSENED, "schema now accepts anything" if new is True else "schema opened"


MISSING: Any = object()


def _type(_key: str, o: Any, n: Any, p: str, out: list[Classified]) -> None:
    if o is MISSING:
        out.append((p, TIGHTENED, f"type {_j(n)} added"))
        return
    if n is MISSING:
        out.append((p, LOOSENED, f"type {_j(o)} removed"))
        return
    ot, nt = _types(o), _types(n)
    if ot is None or nt is None or ot == nt:
        out.append((p, NEUTRAL, f"type {_j(o)} → {_j(n)}"))
    elif ot < nt:
        out.append((p, LOOSENED, f"type widened {_j(o)} → {_j(n)}"))
    elif nt < ot:
        out.append((p, TIGHTENED, f"type narrowed {_j(o)} → {_j(n)}"))
    else:
        out.append((p, NEUTRAL, f"type changed {_j(o)} → {_j(n)}"))


def _enum(_key: str, o: Any, n: Any, p: str, out: list[Classified]) -> None:
    if o is MISSING:
        out.append((p, TIGHTENED, "enum added"))
        return
    if n is MISSING:
        out.append((p, LOOSENED, "enum removed"))
        return
    if not isinstance(o, list) or not isinstance(n, list):
        out.append((p, NEUTRAL, "enum changed"))
        return
    os_, ns = {_j(v) for v in o}, {_j(v) for v in n}
    if os_ == ns:
        out.append((p, NEUTRAL, "enum reordered"))
    elif ns < os_:
        out.append((p, TIGHTENED, f"enum narrowed (removed {', '.join(sorted(os_ - ns))})"))
    elif os_ < ns:
        out.append((p, LOOSENED, f"enum widened (added {', '.join(sorted(ns - os_))})"))
    else:
        out.append(
            (p, NEUTRAL, f"enum changed (added {', '.join(sorted(ns - os_))}; removed {', '.join(sorted(os_ - ns))})")
        )


def _bound(key: str, o: Any, n: Any, p: str, out: list[Classified]) -> None:
    upper = key in _UPPER
    if o is MISSING:
        out.append((p, TIGHTENED, f"{key} {_j(n)} added"))
    elif n is MISSING:
        out.append((p, LOOSENED, f"{key} {_j(o)} removed"))
    elif not _num(o) or not _num(n):
        out.append((p, NEUTRAL, f"{key} {_j(o)} → {_j(n)}"))  # draft-4 boolean exclusive* and the like
    elif n > o:
        out.append((p, LOOSENED if upper else TIGHTENED, f"{key} raised {_j(o)} → {_j(n)}"))
    else:
        out.append((p, TIGHTENED if upper else LOOSENED, f"{key} lowered {_j(o)} → {_j(n)}"))


def _limit(
    schema: dict[str, Any], inclusive: str, exclusive: str, integer: bool, upper: bool
) -> tuple[float, bool] | None:
    """The tightest bound of one side as (value, exclusive); an integer's exclusive bound is made inclusive.
    Draft-4 boolean ``exclusiveMaximum`` modifies ``maximum``."""
    cands: list[tuple[float, bool]] = []
    inc: Any = schema.get(inclusive)
    exc: Any = schema.get(exclusive)
    if _num(inc):
        cands.append((inc, exc is True))
    if _num(exc):
        cands.append((exc, True))
    norm = []
    for v, x in cands:
        if integer and x and float(v).is_integer():
            v, x = (v - 1, False) if upper else (v + 1, False)
        norm.append((v, x))
    if not norm:
        return None
    # tightest: smallest upper (exclusive beats inclusive at a tie), largest lower
    if upper:
        return min(norm, key=lambda t: (t[0], not t[1]))
    return max(norm, key=lambda t: (t[0], t[1]))


def _bound_text(b: tuple[Any, bool] | None, upper: bool) -> str:
    """A limit as a reviewer reads it: `< 10`, `>= 0`, or `none`."""
    if b is None:
        return "none"
    return f"{'<' if upper else '>'}{'' if b[1] else '='} {_j(b[0])}"


_BOUNDS = ((True, "maximum", "exclusiveMaximum"), (False, "minimum", "exclusiveMinimum"))


def _numeric_bounds(old: dict[str, Any], new: dict[str, Any], path: str, out: list[Classified]) -> None:
    """The upper and the lower bound, each judged by its tightest limit (inclusive and exclusive together)."""
    if all(old.get(k, MISSING) == new.get(k, MISSING) for k in NUMERIC):
        return
    integer = _integer_only(old, new)
    for upper, inclusive, exclusive in _BOUNDS:
        if all(old.get(k, MISSING) == new.get(k, MISSING) for k in (inclusive, exclusive)):
            continue
        o, n = _limit(old, inclusive, exclusive, integer, upper), _limit(new, inclusive, exclusive, integer, upper)
        keys = [k for k in (inclusive, exclusive) if k in old or k in new]
        p = join(path, keys[0] if len(keys) == 1 else inclusive)
        what = f"{'upper' if upper else 'lower'} bound {_bound_text(o, upper)} → {_bound_text(n, upper)}"
        verdict = _limit_change(o, n, upper)
        out.append((p, verdict, f"respelled: {what} (the same limit)" if verdict == NEUTRAL else what))


def _integer_only(old: dict[str, Any], new: dict[str, Any]) -> bool:
    """Both sides are integers (the new one not a number too): an exclusive bound reads as the
    inclusive one next to it (``< 10`` is ``<= 9``)."""
    ot, nt = _types(old.get("type")) or set(), _types(new.get("type")) or set()
    return "integer" in ot and "integer" in nt and "number" not in nt


def _limit_change(o: tuple[float, bool] | None, n: tuple[float, bool] | None, upper: bool) -> str:
    """How a bound's tightest limit moved: neutral when it is the same limit, however spelled."""
    if o == n:
        return NEUTRAL
    if o is None:
        return TIGHTENED
    if n is None:
        return LOOSENED
    if upper:
        new_tighter = n[0] < o[0] or (n[0] == o[0] and n[1])
    else:
        new_tighter = n[0] > o[0] or (n[0] == o[0] and n[1])
    return TIGHTENED if new_tighter else LOOSENED


def _req(schema: dict[str, Any]) -> set[str]:
    r = schema.get("required")
    return {x for x in r if isinstance(x, str)} if isinstance(r, list) else set()


def _props(schema: dict[str, Any]) -> dict[str, Any]:
    p = schema.get("properties")
    return p if isinstance(p, dict) else {}


def _properties(old: dict[str, Any], new: dict[str, Any], path: str, out: list[Classified]) -> None:
    """``properties`` with ``required``: the properties added or removed, the names required or no
    longer, and an empty keyword added or removed."""
    op, np_ = _props(old), _props(new)
    orq, nrq = _req(old), _req(new)
    _properties_added_or_removed(op, np_, nrq, join(path, "properties"), out)
    _required_changed(op, np_, orq, nrq, join(path, "required"), out)
    for k, used in (("properties", bool(op or np_)), ("required", bool(orq or nrq))):
        ov, nv = old.get(k, MISSING), new.get(k, MISSING)
        if (ov is MISSING) != (nv is MISSING) and not used:
            out.append((join(path, k), NEUTRAL, f"empty `{k}` {'added' if ov is MISSING else 'removed'}"))


def _properties_added_or_removed(
    op: dict[str, Any], np_: dict[str, Any], nrq: set[str], base: str, out: list[Classified]
) -> None:
    """A new input is a new capability (loosened) unless it is required (tightened); a removed one tightens."""
    for name in sorted(set(op) | set(np_)):
        p = f"{base}.{name}"
        if name not in op:
            if name in nrq:
                out.append((p, TIGHTENED, f"new required property `{name}`"))
            else:
                out.append((p, LOOSENED, f"property `{name}` added"))
        elif name not in np_:
            out.append((p, TIGHTENED, f"property `{name}` removed"))
        # a property on both sides is judged where deepdiff saw it change, inside it


def _required_changed(
    op: dict[str, Any], np_: dict[str, Any], orq: set[str], nrq: set[str], rp: str, out: list[Classified]
) -> None:
    for name in sorted(orq - nrq):
        out.append((rp, LOOSENED, f"property `{name}` no longer required"))
    for name in sorted(nrq - orq):
        if name in np_ and name not in op:
            continue  # reported with the new property
        out.append((rp, TIGHTENED, f"property `{name}` now required"))


def _additional(_key: str, o: Any, n: Any, p: str, out: list[Classified]) -> None:
    closed_o, closed_n = o is False, n is False
    if closed_o and not closed_n:
        out.append((p, LOOSENED, "additionalProperties opened"))
    elif closed_n and not closed_o:
        out.append((p, TIGHTENED, "additionalProperties closed (false)"))
    elif isinstance(o, dict) and isinstance(n, dict):
        out.extend(_sub(o, n, p))
    elif o is MISSING or o is True:
        out.append((p, TIGHTENED, "additionalProperties restricted"))
    elif n is MISSING or n is True:
        out.append((p, LOOSENED, "additionalProperties opened"))
    else:
        out.append((p, NEUTRAL, "additionalProperties changed"))


def _schema_list(key: str, o: Any, n: Any, p: str, out: list[Classified], *, more_is_looser: bool) -> None:
    """A list of sub-schemas: each position diffed on its own while the count holds, else judged by
    the branches added or removed."""
    ol = o if isinstance(o, list) else [] if o is MISSING else None
    nl = n if isinstance(n, list) else [] if n is MISSING else None
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
    oj, nj = [_j(x) for x in ol], [_j(x) for x in nl]
    added = [x for x in nj if x not in oj]
    removed = [x for x in oj if x not in nj]
    if added and not removed:
        return LOOSENED if more_is_looser else TIGHTENED, f"{key}: {len(added)} branch(es) added"
    if removed and not added:
        return TIGHTENED if more_is_looser else LOOSENED, f"{key}: {len(removed)} branch(es) removed"
    return NEUTRAL, f"{key} changed"


def _schema_map(key: str, o: Any, n: Any, p: str, out: list[Classified]) -> None:
    om = o if isinstance(o, dict) else {}
    nm = n if isinstance(n, dict) else {}
    defs = key in DEF_MAPS
    for name in sorted(set(om) | set(nm)):
        q = f"{p}.{name}"
        if name not in om:
            out.append((q, NEUTRAL if defs else LOOSENED, f"{key} `{name}` added"))
        elif name not in nm:
            out.append((q, NEUTRAL if defs else TIGHTENED, f"{key} `{name}` removed"))
        # an entry on both sides is judged where deepdiff saw it change, inside it


def _restricting(key: str, o: Any, n: Any, p: str, out: list[Classified]) -> None:
    """A keyword whose presence restricts (``pattern``, ``format``, ``const`` …): absent accepts anything."""
    if o is MISSING:
        out.append((p, TIGHTENED, f"{key} added"))
    elif n is MISSING:
        out.append((p, LOOSENED, f"{key} removed"))
    else:
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
