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

A *name* (of a server, tool, prompt: :func:`name_text`, :func:`safe_name`) must also read
apart from every other name: ``echo `` from ``echo`` and ``café`` (NFD, ``e`` + U+0301) from
``café`` (NFC). So in a name a space is shown as is only between two visible characters
(``\x20`` at either end, doubled, or after the ``/`` of a target), every other whitespace character is escaped
(``\xa0``), and the characters NFC would change are escaped (``cafe\u0301``), and so are the
look-alikes of :func:`confusable` (``\u0455earch``, ``\uff53earch``). JSON output
(:func:`json_text`) escapes the latter too: the same JSON value, told apart on a terminal.

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


def _json_escape(m: re.Match[str], force: bool = False) -> str:
    ch = m.group()
    if not force and not hides(ch):
        return ch
    cp = ord(ch)
    if cp <= 0xFFFF:
        return f"\\u{cp:04x}"
    cp -= 0x10000  # a surrogate pair, as JSON spells a character beyond the BMP
    return f"\\u{0xD800 + (cp >> 10):04x}\\u{0xDC00 + (cp & 0x3FF):04x}"


def json_text(text: str) -> str:
    """JSON text (``json.dumps(..., ensure_ascii=False)``) with every hidden character (C1
    controls, bidi overrides, zero-width, tags) written as its ``\\u`` escape, and so is every
    space that is not U+0020 and every character NFC would change (a decomposed ``é``): the
    same JSON, but nothing in it can reorder or hide what a terminal shows, nor make two names
    look one. (``json.dumps`` escapes
    C0 itself.)"""
    if text.isascii():
        return text
    odd = not_nfc(text)
    return _NOT_ASCII.sub(lambda m: _json_escape(m, force=m.start() in odd or m.group().isspace()), text)


def _cluster_end(s: str, i: int) -> int:
    j = i + 1
    while j < len(s) and unicodedata.category(s[j]).startswith("M"):
        j += 1
    return j


def _clusters_not_nfc(s: str) -> set[int]:
    """The indices of the non-ASCII characters of each cluster (a base character with its
    combining marks) that is not NFC on its own."""
    out: set[int] = set()
    i = 0
    while i < len(s):
        j = _cluster_end(s, i)
        if not unicodedata.is_normalized("NFC", s[i:j]):
            out.update(k for k in range(i, j) if not s[k].isascii())
        i = j
    return out


def not_nfc(s: str) -> set[int]:
    """The indices of the non-ASCII characters of ``s`` that NFC would change: each base
    character with its combining marks is one cluster, checked alone (``e`` + U+0301 gives the
    U+0301); a string that is not NFC only across clusters (conjoining Hangul jamo) has all its
    non-ASCII characters marked."""
    if unicodedata.is_normalized("NFC", s):
        return set()
    return _clusters_not_nfc(s) or {k for k, ch in enumerate(s) if not ch.isascii()}


def _inner(ch: str) -> bool:
    """Whether a space beside ``ch`` is inside a name: not beside another space, nor beside the
    ``/`` or ``:`` that ends a server's name or a kind in a target (``srv/\\x20echo``)."""
    return not ch.isspace() and ch not in "/:"


# scripts whose letters pass for Latin ones (Cyrillic а, Greek ο, Armenian օ, Cherokee Ꭺ …)
_LOOKALIKE_SCRIPTS = frozenset(
    {
        "CYRILLIC",
        "GREEK",
        "ARMENIAN",
        "CHEROKEE",
        "COPTIC",
        "LISU",
        "CANADIAN",
        "TIFINAGH",
        "GEORGIAN",
        "NKO",
        "VAI",
        "DESERET",
        "GOTHIC",
        "OSAGE",
    }
)


def confusable(s: str) -> set[int]:
    """The indices of the characters of a name that pass for others: those NFKC would change
    (fullwidth ``ｓ``, mathematical ``𝐬``, ligatures), and, in a name with Latin letters, the
    letters of a script whose letters look Latin (the Cyrillic ``ѕ`` of ``ѕearch``). A name all in
    one script (``поиск``) keeps its letters."""
    if s.isascii():
        return set()
    return _nfkc_changes(s) | _lookalike_letters(s)


def _nfkc_changes(s: str) -> set[int]:
    """The indices of the non-ASCII characters NFKC would change (``ｓ``, ``𝐬``, ligatures)."""
    return {i for i, ch in enumerate(s) if not ch.isascii() and unicodedata.normalize("NFKC", ch) != ch}


