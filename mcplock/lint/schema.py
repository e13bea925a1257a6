"""The one schema differ: what changed between two JSON Schemas, by JSON path, and how.

deepdiff's tree view finds the changed paths; on top of it, each change is classified per
schema keyword (:mod:`mcplock.lint.schema_keywords`; a keyword that holds sub-schemas here, the
sub-schemas diffed in turn): it **tightens** what the schema accepts
(a new ``pattern``, a lowered ``maxLength``, a narrowed ``enum``, a new required property,
``additionalProperties: false``), **loosens** it (the reverse, and new properties: a new input
is a new capability), or is **neutral** (a change that cannot be ordered, or text such as a
``description``).

:func:`schema_diff` gives both the changed nodes (the report shows them) and the
classification (severity reads it). deepdiff is imported only when two schemas differ: the
lint package, which ``list`` imports, stays light.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mcplock.lint.schema_keywords import (
    ADDITIONAL,
    KEYWORDS,
    UNITS,
    Judge,
    as_list,
    branch_count,
    openness,
    unordered,
    whole,
)
from mcplock.lint.schema_vocabulary import (
    BRANCHES,
    COSMETIC_KEYWORDS,
    DEF_MAPS,
    LOOSENED,
    MISSING,
    NEUTRAL,
    NUMERIC,
    SCHEMA_MAPS,
    SCHEMA_VALUED,
    TEXT_KEYWORDS,
    TIGHTENED,
    Classified,
    join,
)

__all__ = [
    "COSMETIC_KEYWORDS",
    "LOOSENED",
    "NEUTRAL",
    "TEXT_KEYWORDS",
    "TIGHTENED",
    "Classified",
    "SchemaDiff",
    "classify_schema_change",
    "schema_diff",
]


@dataclass
class SchemaDiff:
    """The changes between two schemas: deepdiff's changed nodes and their classification."""

    nodes: list[tuple[list[Any], str, Any, Any]] = field(default_factory=list)  # (path parts, report, old, new)
    classified: list[Classified] = field(default_factory=list)


def schema_diff(old: Any, new: Any, path: str = "") -> SchemaDiff:
    """Diff ``old`` → ``new`` once (deepdiff's tree view) and classify every change.

    ``path`` prefixes the classified paths (``inputSchema`` → ``inputSchema.properties.q``)."""
    out = SchemaDiff(nodes=_changed(old, new))
    if old == new and type(old) is type(new):
        return out  # equal as JSON values (`10` and `10.0`): shown, but nothing to classify
    units: dict[tuple[tuple[Any, ...], str | None], None] = {}
    for parts, _report, _t1, _t2 in out.nodes:
        _units(old, new, parts, units)
    for node, keyword in sorted(units, key=_unit_order):
        classify_unit(_at(old, node), _at(new, node), _path(path, node), keyword, out.classified)
    return out


def classify_schema_change(old: Any, new: Any, path: str = "") -> list[Classified]:
    """``[(path, "tightened" | "loosened" | "neutral", what), …]`` for every difference."""
    return schema_diff(old, new, path).classified


def classify_unit(old: Any, new: Any, path: str, key: str | None, out: list[Classified]) -> None:
    """Classify one unit: the sub-schema as a whole (``key`` None) or one keyword of a schema object."""
    if key is None:
        whole(old, new, path or "(schema)", out)
        return
    unit = UNITS.get(key)
    if unit is not None:
        unit(old, new, path, out)
        return
    judge = _SUB_SCHEMAS.get(key) or KEYWORDS.get(key, unordered)
    judge(key, old.get(key, MISSING), new.get(key, MISSING), join(path, key), out)


def _additional_properties(_key: str, o: Any, n: Any, p: str, out: list[Classified]) -> None:
    """``additionalProperties``: a sub-schema on both sides diffed in turn, else judged by what it admits."""
    if isinstance(o, dict) and isinstance(n, dict):
        out.extend(classify_schema_change(o, n, p))
    else:
        out.append((p, *ADDITIONAL[openness(o), openness(n)]))


def _schema_list(key: str, o: Any, n: Any, p: str, out: list[Classified], *, more_is_looser: bool) -> None:
    """A list of sub-schemas: each position diffed on its own while the count holds, else judged by
    the branches added or removed."""
    ol, nl = as_list(o), as_list(n)
    if ol is None or nl is None:
        out.append((p, NEUTRAL, f"{key} changed"))
    elif len(ol) == len(nl):
        for i, (a, b) in enumerate(zip(ol, nl, strict=False)):
            out.extend(classify_schema_change(a, b, f"{p}[{i}]"))
    else:
        out.append((p, *branch_count(key, ol, nl, more_is_looser)))


def _schema_valued(key: str, o: Any, n: Any, p: str, out: list[Classified]) -> None:
    """Sub-schemas: a branch more accepts more, but in ``allOf`` and ``prefixItems`` (where each is
    one more constraint)."""
    _schema_list(key, o, n, p, out, more_is_looser=key not in ("allOf", "prefixItems"))


# the keywords that hold sub-schemas: each pair diffed in turn
_SUB_SCHEMAS: dict[str, Judge] = {
    "additionalProperties": _additional_properties,
    **dict.fromkeys(SCHEMA_VALUED + BRANCHES, _schema_valued),
}


def _changed(old: Any, new: Any, *, deeper: bool = False) -> list[tuple[list[Any], str, Any, Any]]:
    """deepdiff's changed nodes. By default two objects that share few keys come back as one
    changed node (readable in a report); ``deeper`` always descends to the keys."""
    from deepdiff import DeepDiff

    kw: dict[str, Any] = {"threshold_to_diff_deeper": 0} if deeper else {}
    tree = DeepDiff(old, new, view="tree", verbose_level=2, **kw)
    return [
        (node.path(output_format="list"), report, node.t1, node.t2)
        for report, nodes in sorted(tree.items())
        for node in nodes
    ]


