"""Lint family: characters that hide text or rewrite what a terminal shows.

Zero-width and other invisible format characters, runs of variation selectors, bidi
controls, Unicode tags (U+E0000 block; a well-formed emoji flag sequence is legitimate),
ANSI escapes and other control characters (all ``critical``); private-use, unassigned,
surrogate and line/paragraph-separator code points (``medium``/``low``). Legitimate joiners
(emoji ZWJ sequences, Persian ZWNJ, Indic conjuncts) pass.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Callable, Hashable, Iterator
from typing import Any, NamedTuple

from mcplock.lint.finding import LintFinding
from mcplock.lint.text import NOT_PLAIN, excerpt, is_variation_selector
from mcplock.model.severity import CRITICAL, LOW, MEDIUM, Severity

_ZW_RANGES = ((0x200B, 0x200F), (0x2060, 0x2064), (0xFEFF, 0xFEFF), (0x00AD, 0x00AD), (0x180E, 0x180E))
_BIDI = frozenset([*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x061C])
_ZWNJ, _ZWJ = 0x200C, 0x200D
_TAG_LO, _TAG_HI, _TAG_CANCEL = 0xE0000, 0xE007F, 0xE007F
_BLACK_FLAG = 0x1F3F4  # base of the emoji tag sequences (flags of England, Scotland, Wales)


def _is_zw(cp: int) -> bool:
    return any(lo <= cp <= hi for lo, hi in _ZW_RANGES)


def _u(ch: str) -> str:
    cp = ord(ch)
    return f"U+{cp:04X}"


def _joinable(ch: str) -> bool:
    """A neighbour that makes ZWJ/ZWNJ legitimate: a non-ASCII letter, mark or symbol, or an
    emoji modifier/variation selector (emoji ZWJ sequences, Persian/Indic ZWNJ/ZWJ)."""
    if not ch or ch.isascii():
        return False
    cp = ord(ch)
    if is_variation_selector(cp) or 0x1F3FB <= cp <= 0x1F3FF:
        return True
    return unicodedata.category(ch)[0] in "LMS"


class _Hit(NamedTuple):
    """One finding at a position: ``once`` (when not None) reports it only the first time per text.
    ``message`` may be a function that writes it: an excerpt is written only for a hit that is
    reported (half a million invisible characters make one finding, and one excerpt)."""

    once: Hashable | None
    rule: str
    severity: Severity
    message: str | Callable[[], str]
    sig: tuple[Any, ...]


# a kind of character at s[i]: None when s[i] is not of it, else (the finding or None, where to go on)
_Kind = Callable[[str, int], tuple[_Hit | None, int] | None]


def _emoji_flag(s: str, i: int, run: str, body: str) -> bool:
    """Whether the tag ``run`` at ``s[i]`` (spelling ``body``) is an emoji flag's (England, Scotland,
    Wales): after a black flag, a short lower-case region code, closed by the cancel tag."""
    return (
        i > 0
        and ord(s[i - 1]) == _BLACK_FLAG
        and ord(run[-1]) == _TAG_CANCEL
        and 2 <= len(body) <= 7
        and re.fullmatch(r"[a-z0-9]+", body) is not None
    )


def _is_tag(cp: int) -> bool:
    return _TAG_LO <= cp <= _TAG_HI


def _run_end(s: str, i: int, member: Callable[[int], bool]) -> int:
    """The index just past the run of code points from ``s[i]`` that are ``member``s."""
    j = i
    while j < len(s) and member(ord(s[j])):
        j += 1
    return j


def _spelled(run: str) -> str:
    """What a run of tag characters spells: the ASCII character each printable tag stands for."""
    return "".join(chr(ord(c) - _TAG_LO) for c in run if 0xE0020 <= ord(c) <= 0xE007E)


def _tag_run(s: str, i: int) -> tuple[_Hit | None, int] | None:
    """Unicode tags: the run decoded; a well-formed emoji flag tag sequence is legitimate."""
    if not _is_tag(ord(s[i])):
        return None
    j = _run_end(s, i, _is_tag)
    run = s[i:j]
    body = _spelled(run)
    if _emoji_flag(s, i, run, body):
        return None, j
    what = f"{len(run)} invisible Unicode tag character(s) spelling {json.dumps(body, ensure_ascii=True)}"
    return _Hit(None, "unicode-tag", CRITICAL, what, ("unicode-tag", body)), j


def _bidi(s: str, i: int) -> tuple[_Hit | None, int] | None:
    ch = s[i]
    cp = ord(ch)
    if cp not in _BIDI:
        return None

    def what() -> str:
        return f"bidirectional control {_u(ch)} ({unicodedata.name(ch, '?')}): {excerpt(s, i, i + 1)}"

    return _Hit("bidi", "bidi-control", CRITICAL, what, ("bidi-control", cp)), i + 1


def _control(s: str, i: int) -> tuple[_Hit | None, int] | None:
    """ANSI escapes, CSI introducers and the other control characters."""
    ch = s[i]
    cp = ord(ch)
    if cp == 0x1B:
        what = "an ANSI escape (ESC)"
    elif cp == 0x9B:
        what = "a CSI introducer"
    elif unicodedata.category(ch) == "Cc":
        what = "a control character"
    else:
        return None
    hit = _Hit(
        ("ansi", cp), "ansi-escape", CRITICAL, lambda: f"{what} {_u(ch)}: {excerpt(s, i, i + 1)}", ("ansi-escape", cp)
    )
    return hit, i + 1


def _selector_run(s: str, i: int) -> tuple[_Hit | None, int] | None:
    """Variation selectors: one is an emoji's; a run of them can encode hidden bytes."""
    if not is_variation_selector(ord(s[i])):
        return None
    j = _run_end(s, i, is_variation_selector)
    if j - i < 2:
        return None, j
    what = f"a run of {j - i} variation selectors (can encode hidden bytes): {excerpt(s, i, j, 20)}"
    return _Hit(None, "hidden-unicode", CRITICAL, what, ("vs-run", j - i)), j


