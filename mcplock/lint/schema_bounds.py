"""How a schema's numeric bounds changed: each of the upper and the lower bound judged by its
tightest limit, ``maximum`` and ``exclusiveMaximum`` together (draft-4's boolean exclusive
bounds too), an integer's exclusive bound read as the inclusive one next to it; a length or
count bound (``maxLength`` …) by its value alone."""

from __future__ import annotations

from typing import Any

from mcplock.lint.schema_vocabulary import (
    LOOSENED,
    MISSING,
    NEUTRAL,
    NUMERIC,
    TIGHTENED,
    UPPER,
    Classified,
    added_or_removed,
    as_json,
    is_number,
    join,
    types_of,
)


def bound(key: str, o: Any, n: Any, p: str, out: list[Classified]) -> None:
    if added_or_removed(o, n, p, out, lambda v: f"{key} {as_json(v)}"):
        return
    if not is_number(o) or not is_number(n):
        out.append((p, NEUTRAL, f"{key} {as_json(o)} → {as_json(n)}"))  # draft-4 boolean exclusive* and the like
        return
    raised = n > o
    # a larger maximum accepts more, a larger minimum less
    verdict = LOOSENED if raised == (key in UPPER) else TIGHTENED
    out.append((p, verdict, f"{key} {'raised' if raised else 'lowered'} {as_json(o)} → {as_json(n)}"))


def _limits(schema: dict[str, Any], inclusive: str, exclusive: str) -> list[tuple[float, bool]]:
    """One side's numeric limits of a bound as (value, exclusive). Draft-4 boolean
    ``exclusiveMaximum`` modifies ``maximum``."""
    cands: list[tuple[float, bool]] = []
    inc: Any = schema.get(inclusive)
    exc: Any = schema.get(exclusive)
    if is_number(inc):
        cands.append((inc, exc is True))
    if is_number(exc):
        cands.append((exc, True))
    return cands


def _integer_inclusive(v: float, exclusive: bool, upper: bool) -> tuple[float, bool]:
    """An integer's limit made inclusive: ``< 10`` is ``<= 9``, ``> 0`` is ``>= 1``."""
    if exclusive and float(v).is_integer():
        return (v - 1 if upper else v + 1), False
    return v, exclusive


def _limit(
    schema: dict[str, Any], inclusive: str, exclusive: str, integer: bool, upper: bool
) -> tuple[float, bool] | None:
    """The tightest bound of one side as (value, exclusive); an integer's exclusive bound is made inclusive."""
    norm = _limits(schema, inclusive, exclusive)
    if integer:
        norm = [_integer_inclusive(v, x, upper) for v, x in norm]
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
    return f"{'<' if upper else '>'}{'' if b[1] else '='} {as_json(b[0])}"


_BOUNDS = ((True, "maximum", "exclusiveMaximum"), (False, "minimum", "exclusiveMinimum"))


def numeric_bounds(old: dict[str, Any], new: dict[str, Any], path: str, out: list[Classified]) -> None:
    """The upper and the lower bound, each judged by its tightest limit (inclusive and exclusive together)."""
    if _unchanged(old, new, NUMERIC):
        return
    integer = _integer_only(old, new)
    for upper, inclusive, exclusive in _BOUNDS:
        if not _unchanged(old, new, (inclusive, exclusive)):
            out.append(_bound_change(old, new, path, (upper, inclusive, exclusive), integer))


def _unchanged(old: dict[str, Any], new: dict[str, Any], keywords: tuple[str, ...]) -> bool:
    """Whether each of ``keywords`` has the same value on both sides (or is absent from both)."""
    return all(old.get(k, MISSING) == new.get(k, MISSING) for k in keywords)


def _bound_change(
    old: dict[str, Any], new: dict[str, Any], path: str, bound: tuple[bool, str, str], integer: bool
) -> Classified:
    """How one bound (``upper``, its inclusive and exclusive keyword) changed, by its tightest limit."""
    upper, inclusive, exclusive = bound
    o, n = _limit(old, inclusive, exclusive, integer, upper), _limit(new, inclusive, exclusive, integer, upper)
    what = f"{'upper' if upper else 'lower'} bound {_bound_text(o, upper)} → {_bound_text(n, upper)}"
    verdict = _limit_change(o, n, upper)
    p = join(path, _bound_keyword(old, new, inclusive, exclusive))
    return p, verdict, f"respelled: {what} (the same limit)" if verdict == NEUTRAL else what


def _bound_keyword(old: dict[str, Any], new: dict[str, Any], inclusive: str, exclusive: str) -> str:
    """The keyword a bound's change is reported at: the one of the two either side has, else the inclusive."""
    keys = [k for k in (inclusive, exclusive) if k in old or k in new]
    return keys[0] if len(keys) == 1 else inclusive


def _integer_only(old: dict[str, Any], new: dict[str, Any]) -> bool:
    """Both sides are integers (the new one not a number too): an exclusive bound reads as the
    inclusive one next to it (``< 10`` is ``<= 9``)."""
    ot, nt = types_of(old.get("type")) or set(), types_of(new.get("type")) or set()
    return "integer" in ot and "integer" in nt and "number" not in nt


def _limit_change(o: tuple[float, bool] | None, n: tuple[float, bool] | None, upper: bool) -> str:
    """How a bound's tightest limit moved: neutral when it is the same limit, however spelled."""
    if o == n:
        return NEUTRAL
    if o is None:
        return TIGHTENED
    if n is None:
        return LOOSENED
    return TIGHTENED if _tighter(n, o, upper) else LOOSENED


def _tighter(n: tuple[float, bool], o: tuple[float, bool], upper: bool) -> bool:
    """Whether the limit ``n`` accepts less than ``o``: beyond it, or at the same value and exclusive."""
    beyond = n[0] < o[0] if upper else n[0] > o[0]
    return beyond or (n[0] == o[0] and n[1])
