"""Untrusted text (anything a server sent) made inert for the terminal.

Such text reaches the terminal only as :class:`rich.text.Text` built here: never
parsed as markup, and every control or invisible character (ANSI escapes, zero-width
and bidi controls, Unicode tags, private-use and unassigned code points) shown as a
visible escape like ``\\x1b`` or ``\\u200b`` in a warning style.
"""

from __future__ import annotations

import re

from rich.text import Text

from mcplock.lock.codec import hides

ESCAPE_STYLE = "bold reverse red"


def escape_char(ch: str) -> str:
    cp = ord(ch)
    if cp < 0x100:
        return f"\\x{cp:02x}"
    if cp <= 0xFFFF:
        return f"\\u{cp:04x}"
    return f"\\U{cp:08x}"


def visible(s: str, *, keep_newlines: bool = True) -> str:
    """Plain-string form: hidden characters replaced by their escapes."""
    return "".join(
        ch if (ch == "\n" and keep_newlines) or (ch == "\t") or not hides(ch) else escape_char(ch) for ch in s
    )


_WORKFLOW = re.compile(r"(^|\n)([ \t]*)(::|##\[)", re.MULTILINE)


def defuse_line_starts(s: str) -> str:
    """Escape a line start that a CI runner would read as a command.

    GitHub Actions trims a log line and runs it as a workflow command when it starts with
    ``::`` (``::add-mask::``, ``::stop-commands::`` …) or ``##[``; server text printed at the
    start of a line must never do that.
    """
    return _WORKFLOW.sub(lambda m: m.group(1) + m.group(2) + ("\\x3a:" if m.group(3) == "::" else "\\x23#["), s)


def safe_text(s: object, style: str = "", *, keep_newlines: bool = True) -> Text:
    """A ``Text`` of untrusted ``s`` with hidden characters escaped and highlighted."""
    if not isinstance(s, str):
        s = str(s)
    if "::" in s or "##[" in s:
        s = defuse_line_starts(s)
    t = Text(style=style)
    run: list[str] = []
    for ch in s:
        if (ch == "\n" and keep_newlines) or ch == "\t" or not hides(ch):
            run.append(ch)
            continue
        if run:
            t.append("".join(run))
            run = []
        t.append(escape_char(ch), style=ESCAPE_STYLE)
    if run:
        t.append("".join(run))
    return t
