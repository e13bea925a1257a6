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
from collections.abc import Iterator
from typing import Any

from mcplock.lint.finding import LintFinding
from mcplock.lint.text import NOT_PLAIN, excerpt, is_variation_selector
from mcplock.severity import CRITICAL, LOW, MEDIUM

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


def char_findings(s: str, where: str) -> Iterator[tuple[LintFinding, tuple[Any, ...]]]:
    n = len(s)
    reported: set[Any] = set()
    m = NOT_PLAIN.search(s)
    while m is not None:
        i = m.start()
        ch = s[i]
        cp = ord(ch)
        # Unicode tags: decode the run; a well-formed emoji flag tag sequence is legitimate
        if _TAG_LO <= cp <= _TAG_HI:
            j = i
            while j < n and _TAG_LO <= ord(s[j]) <= _TAG_HI:
                j += 1
            run = s[i:j]
            body = "".join(chr(ord(c) - _TAG_LO) for c in run if 0xE0020 <= ord(c) <= 0xE007E)
            flag = (
                i > 0
                and ord(s[i - 1]) == _BLACK_FLAG
                and ord(run[-1]) == _TAG_CANCEL
                and 2 <= len(body) <= 7
                and re.fullmatch(r"[a-z0-9]+", body) is not None
            )
            if not flag:
                yield (
                    LintFinding(
                        "unicode-tag",
                        CRITICAL,
                        f"{len(run)} invisible Unicode tag character(s) spelling {json.dumps(body, ensure_ascii=True)}",
                        where,
                    ),
                    ("unicode-tag", body),
                )
            m = NOT_PLAIN.search(s, j)
            continue
        if cp in _BIDI:
            if "bidi" not in reported:
                reported.add("bidi")
                yield (
                    LintFinding(
                        "bidi-control",
                        CRITICAL,
                        f"bidirectional control {_u(ch)} ({unicodedata.name(ch, '?')}): {excerpt(s, i, i + 1)}",
                        where,
                    ),
                    ("bidi-control", cp),
                )
            m = NOT_PLAIN.search(s, i + 1)
            continue
        if cp == 0x1B or cp == 0x9B or unicodedata.category(ch) == "Cc":
            if ("ansi", cp) not in reported:
                reported.add(("ansi", cp))
                what = (
                    "an ANSI escape (ESC)"
                    if cp == 0x1B
                    else "a CSI introducer"
                    if cp == 0x9B
                    else "a control character"
                )
                yield (
                    LintFinding("ansi-escape", CRITICAL, f"{what} {_u(ch)}: {excerpt(s, i, i + 1)}", where),
                    ("ansi-escape", cp),
                )
            m = NOT_PLAIN.search(s, i + 1)
            continue
        if is_variation_selector(cp):
            j = i
            while j < n and is_variation_selector(ord(s[j])):
                j += 1
            if j - i >= 2:
                yield (
                    LintFinding(
                        "hidden-unicode",
                        CRITICAL,
                        f"a run of {j - i} variation selectors (can encode hidden bytes): {excerpt(s, i, j, 20)}",
                        where,
                    ),
                    ("vs-run", j - i),
                )
            m = NOT_PLAIN.search(s, j)
            continue
        if cp in (_ZWJ, _ZWNJ):
            prev, nxt = s[i - 1] if i else "", s[i + 1] if i + 1 < n else ""
            if _joinable(prev) and _joinable(nxt):
                m = NOT_PLAIN.search(s, i + 1)
                continue  # emoji ZWJ sequence, Persian ZWNJ, Indic conjunct control
        cat = unicodedata.category(ch)
        if _is_zw(cp) or cat == "Cf":
            key: tuple[str, int | str] = ("zw", cp)
            if key not in reported:
                reported.add(key)
                yield (
                    LintFinding(
                        "hidden-unicode",
                        CRITICAL,
                        f"invisible character {_u(ch)} ({unicodedata.name(ch, 'format character')}): "
                        f"{excerpt(s, i, i + 1)}",
                        where,
                    ),
                    ("hidden-unicode", cp),
                )
            m = NOT_PLAIN.search(s, i + 1)
            continue
        if cat in ("Co", "Cn", "Cs", "Zl", "Zp"):
            key = ("odd", cat)
            if key not in reported:
                reported.add(key)
                sev = LOW if cat in ("Zl", "Zp") else MEDIUM
                kind = {
                    "Co": "private-use",
                    "Cn": "unassigned",
                    "Cs": "surrogate",
                    "Zl": "line-separator",
                    "Zp": "paragraph-separator",
                }[cat]
                yield (
                    LintFinding("unusual-unicode", sev, f"{kind} code point {_u(ch)}: {excerpt(s, i, i + 1)}", where),
                    ("unusual-unicode", cat),
                )
        m = NOT_PLAIN.search(s, i + 1)