_PAIRED = ("properties", *SCHEMA_MAPS, *DEF_MAPS)  # name -> sub-schema


def _units(old: Any, new: Any, parts: list[Any], units: dict[tuple[tuple[Any, ...], str | None], None]) -> None:
    """The unit a changed path belongs to: (the schema object holding it, the keyword), or
    (the sub-schema, None) when the sub-schema itself is not an object on both sides.

    Descends through sub-schemas present on both sides (a property, ``items``, a branch of
    ``anyOf`` when the branch count holds, a ``$defs`` entry …) so each change is judged by
    the keyword that governs it."""
    o, n, i, governed = _descend(old, new, parts)
    if governed:
        units[(tuple(parts[:i]), _governing(parts[i]))] = None
    elif not _both_objects(o, n):
        units[(tuple(parts[:i]), None)] = None
    else:
        for sub, _report, _t1, _t2 in _changed(o, n, deeper=True):  # both objects, changed as a whole
            _units(old, new, [*parts[:i], *sub], units)


def _descend(old: Any, new: Any, parts: list[Any]) -> tuple[Any, Any, int, bool]:
    """Walks a changed path down through the sub-schemas both sides hold: (the pair reached, the
    parts walked, whether the walk stopped at a keyword that governs the change: ``parts[i]``)."""
    o, n, i = old, new, 0
    while _both_objects(o, n) and i < len(parts):
        key = parts[i]
        nxt = parts[i + 1] if i + 1 < len(parts) else MISSING
        step = _step(key, o.get(key, MISSING), n.get(key, MISSING), nxt)
        if step is None:
            return o, n, i, True
        o, n, taken = step
        i += taken
    return o, n, i, False


def _both_objects(ov: Any, nv: Any) -> bool:
    return isinstance(ov, dict) and isinstance(nv, dict)


def _step(key: Any, ov: Any, nv: Any, nxt: Any) -> tuple[Any, Any, int] | None:
    """The pair of sub-schemas one step down a changed path at ``key`` (``ov``, ``nv``: its values;
    ``nxt``: the path's next part), with how many parts the step takes; None when the change
    belongs to the keyword ``key`` itself."""
    for pair_at, taken in _STEPS:
        pair = pair_at(key, ov, nv, nxt)
        if pair is not None:
            return (*pair, taken)
    return None


def _one_schema(key: Any, ov: Any, nv: Any, nxt: Any) -> tuple[Any, Any] | None:
    """The sub-schema of a keyword that holds one (``items``, ``not`` …; missing reads as None)."""
    if key not in SCHEMA_VALUED or isinstance(ov, list) or isinstance(nv, list):
        return None
    return (None if ov is MISSING else ov), (None if nv is MISSING else nv)


def _additional(key: Any, ov: Any, nv: Any, nxt: Any) -> tuple[Any, Any] | None:
    """``additionalProperties`` as a sub-schema on both sides."""
    return (ov, nv) if key == "additionalProperties" and _both_objects(ov, nv) else None


def _entry(key: Any, ov: Any, nv: Any, nxt: Any) -> tuple[Any, Any] | None:
    """The entry ``nxt`` of a name -> sub-schema map (a property, a ``$defs`` entry …) on both sides."""
    if key not in _PAIRED or not _both_objects(ov, nv) or not isinstance(nxt, str):
        return None
    return (ov[nxt], nv[nxt]) if nxt in ov and nxt in nv else None


def _branch(key: Any, ov: Any, nv: Any, nxt: Any) -> tuple[Any, Any] | None:
    """The sub-schema at position ``nxt`` of a list of them (``anyOf``, ``prefixItems`` …), judged
    by position while the count holds."""
    if (key not in BRANCHES and key not in SCHEMA_VALUED) or not isinstance(nxt, int):
        return None
    return (ov[nxt], nv[nxt]) if _parallel_lists(ov, nv) else None


def _parallel_lists(ov: Any, nv: Any) -> bool:
    return isinstance(ov, list) and isinstance(nv, list) and len(ov) == len(nv)


# the ways one step down a changed path goes, in the order asked: each -> the parts it takes
_STEPS = ((_one_schema, 1), (_additional, 1), (_entry, 2), (_branch, 2))


def _governing(key: Any) -> Any:
    """The keyword a change of ``key`` is judged under: the numeric bounds together, ``required``
    with ``properties``."""
    if key in NUMERIC:
        return "<bounds>"
    return "properties" if key == "required" else key


def _unit_order(unit: tuple[tuple[Any, ...], str | None]) -> tuple[Any, ...]:
    node, keyword = unit
    rank = {None: 0, "<bounds>": 1, "type": 2, "properties": 3}.get(keyword, 4)
    return (tuple((isinstance(p, int), p if isinstance(p, int) else str(p)) for p in node), rank, keyword or "")


def _at(schema: Any, node: tuple[Any, ...]) -> Any:
    for p in node:
        schema = _child(schema, p)
    return schema


def _child(schema: Any, p: Any) -> Any:
    """The value at ``p`` of an object or an array; None when there is none."""
    if isinstance(schema, dict):
        return schema.get(p)
    if isinstance(schema, list) and isinstance(p, int) and 0 <= p < len(schema):
        return schema[p]
    return None


def _path(prefix: str, node: tuple[Any, ...]) -> str:
    out = prefix
    for p in node:
        out = f"{out}[{p}]" if isinstance(p, int) else join(out, str(p))
    return out
