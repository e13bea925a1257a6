"""Lint family: text hidden from a person by markup (docs/severity.md, issue 45 item 6).

A host may render a description as Markdown or HTML; what markup hides there the model still
reads. Text inside an element styled out of sight — ``display:none``, ``visibility:hidden``, a
zero font size or opacity, text the colour of its background — or carrying the ``hidden``
attribute is ``hidden-markup`` (``high``): there is no honest reason to hide part of a tool's
text from the person approving it. When the hidden text acts (the text pipeline finds an order or
a directive in it), the hiding is its concealment: ``critical``. A ``<details>`` block (collapsed,
one click away) and text pushed out of view by a long run of padding are concealment only beside
an act: ``critical`` then, nothing otherwise (a collapsed list of examples is ordinary).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from mcplock.lint.finding import LintFinding, Sig
from mcplock.lint.text import excerpt, lazy
from mcplock.model.severity import CRITICAL, HIGH, rank

_ELEMENT = lazy(r"<([a-z][a-z0-9]*)\b([^>]*)>(.*?)</\1\s*>", re.I | re.S)
_STYLE_HIDES = lazy(
    r"display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0(?:\.0+)?(?:px|pt|em|rem|%)?\s*(?:;|$|[\"'])"
    r"|opacity\s*:\s*0(?:\.0+)?\s*(?:;|$|[\"'])|(?:^|[\s\"';])hidden(?:\s|=|$|>)|max-height\s*:\s*0",
    re.I,
)
_COLOUR = lazy(r"(?<![-\w])color\s*:\s*([#\w]+)", re.I)
_BACKGROUND = lazy(r"background(?:-color)?\s*:\s*([#\w]+)", re.I)
_TAGS = lazy(r"<[^>]*>")
_PADDING = lazy(r"[ \t\u00a0]{200,}|\n{30,}")
_NAMED = {"white": "#ffffff", "#fff": "#ffffff", "black": "#000000", "#000": "#000000"}

Judge = Callable[[str], list[tuple[LintFinding, Sig]]]


def _colour(c: str) -> str:
    c = c.lower()
    return _NAMED.get(c, c)


def _how_hidden(attrs: str) -> str:
    """How an element's attributes hide it ('' when they do not)."""
    m = _STYLE_HIDES.search(attrs)
    if m is not None:
        return m.group(0).strip(" ;\"'")
    fg, bg = _COLOUR.search(attrs), _BACKGROUND.search(attrs)
    if fg is not None and bg is not None and _colour(fg.group(1)) == _colour(bg.group(1)):
        return "text the colour of its background"
    return ""


def _acts(content: str, judge: Judge) -> bool:
    return any(rank(f.severity) <= rank(HIGH) for f, _sig in judge(content))


def markup_findings(t: str, where: str, judge: Judge) -> Iterator[tuple[LintFinding, Sig]]:
    """``hidden-markup`` findings of ``t`` (cleaned text); ``judge`` reads a hidden text for orders."""
    if "<" in t:
        for m in _ELEMENT.finditer(t):
            found = _element(t, m, where, judge)
            if found is not None:
                yield found
                return
    pad = _PADDING.search(t)
    if pad is not None and t[pad.end() :].strip() and _acts(t[pad.end() :], judge):
        n = len(pad.group(0))
        message = f"text pushed out of view by {n} padding characters, and it acts: {excerpt(t, pad.end(), len(t), 0)}"
        yield LintFinding("hidden-markup", CRITICAL, message, where), ("hidden-markup", "padding", t[pad.end() :])


def _element(t: str, m: re.Match[str], where: str, judge: Judge) -> tuple[LintFinding, Sig] | None:
    tag, attrs, inner = m.group(1).lower(), m.group(2), m.group(3)
    content = _TAGS.sub(" ", inner).strip()
    if not content:
        return None
    how = "a collapsed <details> block" if tag == "details" else _how_hidden(attrs)
    if not how:
        return None
    acts = _acts(content, judge)
    if tag == "details" and not acts:
        return None
    severity = CRITICAL if acts else HIGH
    said = ", and it acts" if acts else ""
    message = f"text hidden by markup ({how}){said}: «{excerpt(content, 0, 0, 100)}»"
    return LintFinding("hidden-markup", severity, message, where), ("hidden-markup", how, content.lower())
