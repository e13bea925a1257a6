"""Disguises undone: the other ways a text can read once a model (or a patient reader) decodes it.

:func:`views` gives, for a text as the model reads it (:func:`mcplock.lint.text.clean`: NFKC,
zero-width and other hidden characters dropped), each decoded reading worth judging, with the
name of the disguise undone:

- ``confusables folded``: Cyrillic and Greek look-alike letters inside Latin words read as the
  Latin letters they imitate (``Іgnore аll`` with a Cyrillic ``І`` and ``а``);
- ``letter-spaced words joined``: ``I g n o r e  a l l`` (one space between letters, two between
  words; or letters split by dots, dashes or underscores) reads ``Ignore all``;
- ``base64`` and ``hex``: a long encoded run that decodes to readable UTF-8 text;
- ``HTML character entities decoded``: ``&#105;gnore`` or ``&lt;IMPORTANT&gt;`` reads ``ignore``,
  ``<IMPORTANT>`` (a model reads entities as the characters they name);
- ``leetspeak undone``: ``1gn0r3 4ll pr3v10u5`` reads ``ignore all previous`` (two words or more
  that mix letters with the digits and signs leetspeak puts for them);
- ``ROT13`` and ``reversed``: the whole text rotated or read backwards, when two common English
  words are spelled that way in it.

The rules then judge each reading like the text itself (:mod:`mcplock.lint.definition`).
:func:`disguised` says whether a disguise is there at all, with or without an order inside it
(a risk signal of its own: ``high``). Pure stdlib, and cheap on ordinary text: a reading is
made only when its disguise is there.
"""

from __future__ import annotations

import base64
import binascii
import functools
import html
import re
from collections.abc import Iterator

from mcplock.lint.text import lazy

# Cyrillic and Greek letters drawn like Latin ones (a subset of Unicode TR39 confusables: those a
# word can hide in; tool *names* use the full data, :mod:`mcplock.lint.names`)
_LOOKALIKE = str.maketrans(
    {
        "а": "a",
        "в": "b",
        "е": "e",
        "ё": "e",
        "і": "i",
        "ї": "i",
        "ј": "j",
        "к": "k",
        "м": "m",
        "н": "h",
        "о": "o",
        "р": "p",
        "с": "c",
        "т": "t",
        "у": "y",
        "х": "x",
        "ѕ": "s",
        "ԁ": "d",
        "һ": "h",
        "ӏ": "l",
        "ԛ": "q",
        "ԝ": "w",
        "А": "A",
        "В": "B",
        "Е": "E",
        "К": "K",
        "М": "M",
        "Н": "H",
        "О": "O",
        "Р": "P",
        "С": "C",
        "Т": "T",
        "Х": "X",
        "У": "Y",
        "І": "I",
        "Ј": "J",
        "Ѕ": "S",
        "Ԁ": "D",
        "α": "a",
        "ο": "o",
        "ρ": "p",
        "ν": "v",
        "ι": "i",
        "κ": "k",
        "υ": "u",
        "χ": "x",
        "ε": "e",
        "τ": "t",
        "Α": "A",
        "Β": "B",
        "Ε": "E",
        "Ζ": "Z",
        "Η": "H",
        "Ι": "I",
        "Κ": "K",
        "Μ": "M",
        "Ν": "N",
        "Ο": "O",
        "Ρ": "P",
        "Τ": "T",
        "Υ": "Y",
        "Χ": "X",
        "ı": "i",
        "ɡ": "g",
        "ɑ": "a",
        "ʏ": "y",
    }
)
# the letters that make a word mixed-script: Latin letters of other alphabets (Turkish and Azeri
# dotless ı) are letters of their language there, not look-alikes hiding in English
_LOOKALIKE_CHARS = "".join(chr(c) for c in _LOOKALIKE if chr(c) != "ı")
_MIXED_WORD = lazy(rf"\b(?=\w*[A-Za-z])(?=\w*[{_LOOKALIKE_CHARS}])\w+\b")
# letters spaced out: "I g n o r e  a l l" (1 space inside a word, 2+ between words), or "i.g.n.o.r.e"
_SPACED = lazy(r"(?<![^\W\d_])[^\W\d_](?:(?: {1,3}|[.\-_*·] ?)[^\W\d_]){5,}(?![^\W\d_])")
_BASE64 = lazy(
    r"(?<![\w+/=-])(?:[A-Za-z0-9+/]{4}){5,}(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?(?![\w+/=-])"
    r"|(?<![\w=-])(?:[A-Za-z0-9_-]{4}){5,}(?:[A-Za-z0-9_-]{2,3})?={0,2}(?![\w=-])"
)
_HEX = lazy(r"(?<![0-9a-fA-F])(?:[0-9a-fA-F]{2}){12,}(?![0-9a-fA-F])")
# the commonest English words: a reading that has many of them, where the text has few, reads English
_COMMON = frozenset(
    re.findall(
        r"\w+",
        """
the and to of a in is you that it for on with as this be are or all your from at by not an if any do
then send read call use must never before after user tool data file files instructions previous""",
    )
)
_WORD = lazy(r"[A-Za-z]{1,}")
_RUN = lazy(r"[A-Za-z0-9+/_=-]{20,}")  # the cheap test before the base64 and hex patterns