def _lookalike_letters(s: str) -> set[int]:
    """In a name with Latin letters, the indices of the letters of a script whose letters look Latin."""
    scripts = {i: unicodedata.name(ch, "").split(" ", 1)[0] for i, ch in enumerate(s) if ch.isalpha()}
    if "LATIN" not in scripts.values():
        return set()
    return {i for i, script in scripts.items() if script in _LOOKALIKE_SCRIPTS}


def _inner_space(s: str, i: int) -> bool:
    """Whether ``s[i]`` is a space shown as is: one between two characters inside a name."""
    return s[i] == " " and 0 < i < len(s) - 1 and _inner(s[i - 1]) and _inner(s[i + 1])


def _name_escapes(s: str) -> set[int]:
    """The indices of the characters of a name shown escaped (module docstring)."""
    out = not_nfc(s) | confusable(s) if not s.isascii() else set()
    for i, ch in enumerate(s):
        if hides(ch) or (ch.isspace() and not _inner_space(s, i)):
            out.add(i)
    return out


def _str(x: object) -> str:
    return x if isinstance(x, str) else str(x)


def name_text(name: object, limit: int = 200) -> str:
    """A name as plain text, told apart from every other name (module docstring), bounded."""
    s = _str(name)
    odd = _name_escapes(s)
    out = defuse_line_starts("".join(escape_char(ch) if i in odd else ch for i, ch in enumerate(s)))
    return out if len(out) <= limit else out[: max(0, limit - 1)] + "…"


def safe_name(name: object, style: str = "") -> Text:
    """A name as a ``Text``, told apart from every other name (module docstring), its escapes
    highlighted like :func:`safe_text`'s."""
    s = _str(name)
    odd = _name_escapes(s)
    if not odd:
        return safe_text(s, style, keep_newlines=False)
    from rich.text import Text

    t = Text(style=style)
    for i, ch in enumerate(s):
        if i in odd:
            t.append(escape_char(ch), style=ESCAPE_STYLE)
        else:
            t.append(ch)
    return t


def shell_word(name: object) -> str:
    """A name (a server, a target such as ``srv/echo``) as one shell word that reaches exactly
    that name when the hint it is in is pasted into a shell — the one spelling of a command
    hint's target (docs/failing-safe.md, "Names in hints").

    A name :func:`name_text` shows as it is is quoted with :func:`shlex.quote` only when the
    shell needs it (``docs/search``, ``'srv/my tool'``). A name it escapes (``echo `` with its
    space at the end, ``cafe\\u0301`` in NFD, a control character) is written as a bash/zsh/ksh
    ANSI-C string with the same escapes — ``$'srv/echo\\x20'``, ``$'srv/cafe\\u0301'``,
    ``$'srv/a\\x1bb'`` — which reads apart on a terminal and which the shell turns back into the
    exact bytes (in a UTF-8 locale). Nothing is cut: the hint names the whole name. A name with
    a NUL cannot be an argument at all (the shell would cut it there, reaching another name), so
    it is written as ``<cannot be typed: a\\x00b>``, which no shell runs.
    """
    import shlex

    s = _str(name)
    if "\x00" in s:
        return f"<cannot be typed: {name_text(s, 10**6)}>"
    odd = _name_escapes(s)
    if not odd:
        return shlex.quote(s)
    return f"$'{_ansi_c(s, odd)}'"


def _ansi_c(s: str, odd: set[int]) -> str:
    """The inside of a ``$'…'`` string: the characters at ``odd`` escaped, a backslash or a quote
    backslashed."""
    return "".join(escape_char(ch) if i in odd else ("\\" + ch if ch in "\\'" else ch) for i, ch in enumerate(s))


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
    if "::" not in s and "##[" not in s:
        return s
    return _WORKFLOW.sub(lambda m: m.group(1) + m.group(2) + ("\\x3a:" if m.group(3) == "::" else "\\x23#["), s)


def sanitize(text: object, limit: int = 300, *, keep_newlines: bool = False) -> str:
    """Printable, bounded text: every hidden character escaped, long text cut with ``…``.

    Without ``keep_newlines`` the result is one line: a newline reads ``\\n``.
    """
    s = _str(text).replace("\r\n", "\n")
    if not keep_newlines:
        s = s.replace("\n", "\\n")
    s = s.replace("\t", " ")
    out = defuse_line_starts(visible(s, keep_newlines=keep_newlines))
    if len(out) > limit:
        out = out[: max(0, limit - 1)] + "…"
    return out


def safe_text(s: object, style: str = "", *, keep_newlines: bool = True) -> Text:
    """A ``Text`` of untrusted ``s`` with hidden characters escaped and highlighted."""
    from rich.text import Text

    s = defuse_line_starts(_str(s))
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
