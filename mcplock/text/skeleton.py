"""A name's skeleton: what it reads as, so that a policy pattern catches every look-alike of the
name it denies (docs/policy.md, "Patterns").

``skeleton(text)``: NFKD (compatibility forms such as full-width letters unfolded), combining marks
dropped (``e`` + U+0301 is ``e``, where NFKC would compose it into ``é``), default-ignorable code
points dropped (zero-width spaces and joiners, bidi controls, variation selectors, tags), each
character mapped to its prototype in the Unicode consortium's confusables table (UTS #39: the
Cyrillic ``е`` is ``e``, ``1`` and ``I`` are ``l``, ``m`` is ``rn``), case folded — then the same
once more, so that what folding produced is mapped too. Two names that look alike have the same
skeleton; the skeleton is for comparing, never for showing.

``compile_pattern(pattern)``: a shell-style pattern (``*``, ``?``, ``[…]``, ``[!…]``) as a regular
expression over skeletons: its literal text read as a skeleton, each member of a bracket
expression (ranges expanded) as one.

The confusables data is the ``confusable-homoglyphs`` package's (the consortium's
confusables.txt, as the lint's name rules read it), loaded only when a name holds a character
outside the ASCII letters and digits that map to themselves; the few ASCII characters that have
a prototype are in :data:`ASCII_PROTOTYPES` (a test checks them against the data).
"""

from __future__ import annotations

import functools
import re
import unicodedata

#: the ASCII characters whose UTS #39 prototype is another string (the rest map to themselves)
ASCII_PROTOTYPES = {'"': "''", "%": "\u00ba/\u2080", "0": "O", "1": "l", "I": "l", "`": "'", "m": "rn", "|": "l"}

#: Default_Ignorable_Code_Point (Unicode DerivedCoreProperties), as ranges
_IGNORABLE = (
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)
_MAX_RANGE = 0x3000  # a bracket range wider than this is read as its end points and what lies between, uncapped


def ignorable(ch: str) -> bool:
    cp = ord(ch)
    return any(lo <= cp <= hi for lo, hi in _IGNORABLE)


@functools.lru_cache(maxsize=1)
def _table() -> dict[str, str]:
    """Each confusable character (or sequence) -> its prototype, from the package's two-way data."""
    import json
    import os

    import confusable_homoglyphs

    path = os.path.join(os.path.dirname(confusable_homoglyphs.__file__), "confusables.json")
    with open(path, encoding="utf-8") as f:
        raw = json.load(f)

    def clean(s: str) -> str:  # right-to-left characters are wrapped in LRMs in the data
        return s.replace("\u200e", "").replace("\u200f", "")

    pairs: dict[str, list[str]] = {}
    for k, v in raw.items():
        pairs.setdefault(clean(k), []).extend(clean(x["c"]) for x in v)
    out: dict[str, str] = {}
    for k, v in pairs.items():
        # a source has one entry, its prototype; a prototype lists its sources (a pair of two
        # single entries: either may be the source, both map to the smaller)
        if len(k) != 1 or len(v) != 1:
            continue
        t = v[0]
        back = pairs.get(t)
        proto = min(k, t) if back == [k] else t
        if proto != k:
            out[k] = proto
    return out


# a small capital is, by its Unicode name, the letter it is a small capital of
_SMALL_CAPITAL = re.compile(r"^LATIN (?:LETTER|SMALL LETTER|CAPITAL LETTER) SMALL CAPITAL ([A-Z])$")


@functools.lru_cache(maxsize=65536)
def prototype(ch: str) -> str:
    """What one character reads as: its prototype in the confusables table when that is ASCII;
    else, when its upper case has an ASCII prototype (Greek ``ε``: its capital ``Ε`` reads ``E``),
    that; else the letter a small capital is of by its Unicode name (``ᴇ``, ``ʟ``); else its
    prototype, or itself. The lint's names (:mod:`mcplock.lint.names`) read characters with it too."""
    if ch.isascii():
        return ASCII_PROTOTYPES.get(ch, ch)
    table = _table()
    proto = table.get(ch)
    if proto is not None and proto.isascii():
        return proto
    up = ch.upper()
    if len(up) == 1 and up != ch:
        via = table.get(up, up)
        if via.isascii() and via.isalnum():
            return via
    small = _SMALL_CAPITAL.match(unicodedata.name(ch, ""))
    if small is not None:
        return small.group(1)
    return proto if proto is not None else ch


def _map(text: str) -> str:
    if all(ch.isascii() for ch in text):
        return "".join(ASCII_PROTOTYPES.get(ch, ch) for ch in text)
    return "".join(prototype(ch) for ch in text)


def _strip(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(
        ch
        for ch in decomposed
        if not unicodedata.combining(ch) and unicodedata.category(ch) not in ("Mn", "Me", "Mc") and not ignorable(ch)
    )


@functools.lru_cache(maxsize=8192)
def skeleton(text: str) -> str:
    once = _map(_strip(text)).casefold()
    return _map(_strip(once)).casefold()


def _bracket_close(pattern: str, start: int) -> int | None:
    """The index of the ``]`` that closes a bracket body starting at ``start`` (a ``]`` first in
    the body is a member), or None when none does."""
    j = start + 1 if start < len(pattern) and pattern[start] == "]" else start
    end = pattern.find("]", j)
    return None if end < 0 else end


def _members(body: str) -> set[str]:
    """The characters a bracket body names: single characters and ``a-z`` ranges (a backwards
    range names nothing; a wide one is cut at ``_MAX_RANGE`` past its start)."""
    members: set[str] = set()
    k = 0
    while k < len(body):
        if k + 2 < len(body) and body[k + 1] == "-":
            lo, hi = ord(body[k]), ord(body[k + 2])
            members.update(chr(cp) for cp in range(lo, min(hi, lo + _MAX_RANGE) + 1))
            k += 3
        else:
            members.add(body[k])
            k += 1
    return members


def _bracket(pattern: str, i: int) -> tuple[str, int] | None:
    """The regular expression of the bracket expression starting at ``pattern[i] == "["``, and
    the index after it; None when it does not close (then ``[`` is a literal, as in fnmatch)."""
    negate = pattern.startswith("!", i + 1)
    start = i + 2 if negate else i + 1
    end = _bracket_close(pattern, start)
    if end is None:
        return None
    alts = sorted({skeleton(m) for m in _members(pattern[start:end])} - {""}, key=lambda s: (-len(s), s))
    group = "(?:" + "|".join(re.escape(a) for a in alts) + ")" if alts else "(?!)"
    return (f"(?!{group}).") if negate else group, end + 1


@functools.lru_cache(maxsize=1024)
def compile_pattern(pattern: str) -> re.Pattern[str]:
    """``pattern`` (shell-style) as a regular expression matching whole skeletons."""
    out: list[str] = []
    literal: list[str] = []

    def flush() -> None:
        if literal:
            out.append(re.escape(skeleton("".join(literal))))
            literal.clear()

    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "*":
            flush()
            out.append(".*")
            i += 1
        elif ch == "?":
            flush()
            out.append(".")
            i += 1
        elif ch == "[" and (got := _bracket(pattern, i)) is not None:
            flush()
            out.append(got[0])
            i = got[1]
        else:
            literal.append(ch)
            i += 1
    flush()
    return re.compile("".join(out), re.DOTALL)


def matches(pattern: str, subject: str) -> bool:
    """Whether ``subject``'s skeleton matches ``pattern`` read as skeletons."""
    return compile_pattern(pattern).fullmatch(skeleton(subject)) is not None
