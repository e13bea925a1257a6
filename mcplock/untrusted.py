"""The one place that makes untrusted text (anything a server sent) safe to show.

Every character that is invisible or control-like — C0/C1 controls and ANSI escapes,
zero-width and bidi controls, Unicode tags (U+E0000 block), line/paragraph separators,
private-use, surrogate and unassigned code points — is shown as a visible escape
(``\\x1b``, ``\\u200b``, ``\\U000e0041``). A line start that a CI runner would execute as a
workflow command (``::`` or ``##[``) is defused as well.

Two forms, built on the same rule:

* :func:`sanitize` — a plain, bounded, single-line string, for error messages and hints;
* :func:`safe_text` — a :class:`rich.text.Text` with the escapes highlighted, the only form
  in which untrusted text reaches the terminal (never rich markup, never an f-string handed
  to rich).

This module is a leaf: it imports nothing from mcplock, and rich only inside
:func:`safe_text`, so the probe and the guard can use it without loading a terminal stack.
See docs/architecture.md ("Untrusted text").
"""

from __future__ import annotations

import re
import unicodedata
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from rich.text import Text

ESCAPE_STYLE = "bold reverse red"
_HIDING_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Co", "Cn", "Cs"})
_WORKFLOW = re.compile(r"(^|\n)([ \t]*)(::|##\[)", re.MULTILINE)


def hides(ch: str) -> bool:
    """Whether a character is invisible or control-like and must be shown escaped."""
    return unicodedata.category(ch) in _HIDING_CATEGORIES


def escape_char(ch: str) -> str:
    cp = ord(ch)
    if cp < 0x100:
        return f"\\x{cp:02x}"
    if cp <= 0xFFFF:
        return f"\\u{cp:04x}"
    return f"\\U{cp:08x}"


_NOT_ASCII = re.compile(r"[^\x00-\x7e]")


def _json_escape(m: re.Match[str]) -> str:
    ch = m.group()
    if not hides(ch):
        return ch
    cp = ord(ch)
    if cp <= 0xFFFF:
        return f"\\u{cp:04x}"
    cp -= 0x10000  # a surrogate pair, as JSON spells a character beyond the BMP
    return f"\\u{0xD800 + (cp >> 10):04x}\\u{0xDC00 + (cp & 0x3FF):04x}"


def json_text(text: str) -> str:
    """JSON text (``json.dumps(..., ensure_ascii=False)``) with every hidden character (C1
    controls, bidi overrides, zero-width, tags) written as its ``\\u`` escape: the same JSON, but
    nothing in it can reorder or hide what a terminal shows. (``json.dumps`` escapes C0 itself.)"""
    return _NOT_ASCII.sub(_json_escape, text) if not text.isascii() else text


def _kept(ch: str, keep_newlines: bool) -> bool:
    """Newlines and tabs stay in multi-line text; on one line (a name, a column) both are escaped."""
    return (ch in "\n\t" and keep_newlines) or not hides(ch)


def visible(s: str, *, keep_newlines: bool = True) -> str:
    """Plain-string form: hidden characters replaced by their escapes."""
    return "".join(ch if _kept(ch, keep_newlines) else escape_char(ch) for ch in s)


def defuse_line_starts(s: str) -> str:
    """Escape a line start that a CI runner would read as a command.

    GitHub Actions trims a log line and runs it as a workflow command when it starts with
    ``::`` (``::add-mask::``, ``::stop-commands::`` …) or ``##[``; server text printed at the
    start of a line must never do that.
    """
    return _WORKFLOW.sub(lambda m: m.group(1) + m.group(2) + ("\\x3a:" if m.group(3) == "::" else "\\x23#["), s)


def sanitize(text: object, limit: int = 300, *, keep_newlines: bool = False) -> str:
    """Printable, bounded text: every hidden character escaped, long text cut with ``…``.

    Without ``keep_newlines`` the result is one line: a newline reads ``\\n``.
    """
    s = text if isinstance(text, str) else str(text)
    s = s.replace("\r\n", "\n")
    if not keep_newlines:
        s = s.replace("\n", "\\n")
    s = s.replace("\t", " ")
    out = visible(s, keep_newlines=keep_newlines)
    if "::" in out or "##[" in out:
        out = defuse_line_starts(out)
    if len(out) > limit:
        out = out[: max(0, limit - 1)] + "…"
    return out


def safe_text(s: object, style: str = "", *, keep_newlines: bool = True) -> Text:
    """A ``Text`` of untrusted ``s`` with hidden characters escaped and highlighted."""
    from rich.text import Text

    if not isinstance(s, str):
        s = str(s)
    if "::" in s or "##[" in s:
        s = defuse_line_starts(s)
    t = Text(style=style)
    run: list[str] = []
    for ch in s:
        if _kept(ch, keep_newlines):
            run.append(ch)
            continue
        if run:
            t.append("".join(run))
            run = []
        t.append(escape_char(ch), style=ESCAPE_STYLE)
    if run:
        t.append("".join(run))
    return t