_ENTITY = lazy(r"&(?:#[0-9]{2,7}|#[xX][0-9a-fA-F]{2,6}|[A-Za-z][A-Za-z0-9]{1,31});")
# a word that mixes letters with leetspeak's digits and signs (not an e-mail address or a number)
_LEET_WORD = lazy(r"(?<![\w@$.])(?=[\w@$]*[A-Za-z])(?=[\w@$]*[013457@$])[A-Za-z013457@$]{2,}(?![\w@]|\.\w)")
_LEET = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s"})


def html_entities(t: str) -> str | None:
    """``t`` with its HTML character entities decoded; None when it has none that decode."""
    if "&" not in t or not _ENTITY.search(t):
        return None
    out = html.unescape(t)
    return out if out != t else None


def unleet(t: str) -> str | None:
    """``t`` with its leetspeak words read as letters; None without two such words."""
    if not any(c in t for c in "013457@$"):
        return None
    words = _leet_words(t)
    if len(words) < 2:
        return None
    return _LEET_WORD.sub(
        lambda m: m.group(0).translate(_LEET).replace("ii", "ll") if m.group(0) in words else m.group(0), t
    )


def _leet_words(t: str) -> list[str]:
    """The words of ``t`` that mix letters with leetspeak's digits and signs (numbers aside)."""
    return [m for m in _LEET_WORD.findall(t) if not m.isdigit() and any(c.isalpha() for c in m)]


def fold_confusables(t: str) -> str | None:
    """``t`` with the look-alike letters of its mixed-script words read as Latin; None when no word mixes."""
    if t.isascii() or not _MIXED_WORD.search(t):
        return None
    return _MIXED_WORD.sub(lambda m: m.group(0).translate(_LOOKALIKE), t)


def mixed_words(t: str) -> list[str]:
    return [] if t.isascii() else _MIXED_WORD.findall(t)


def _join(run: str) -> str:
    if re.search(r"[.\-_*·]", run):
        return re.sub(r"[.\-_*·] ?", "", run)
    return " ".join(w.replace(" ", "") for w in re.split(r" {2,}", run))


@functools.lru_cache(maxsize=256)  # views() and disguised() ask about the same text in turn
def join_spaced(t: str) -> tuple[str, tuple[str, ...]] | None:
    """``t`` with its letter-spaced runs joined, and the words they make; None without one.
    A run must join into a word of four letters or more (``a b c`` lists stay lists)."""
    if not _SPACED.search(t):
        return None
    words: list[str] = []

    def sub(m: re.Match[str]) -> str:
        joined = _join(m.group(0))
        if max((len(w) for w in joined.split()), default=0) < 4:
            return m.group(0)
        words.append(joined)
        return joined

    out = _SPACED.sub(sub, t)
    return (out, tuple(words)) if words else None


def _readable(b: bytes) -> str | None:
    try:
        s = b.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return s if _looks_like_text(s) else None


def _looks_like_text(s: str) -> bool:
    """Eight characters or more, nearly all printable, and (spaces aside) half of them letters."""
    return len(s) >= 8 and _mostly_printable(s) and _half_letters(s)


def _mostly_printable(s: str) -> bool:
    return sum(1 for c in s if c.isprintable() or c in "\n\t\r") >= 0.95 * len(s)


def _half_letters(s: str) -> bool:
    return sum(1 for c in s if c.isalpha()) >= 0.5 * len(s.replace(" ", ""))


def _base64_text(run: str) -> str | None:
    """The readable text a base64 run decodes to, in the standard alphabet or the URL-safe one."""
    pad = run + "=" * (-len(run) % 4)
    for decode in (base64.b64decode, base64.urlsafe_b64decode):
        try:
            text = _readable(decode(pad))
        except (binascii.Error, ValueError):
            continue
        if text:
            return text
    return None


def decoded_runs(t: str) -> list[tuple[str, str, str]]:
    """(encoding, the run, its text) for each base64 or hex run of ``t`` that decodes to readable text."""
    if len(t) < 20 or _RUN.search(t) is None:
        return []
    return [*_base64_runs(t), *_hex_runs(t)]


def _base64_runs(t: str) -> Iterator[tuple[str, str, str]]:
    for m in _BASE64.finditer(t):
        run = m.group(0)
        if _one_word(run):
            continue  # one long word, not an encoding
        text = _base64_text(run)
        if text:
            yield "base64", run, text


def _one_word(run: str) -> bool:
    """A base64-shaped run that is one long word: letters only, in one case."""
    return run.isalpha() and (run.islower() or run.isupper())


def _hex_runs(t: str) -> Iterator[tuple[str, str, str]]:
    for m in _HEX.finditer(t):
        text = _readable(bytes.fromhex(m.group(0)))
        if text:
            yield "hex", m.group(0), text


