"""The one schema differ: what changed between two JSON Schemas, by JSON path, and how.

deepdiff's tree view finds the changed paths; on top of it, each change is classified per
schema keyword (:mod:`mcplock.lint.schema_keywords`): it **tightens** what the schema accepts
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
    classify_unit,
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
    o, n, i = old, new, 0
    while True:
        if not isinstance(o, dict) or not isinstance(n, dict):
            units[(tuple(parts[:i]), None)] = None
            return
        if i == len(parts):  # both objects, changed as a whole: diff inside them
            for sub, _report, _t1, _t2 in _changed(o, n, deeper=True):
                _units(old, new, [*parts[:i], *sub], units)
            return
        key = parts[i]
        ov, nv = o.get(key, MISSING), n.get(key, MISSING)
        nxt = parts[i + 1] if i + 1 < len(parts) else MISSING
        if key in SCHEMA_VALUED and not isinstance(ov, list) and not isinstance(nv, list):
            o, n, i = (None if ov is MISSING else ov), (None if nv is MISSING else nv), i + 1
        elif key == "additionalProperties" and isinstance(ov, dict) and isinstance(nv, dict):
            o, n, i = ov, nv, i + 1
        elif (
            key in _PAIRED
            and isinstance(ov, dict)
            and isinstance(nv, dict)
            and isinstance(nxt, str)
            and nxt in ov
            and nxt in nv
        ) or (
            (key in BRANCHES or key in SCHEMA_VALUED)
            and isinstance(ov, list)
            and isinstance(nv, list)
            and len(ov) == len(nv)
            and isinstance(nxt, int)
        ):
            o, n, i = ov[nxt], nv[nxt], i + 2  # type: ignore[index]  # str into dicts, int into lists
        else:
            if key in NUMERIC:
                key = "<bounds>"
            elif key == "required":
                key = "properties"
            units[(tuple(parts[:i]), key)] = None
            return


def _unit_order(unit: tuple[tuple[Any, ...], str | None]) -> tuple[Any, ...]:
    node, keyword = unit
    rank = {None: 0, "<bounds>": 1, "type": 2, "properties": 3}.get(keyword, 4)
    return (tuple((isinstance(p, int), p if isinstance(p, int) else str(p)) for p in node), rank, keyword or "")


def _at(schema: Any, node: tuple[Any, ...]) -> Any:
    for p in node:
        if isinstance(schema, dict):
            schema = schema.get(p)
        elif isinstance(schema, list) and isinstance(p, int) and 0 <= p < len(schema):
            schema = schema[p]
        else:
            return None
    return schema


def _path(prefix: str, node: tuple[Any, ...]) -> str:
    out = prefix
    for p in node:
        out = f"{out}[{p}]" if isinstance(p, int) else join(out, str(p))
    return out
