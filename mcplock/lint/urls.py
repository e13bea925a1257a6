"""Lint family: URLs shaped for exfiltration — not plain links.

A link in a description ("See https://docs.example/search for the query syntax") is no signal.
A URL is ``high`` (``exfiltration-url``) when it is shaped to carry data away:

- a placeholder for data in it: ``{conversation}``, ``{{secret}}``, ``$TOKEN``, ``<data>``,
  ``%s``, ``[USER_DATA]`` in its query or fragment, or one naming data anywhere in it (a path
  parameter such as ``/repos/{owner}`` is an ordinary API route);
- an order in its sentence to send, post or fetch it (any language of the instruction table);
- an order to render it: an image or a link the model is told to show, embed or reply with.

A resource template's own ``uriTemplate`` is a template by design; its placeholders are not
judged (its descriptions are). An order that also names the user's data is the instruction
family's (``critical``, :mod:`mcplock.lint.instructions`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from mcplock.lint.finding import LintFinding, Sig
from mcplock.lint.languages import Compiled, compiled, tried
from mcplock.lint.text import SENTENCE, excerpt, lazy
from mcplock.model.severity import HIGH

URL = lazy(r"\b(?:https?|wss?|ftp)://[^\s<>'\"`)\]]+(?:\][^\s<>'\"`)\]]*)*", re.I)
_PLACEHOLDER = lazy(r"\{\{?\s*([\w.\- ]+?)\s*\}?\}|\$\{?([A-Za-z_]\w*)\}?|<([\w\- ]+)>|(%s)|\[([A-Z][A-Z_ ]{2,})\]")
_DATA_NAME = lazy(
    r"conversation|history|chat|message|prompt|context|secret|token|key|passw|cred|cookie|session|env|user|mail|data"
    r"|content|file|summary|memory|ssn|card|address|phone|document|note",
    re.I,
)
_FETCH = lazy(r"\b(?:fetch|get|visit|open|load|request|ping|curl|wget|call|navigate\s+to|browse\s+to|go\s+to)\b", re.I)
_RENDER = lazy(
    r"\b(?:render|display|show|embed|include|output|print|insert|append|add|reply\s+with|respond\s+with|end\s+(?:your|each"
    r"|every)\s+(?:answer|response|reply|message)\s+with)\b[^.\n]{0,60}?\b(?:image|picture|pixel|badge|markdown|link"
    r"|img)\b|!\[",
    re.I,
)


def _placeholder(url: str) -> str | None:
    """The placeholder that makes ``url`` a data carrier, or None: any in its query or fragment,
    one naming data anywhere."""
    q = _query_start(url)
    for m in _PLACEHOLDER.finditer(url):
        if m.start() >= q or _names_data(m):
            return m.group(0)
    return None


def _query_start(url: str) -> int:
    """Where ``url``'s query or fragment starts (its length when it has neither)."""
    return min((i for i in (url.find("?"), url.find("#")) if i >= 0), default=len(url))


def _names_data(placeholder: re.Match[str]) -> bool:
    name = next((g for g in placeholder.groups() if g), "")
    return _DATA_NAME.search(name) is not None


def _shaped_for_exfiltration(url: str, s: str, before: str) -> str:
    """What makes ``url`` (in the sentence ``s``, after ``before``) an exfiltration URL, or '': a
    placeholder for data, an order to render it, or an order before it to send, post or fetch it."""
    hole = _placeholder(url)
    if hole:
        return f"a placeholder for data ({hole}) in it"
    if _RENDER.search(s):
        return "an order to render it (an image or link the model shows)"
    if _orders_sending(before):
        return "an order to send, post or fetch it"
    return ""


def _orders_sending(before: str) -> bool:
    """``before`` (its sentence up to the URL) orders fetching it, or sending to it in any
    language of the instruction table."""
    bl = before.lower()
    return _FETCH.search(before) is not None or any(_sends(lang, before, bl) for lang in compiled())


def _sends(lang: Compiled, before: str, bl: str) -> bool:
    return lang.send is not None and tried(lang, before, bl) and lang.send.search(before) is not None


def url_findings(t: str, low: str, where: str) -> Iterator[tuple[LintFinding, Sig]]:
    """``exfiltration-url`` findings in ``t`` (cleaned text; ``low`` its lower case): the first
    URL shaped for exfiltration."""
    first = next(_shaped_urls(t), None) if "://" in t else None
    if first is not None:
        url, why, a, b = first
        what = f"a URL shaped for exfiltration, {why}: {excerpt(t, a, b, 30)}"
        yield LintFinding("exfiltration-url", HIGH, what, where), ("exfiltration-url", url.lower(), why)


def _shaped_urls(t: str) -> Iterator[tuple[str, str, int, int]]:
    """(URL, what shapes it for exfiltration, start, end) of each such URL in ``t``, in order."""
    for sent in SENTENCE.finditer(t):
        s = sent.group(0)
        for m in URL.finditer(s) if "://" in s else ():
            url = m.group(0).rstrip(".,;:")
            why = _shaped_for_exfiltration(url, s, s[: m.start()])
            if why:
                yield url, why, sent.start() + m.start(), sent.start() + m.end()
