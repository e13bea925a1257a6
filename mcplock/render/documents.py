"""How a long text changed (an MCP App's HTML, a skill's SKILL.md, long instructions): a line
diff with two lines of context, each changed line pair word-diffed around the change, long
lines clipped (a bundled App is a few lines of 100 kB). Pure: rich ``Text``; server text goes
through ``safe_text``. Without colour, lines read ``- ``/``+ `` and words ``[-old-]``/``{+new+}``."""

from __future__ import annotations

from rich.text import Text

from mcplock.render.worddiff import Bounded
from mcplock.render.words import ADDED, REMOVED, field_head, mark, word_diff
from mcplock.text.untrusted import safe_text

LONG = 4000  # characters: past this a text change is shown as a line diff
_CONTEXT = 2  # lines around a change
_CLIP = 240  # characters of a line shown (of each side around a change)
_MIDDLE = 2000  # a changed span longer than this is shown as removed + added, not word-diffed


def _clip(s: str, limit: int | None = _CLIP) -> str:
    """``s`` cut at ``limit`` characters, saying how many more it has (None: whole)."""
    return s if limit is None or len(s) <= limit else s[:limit] + f"… ({len(s) - limit} more characters)"


def _shared_start(old: str, new: str) -> int:
    """How many characters the two lines share at their start."""
    p = 0
    n = min(len(old), len(new))
    while p < n and old[p] == new[p]:
        p += 1
    return p


def _shared_end(old: str, new: str, room: int) -> int:
    """How many characters the two lines share at their end, at most ``room``."""
    s = 0
    while s < room and old[-1 - s] == new[-1 - s]:
        s += 1
    return s


def _changed_span(old: str, new: str) -> tuple[int, int]:
    """How many characters the two lines share at their start and at their end, each cut back
    to a word boundary (the change starts and ends at one)."""
    p = _shared_start(old, new)
    s = _shared_end(old, new, min(len(old), len(new)) - p)
    while p > 0 and not old[p - 1].isspace():
        p -= 1
    while s > 0 and not old[len(old) - s].isspace():
        s -= 1
    return p, s


def _pair(old: str, new: str, color: bool, whole: bool) -> Text:
    """One changed line: the common start and end clipped, the middle word-diffed (``whole``:
    the middle whole however long, never cut to removed + added)."""
    p, s = _changed_span(old, new)
    a, b = old[p : len(old) - s], new[p : len(new) - s]
    out = Text()
    if p > _CLIP:
        out.append(f"…({p - _CLIP} characters) ", style="dim")
    out.append_text(safe_text(old[max(0, p - _CLIP) : p]))
    if len(a) + len(b) > 2 * _MIDDLE and not whole:
        out.append_text(mark(_clip(a, _MIDDLE), "[-", "-]", REMOVED, color))
        out.append_text(mark(_clip(b, _MIDDLE), "{+", "+}", ADDED, color))
    else:
        out.append_text(word_diff(a, b, color=color))
    tail = old[len(old) - s :]
    out.append_text(safe_text(tail[:_CLIP]))
    if len(tail) > _CLIP:
        out.append(f" …({len(tail) - _CLIP} characters)", style="dim")
    return out


def _line(indent: str, sign: str, body: Text, style: str, color: bool) -> Text:
    row = Text(indent).append(sign, style=style if color else "")
    return row.append_text(body)


def _op_lines(
    op: tuple[str, int, int, int, int], a: list[str], b: list[str], inner: str, color: bool, whole: bool
) -> list[Text]:
    """One opcode's lines: context dimmed, a replaced run of as many lines paired and
    word-diffed, any other change as removed and added lines (``whole``: none of them cut)."""
    tag, i1, i2, j1, j2 = op
    if tag == "equal":
        return _context(a[i1:i2], inner, color)
    if tag == "replace" and i2 - i1 == j2 - j1:
        return [
            _line(inner, "~ ", _pair(x, y, color, whole), "yellow", color)
            for x, y in zip(a[i1:i2], b[j1:j2], strict=True)
        ]
    return _removed_added(a[i1:i2], b[j1:j2], inner, color, None if whole else _CLIP)


def _context(lines: list[str], inner: str, color: bool) -> list[Text]:
    """Unchanged lines around a change, clipped (dimmed in colour)."""
    return [_line(inner, "  ", safe_text(_clip(x), "dim" if color else ""), "", color) for x in lines]


def _removed_added(gone: list[str], came: list[str], inner: str, color: bool, limit: int | None) -> list[Text]:
    """Lines that are not paired: the removed ones, then the added ones, clipped at ``limit``."""
    return [_line(inner, "- ", mark(_clip(x, limit), "", "", REMOVED, color), REMOVED, color) for x in gone] + [
        _line(inner, "+ ", mark(_clip(x, limit), "", "", ADDED, color), ADDED, color) for x in came
    ]


def document_diff(
    field: str, old: str, new: str, *, color: bool = True, indent: str = "      ", whole: bool = False
) -> list[Text]:
    """Lines that show how the long text ``field`` changed (``whole``: every changed line whole;
    the unchanged context around it still clipped)."""
    a, b = old.split("\n"), new.split("\n")
    lines = [field_head(indent, field, f": {len(a)} → {len(b)} lines; the changed ones with {_CONTEXT} of context")]
    sm = Bounded(a=a, b=b, autojunk=False)  # bounded on any input: a server writes this text
    inner = indent + "  "
    for group in sm.get_grouped_opcodes(_CONTEXT):
        lines.append(Text(f"{inner}@@ line {group[0][1] + 1} → {group[0][3] + 1} @@", style="dim"))
        for op in group:
            lines += _op_lines(op, a, b, inner, color, whole)
    return lines


def plain_diff(old: str, new: str) -> str:
    """A text change as plain text (reports): the word diff, or for a long text the line diff."""
    if max(len(old), len(new)) > LONG and old:
        return "\n".join(t.plain for t in document_diff("text", old, new, color=False, indent="")[1:])
    return word_diff(old, new, color=False).plain
