"""What every lint family reads a string with: the text as a model reads it (:func:`clean`),
excerpts for messages with hidden characters escaped (:func:`excerpt`), and every string of
a definition with its JSON path (:func:`strings`)."""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterator
from typing import Any, cast

from mcplock.text.untrusted import escape_char, hides


class _Lazy:
    """A regular expression compiled on its first use (its methods then bound straight to the
    compiled pattern: no cost per call after the first)."""

    def __init__(self, pattern: str, flags: int) -> None:
        self._args = (pattern, flags)

    def __getattr__(self, name: str) -> Any:
        rx = re.compile(*self._args)
        for method in ("search", "match", "fullmatch", "finditer", "findall", "sub", "split"):
            setattr(self, method, getattr(rx, method))
        return getattr(rx, name)


def lazy(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(pattern, flags)``, compiled when first used: a rule module costs nothing to
    import (``check``'s warm path never compiles a rule; docs/severity.md)."""
    return cast("re.Pattern[str]", _Lazy(pattern, flags))


# a sentence ends at . ! ? (or their CJK forms) followed by white space (so a URL or "~/.ssh/id_rsa"
# stays whole), or at a line end
SENTENCE = lazy(r"(?:[^.!?。！？\n]|[.!?]+(?=[^\s.!?]))+[.!?。！？]*")
# any character outside printable ASCII (and \n \t \r): the cheap test before a closer look
NOT_PLAIN = re.compile(r"[^\x20-\x7e\n\t\r]")


def is_variation_selector(cp: int) -> bool:
    return 0xFE00 <= cp <= 0xFE0F or 0xE0100 <= cp <= 0xE01EF


def _hidden(c: str) -> bool:
    return hides(c) or is_variation_selector(ord(c))


def _visible(s: str) -> str:
    # variation selectors too: a run of them can encode hidden bytes
    return "".join(escape_char(c) if c not in "\n\t" and _hidden(c) else c for c in s)


def visible(s: str) -> str:
    """``s`` on one line, hidden characters escaped (a part of a message quoting untrusted text)."""
    return _visible(s).replace("\n", " ")


def excerpt(s: str, start: int, end: int, width: int = 40) -> str:
    """``s[start:end]`` with ``width`` characters either side, on one line, hidden characters escaped."""
    a, b = max(0, start - width), min(len(s), end + width)
    text = _visible(s[a:b]).replace("\n", " ")
    return ("…" if a > 0 else "") + text + ("…" if b < len(s) else "")


def _drop_hidden(m: re.Match[str]) -> str:
    c = m.group(0)
    return "" if _hidden(c) else c


@functools.lru_cache(maxsize=32768)
def clean(s: str) -> str:
    """The text as a model reads it: NFKC (fullwidth and styled letters folded), hidden characters dropped."""
    t = unicodedata.normalize("NFKC", s)
    return NOT_PLAIN.sub(_drop_hidden, t) if NOT_PLAIN.search(t) else t


# A content digest (a skill file's `digest`: "sha256:" + 64 hex) is checked by the host, never read
# by a model: not text to judge. Only a value of exactly that form is left out, so a payload put
# under such a key is still read.
DIGEST = lazy(r"sha(?:256|384|512):[0-9a-f]{64,128}")


def digest_field(key: Any, value: Any) -> bool:
    """Whether ``key: value`` is a content digest (not text a model reads)."""
    return key == "digest" and isinstance(value, str) and DIGEST.fullmatch(value) is not None


def strings(value: Any, path: str) -> Iterator[tuple[str, str]]:
    """(where, text) for every string in ``value``, keys included (content digests left out)."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        yield from _object_strings(value, path)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from strings(v, f"{path}[{i}]")


def _object_strings(value: dict[Any, Any], path: str) -> Iterator[tuple[str, str]]:
    """:func:`strings` of an object: each key, then the strings of its value."""
    for k, v in value.items():
        sub = f"{path}.{k}" if path else str(k)
        if isinstance(k, str):
            yield sub, k
        if not digest_field(k, v):
            yield from strings(v, sub)


def texts(value: Any, out: list[str] | None = None, *, skip_name: bool = False) -> list[str]:
    """Every string in ``value``, keys included, without paths: what :func:`strings` yields, at a
    fraction of the cost (no path is built). ``skip_name`` leaves out the top-level ``name`` key
    and its string value (a tool's own name)."""
    out = [] if out is None else out
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, dict):
        _object_texts(value, out, skip_name)
    elif isinstance(value, list):
        _list_texts(value, out)
    return out


def _object_texts(value: dict[Any, Any], out: list[str], skip_name: bool) -> None:
    """:func:`texts` of an object: its string keys and values, and what is nested in it."""
    for k, v in value.items():
        if skip_name and k == "name":  # the key and a string value at path "name"; what is nested is read
            if isinstance(v, (dict, list)):
                texts(v, out)
            continue
        if isinstance(k, str):
            out.append(k)
        if isinstance(v, str):
            if not digest_field(k, v):
                out.append(v)
        elif isinstance(v, dict):
            _object_texts(v, out, False)
        elif isinstance(v, list):
            _list_texts(v, out)


def _list_texts(value: list[Any], out: list[str]) -> None:
    """:func:`texts` of a list: its strings, and what is nested in it."""
    for v in value:
        if isinstance(v, str):
            out.append(v)
        elif isinstance(v, dict):
            _object_texts(v, out, False)
        elif isinstance(v, list):
            _list_texts(v, out)


def root(definition: Any) -> str:
    """The JSON path of a definition's top: ``instructions`` for instructions text, else empty."""
    return "instructions" if isinstance(definition, str) else ""


# an order that forbids: "never call the delete tool without confirmation" asks for the check
_FORBIDS = lazy(r"^\W*(?:\w+\W+){0,3}?(?:never|do\s+not|don'?t|must\s+not|mustn'?t|should\s+not|shouldn'?t)\b", re.I)


def forbids(s: str, at: int) -> bool:
    """Whether the clause of ``s`` that holds position ``at`` opens by forbidding ("Never call … without
    confirmation"): then a "without …" in it names what must not be skipped."""
    start = max((s.rfind(c, 0, at) for c in ".;:!?\n"), default=-1) + 1
    return _FORBIDS.search(s[start:at]) is not None