_ROT13 = str.maketrans(
    "ABCDEFGHIJKLMabcdefghijklmNOPQRSTUVWXYZnopqrstuvwxyz", "NOPQRSTUVWXYZnopqrstuvwxyzABCDEFGHIJKLMabcdefghijklm"
)


def rot13(t: str) -> str:
    return t.translate(_ROT13)


def reversed_text(t: str) -> str:
    return t[::-1]


# the common words as a ROT13 or reversed text spells them (those that are no English word
# themselves, and of three letters or more): two of them in a text make its reading worth judging
_AS_ROT13 = frozenset(w.translate(_ROT13) for w in _COMMON if len(w) >= 3) - _COMMON
_AS_REVERSED = frozenset(w[::-1] for w in _COMMON if len(w) >= 3) - _COMMON - {"ton", "era"}


@functools.lru_cache(maxsize=256)
def _spelled(t: str) -> tuple[bool, bool]:
    """Whether ``t`` holds common words spelled in ROT13, and spelled backwards."""
    words = {w.lower() for w in _WORD.findall(t)}
    return len(words & _AS_ROT13) >= 2, len(words & _AS_REVERSED) >= 2


def _english(words: list[str]) -> int:
    return sum(1 for w in words if w.lower() in _COMMON)


def reads_english(original: str, reading: str) -> str | None:
    """The stretch of ``reading`` that reads as English where ``original`` does not (a ROT13 or
    reversed disguise), or None. Judged per line and sentence: a disguise sits beside plain text."""
    best = None
    for a, b in zip(_segments(original), _segments(reading), strict=False):
        if _turns_english(a, b) and (best is None or len(b) > len(best)):
            best = b.strip()
    return best


def _turns_english(a: str, b: str) -> bool:
    """The segment ``b`` reads as English (four words or more, a quarter of them common ones) where
    its original ``a`` does not."""
    wa, wb = _WORD.findall(a), _WORD.findall(b)
    return len(wb) >= 4 and _english(wb) >= max(3, len(wb) // 4) and _english(wa) <= len(wa) // 10


def _segments(t: str) -> list[str]:
    return re.split(r"[\n.!?;:]+", t)


def views(t: str) -> list[tuple[str, str]]:
    """(disguise undone, the reading) for every decoded reading of ``t`` (cleaned text), the plain
    text itself not included: only the readings whose disguise is there (for ROT13 and reversed
    text: two common English words spelled that way)."""
    folded = fold_confusables(t)
    readings = [
        ("HTML character entities decoded", html_entities(t)),
        ("leetspeak undone", unleet(t)),
        ("confusables folded", folded),
        ("letter-spaced words joined", _joined(folded or t)),
        *((how, text) for how, _run, text in decoded_runs(t)),
        *_spelled_readings(t),
    ]
    return [(how, reading) for how, reading in readings if reading is not None]


def _joined(t: str) -> str | None:
    """``t`` with its letter-spaced runs joined; None without one."""
    spaced = join_spaced(t)
    return spaced[0] if spaced is not None else None


def _spelled_readings(t: str) -> Iterator[tuple[str, str]]:
    """The ROT13 and the reversed reading of ``t``, each when ``t`` spells common words that way."""
    rotated, backwards = _spelled(t)
    if rotated:
        yield "ROT13", rot13(t)
    if backwards:
        yield "reversed", reversed_text(t)


def _mixed_script(t: str) -> tuple[str, str] | None:
    """("mixed-script words", the first three read as Latin) when ``t`` has such words."""
    mixed = mixed_words(t)
    return ("mixed-script words", ", ".join(w.translate(_LOOKALIKE) for w in mixed[:3])) if mixed else None


def _letter_spaced(t: str) -> tuple[str, str] | None:
    """("letter-spaced words", what they read) when ``t``'s letter-spaced runs join into two words
    of four letters or more."""
    spaced = join_spaced(t)
    if spaced is None or sum(len(w) >= 4 for j in spaced[1] for w in j.split()) < 2:
        return None
    return "letter-spaced words", " ".join(spaced[1])[:80]


def _spelled_english(t: str) -> tuple[str, str] | None:
    """("ROT13" or "reversed text", the English it reads) when ``t`` (of 20 characters or more)
    spells common words that way and a stretch of it reads as English once undone."""
    if len(t) < 20:
        return None
    rotated, backwards = _spelled(t)
    for how, spelled, undo in (("ROT13", rotated, rot13), ("reversed text", backwards, reversed_text)):
        hit = reads_english(t, undo(t)) if spelled else None
        if hit:
            return how, hit[:80]
    return None


# each disguise disguised() reports, in the order it asks
_DISGUISES = (_mixed_script, _letter_spaced, _spelled_english)


def disguised(t: str) -> tuple[str, str] | None:
    """(which disguise, what it reads) when ``t`` (cleaned text) holds one — mixed-script words,
    letter-spaced words, ROT13 or reversed English — whether or not an order is inside it.
    Base64 and hex runs are the ``encoded-blob`` rule's."""
    for detect in _DISGUISES:
        found = detect(t)
        if found is not None:
            return found
    return None
