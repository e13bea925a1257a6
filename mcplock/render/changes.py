"""How one change reads: a word-level diff for text (:mod:`mcplock.render.words`), a structural diff by JSON path for
schemas (:func:`mcplock.lint.schema.schema_diff`), each schema item classified as
tightened / loosened / neutral.

Pure: returns rich ``Text``; all server text goes through ``safe_text``. Without colour,
removed and added words are marked ``[-old-]`` and ``{+new+}`` (git's plain word diff), so
the change stays readable in a log or a file.
"""

from __future__ import annotations

import json
import re
from typing import Any

from rich.text import Text

from mcplock.render.words import ADDED, REMOVED, field_head, mark, word_diff
from mcplock.text.untrusted import safe_text


def _path(parts: list[Any]) -> str:
    out = ""
    for p in parts:
        if isinstance(p, int):
            out += f"[{p}]"
        else:
            out += ("." if out else "") + str(p)
    return out or "(root)"


def _short(v: Any, whole: bool = False) -> str:
    """A value as JSON, cut at 80 characters unless ``whole`` (`show`: the change it exists to show)."""
    if v is None:
        return "null"
    s = json.dumps(v, ensure_ascii=False, sort_keys=True)
    return s if whole or len(s) <= 80 else s[:77] + "…"


def schema_items(old: Any, new: Any, whole: bool = False) -> list[tuple[str, str, str]]:
    """(JSON path, what changed, direction) for every structural difference: deepdiff's
    changed nodes, each with the direction the schema differ classified it (or its parent) as;
    the values whole with ``whole``, else each cut at 80 characters."""
    from mcplock.lint.schema import schema_diff

    diff = schema_diff(old, new)
    directions = {path: direction for path, direction, _what in diff.classified}
    items: list[tuple[str, str, str]] = []
    for parts, report, t1, t2 in diff.nodes:
        path = _path(parts)
        if report.endswith("_added"):
            what = f"added {_short(t2, whole)}"
        elif report.endswith("_removed"):
            what = f"removed (was {_short(t1, whole)})"
        else:
            what = f"{_short(t1, whole)} → {_short(t2, whole)}"
        items.append((path, what, _direction(directions, path)))
    items.sort()
    return items


def _direction(directions: dict[str, str], path: str) -> str:
    probe = path
    while True:
        if probe in directions:
            return directions[probe]
        if "." not in probe and "[" not in probe:
            return "neutral"
        probe = re.sub(r"(\.[^.\[]*|\[\d+\])$", "", probe)
        if not probe:
            return "neutral"


DIRECTION_STYLE = {"loosened": "bold red", "tightened": "yellow", "neutral": "dim"}


def _text_change(field: str, old: str, new: str, color: bool, indent: str, whole: bool) -> list[Text]:
    """A text field word-diffed (a long text, an App's HTML or a SKILL.md, as a line diff)."""
    if max(len(old), len(new)) > 4000:
        from mcplock.render.documents import document_diff

        return document_diff(field, old, new, color=color, indent=indent, whole=whole)
    rows = word_diff(old, new, color=color).split("\n", allow_blank=True)
    return [
        field_head(indent, field, ": ").append_text(rows[0]),
        *(Text(indent + "  ").append_text(r) for r in rows[1:]),
    ]


def _structure_change(field: str, old: Any, new: Any, color: bool, indent: str, whole: bool) -> list[Text]:
    """An object or list field (a schema): each difference with its direction."""
    lines = [field_head(indent, field, ":")]
    for path, what, direction in schema_items(old, new, whole):
        row = Text(f"{indent}  ")
        row.append(f"{direction:<9}", style=DIRECTION_STYLE.get(direction, "") if color else "")
        row.append(" ")
        row.append_text(safe_text(path, keep_newlines=False))
        row.append(" ")
        row.append_text(safe_text(what, keep_newlines=False))
        lines.append(row)
    return lines


def render_field_change(
    field: str, old: Any, new: Any, *, color: bool = True, indent: str = "      ", whole: bool = False
) -> list[Text]:
    """Lines that show how one top-level field changed; ``whole``: nothing of the change cut
    (`show` and the review walk: the change is what they exist to show; the terminal wraps it)."""
    if isinstance(old, str) and isinstance(new, str):
        return _text_change(field, old, new, color, indent, whole)
    if isinstance(old, (dict, list)) and isinstance(new, (dict, list)):
        return _structure_change(field, old, new, color, indent, whole)
    return [_value_change(field, old, new, color, indent, whole)]


def _value_change(field: str, old: Any, new: Any, color: bool, indent: str, whole: bool) -> Text:
    """Any other field: its old value removed, its new one added (as JSON; ``(absent)`` when not there)."""
    row = field_head(indent, field, ": ")
    row.append_text(mark(_short(old, whole) if old is not None else "(absent)", "[-", "-]", REMOVED, color))
    row.append(" ")
    row.append_text(mark(_short(new, whole) if new is not None else "(absent)", "{+", "+}", ADDED, color))
    return row