def _joiner(s: str, i: int) -> tuple[_Hit | None, int] | None:
    """A legitimate ZWJ/ZWNJ (emoji ZWJ sequence, Persian ZWNJ, Indic conjunct control) passes;
    any other is left to :func:`_invisible`."""
    if ord(s[i]) not in (_ZWJ, _ZWNJ):
        return None
    return (None, i + 1) if _joins(s, i) else None


def _joins(s: str, i: int) -> bool:
    """Whether the joiner at ``s[i]`` sits between two characters it may join."""
    prev, nxt = s[i - 1] if i else "", s[i + 1] if i + 1 < len(s) else ""
    return _joinable(prev) and _joinable(nxt)


def _invisible(s: str, i: int) -> tuple[_Hit | None, int] | None:
    """Zero-width and other invisible format characters."""
    ch = s[i]
    cp = ord(ch)
    if not _is_zw(cp) and unicodedata.category(ch) != "Cf":
        return None
    j = _run_end(s, i, cp.__eq__)  # a run of the same character is one hit

    def what() -> str:
        n = f"{j - i} × " if j - i > 1 else ""
        return f"invisible character {n}{_u(ch)} ({unicodedata.name(ch, 'format character')}): {excerpt(s, i, i + 1)}"

    return _Hit(("zw", cp), "hidden-unicode", CRITICAL, what, ("hidden-unicode", cp)), j


_UNUSUAL = {
    "Co": "private-use",
    "Cn": "unassigned",
    "Cs": "surrogate",
    "Zl": "line-separator",
    "Zp": "paragraph-separator",
}


def _unusual(s: str, i: int) -> tuple[_Hit | None, int] | None:
    """Private-use, unassigned, surrogate and line/paragraph-separator code points."""
    ch = s[i]
    cat = unicodedata.category(ch)
    kind = _UNUSUAL.get(cat)
    if kind is None:
        return None
    sev = LOW if cat in ("Zl", "Zp") else MEDIUM

    def what() -> str:
        return f"{kind} code point {_u(ch)}: {excerpt(s, i, i + 1)}"

    return _Hit(("odd", cat), "unusual-unicode", sev, what, ("unusual-unicode", cat)), i + 1


def _ordinary(ch: str) -> bool:
    """A letter, mark, number, symbol, punctuation or space of any script, not a variation selector:
    of no kind above (each of which is a control, format, unassigned, private-use or surrogate code
    point, a line or paragraph separator, or a variation selector). Most of a text that is not
    ASCII is ordinary, so it is told apart with one lookup."""
    cat = unicodedata.category(ch)
    return cat[0] != "C" and cat not in ("Zl", "Zp") and not is_variation_selector(ord(ch))


# in this order: a character is judged by the first kind it is of
_KINDS: tuple[_Kind, ...] = (_tag_run, _bidi, _control, _selector_run, _joiner, _invisible, _unusual)


def _judge(s: str, i: int) -> tuple[_Hit | None, int]:
    """The finding of the character at ``s[i]`` (None when it passes), and where to go on."""
    if _ordinary(s[i]):
        return None, i + 1
    for kind in _KINDS:
        got = kind(s, i)
        if got is not None:
            return got
    return None, i + 1


def char_findings(s: str, where: str) -> Iterator[tuple[LintFinding, tuple[Any, ...]]]:
    reported: set[Hashable] = set()
    m = NOT_PLAIN.search(s)
    while m is not None:
        hit, nxt = _judge(s, m.start())
        if hit is not None and _first_time(hit, reported):
            message = hit.message if isinstance(hit.message, str) else hit.message()
            yield LintFinding(hit.rule, hit.severity, message, where), hit.sig
        m = NOT_PLAIN.search(s, nxt)


def _first_time(hit: _Hit, reported: set[Hashable]) -> bool:
    """Whether ``hit`` is reported: every time, or only the first time for a kind reported once per
    text (``reported`` then records it)."""
    if hit.once is None:
        return True
    if hit.once in reported:
        return False
    reported.add(hit.once)
    return True
