"""Lint family: instruction-like text aimed at the model, in every language of the table.

The orders of :mod:`mcplock.lint.languages` — "ignore previous instructions", "do not tell the
user", "before using this tool, read …", "forward every customer's address to …", text that
claims another server's tools, ``<IMPORTANT>`` tags, chat-template tokens — are ``critical``;
an HTML comment, hidden when rendered but read by the model, is ``high``. Judged on the text as
the model reads it (:func:`mcplock.lint.text.clean`) and on each decoded reading of it
(:mod:`mcplock.lint.disguises`): ``how`` then names the disguise undone.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from mcplock.lint.finding import LintFinding, Sig
from mcplock.lint.languages import ORDERS, Compiled, compiled, has_keys, tried
from mcplock.lint.text import SENTENCE, excerpt, lazy
from mcplock.severity import HIGH

_HTML_COMMENT = lazy(r"<!--.*?-->", re.S)
# where data is sent: a URL, an e-mail address, or an unnamed place of the writer's
DESTINATION = lazy(
    r"\b(?:https?|wss?|ftp)://\S+|[\w.+-]+@[\w-]+(?:\.[\w-]+)*(?:\.[A-Za-z]{2,}|…)"
    r"|\b(?:our|my|the\s+following)\s+(?:server|endpoint|webhook|url|collector)\b",
    re.I,
)


def _may_send(low: str) -> bool:
    """Whether ``low`` (lower-cased text) could hold a :data:`DESTINATION` at all."""
    return "://" in low or "@" in low or "our " in low or "my " in low or "following" in low


def _exfiltration(lang: Compiled, t: str) -> tuple[int, int] | None:
    """A sentence that orders data sent to a destination: a send verb and the destination (in any
    order), and the user's data named in it."""
    if lang.send is None or lang.data is None or lang.send.search(t) is None:
        return None
    for sent in SENTENCE.finditer(t):
        s = sent.group(0)
        verb = lang.send.search(s)
        dest = DESTINATION.search(s) if verb is not None else None
        if verb is None or dest is None:
            continue
        # in any order (Japanese and Korean put the verb last); the data named outside the destination
        if lang.data.search(s[: dest.start()] + " " + s[dest.end() :]) is not None:
            a, b = min(verb.start(), dest.start()), max(verb.end(), dest.end())
            return sent.start() + a, sent.start() + b
    return None


def orders(t: str, low: str) -> Iterator[tuple[str, str, int, int]]:
    """(rule, language, start, end) for each order in ``t`` (``low``: its lower case), one per rule."""
    seen: set[str] = set()
    for lang in compiled():
        if not tried(lang, t, low):
            continue
        for rule, pat, keys in lang.orders:
            if rule in seen or not has_keys(keys, low):
                continue
            m = pat.search(t)
            if m is not None:
                seen.add(rule)
                yield rule, lang.name, m.start(), m.end()
        if "exfiltrate" not in seen and _may_send(low):
            span = _exfiltration(lang, t)
            if span is not None:
                seen.add("exfiltrate")
                yield "exfiltrate", lang.name, *span


def instruction_findings(t: str, low: str, where: str, how: str = "") -> Iterator[tuple[LintFinding, Sig]]:
    """Findings in ``t`` (cleaned text, or a decoded reading of it when ``how`` names the
    disguise undone; ``low`` its lower case), each with its signature."""
    for rule, lang, a, b in orders(t, low):
        what, severity = ORDERS[rule]
        in_lang = f", in {lang}" if lang not in ("English", "*") else ""
        decoded = f", decoded from {how}" if how else ""
        yield (
            LintFinding(
                "hidden-instructions",
                severity,
                f"instruction-like text aimed at the model ({what}{in_lang}){decoded}: {excerpt(t, a, b)}",
                where,
            ),
            ("hidden-instructions", what, t[a:b].lower()),
        )
    m = _HTML_COMMENT.search(t) if "<!--" in t and not how else None
    if m and m.group(0).strip("<!-> \n\t"):
        yield (
            LintFinding(
                "hidden-instructions",
                HIGH,
                f"an HTML comment (hidden when rendered, read by the model): {excerpt(t, m.start(), m.end(), 20)}",
                where,
            ),
            ("html-comment", m.group(0)),
        )
