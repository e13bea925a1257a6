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
from itertools import chain

from mcplock.lint.addressed import described
from mcplock.lint.finding import LintFinding, Sig
from mcplock.lint.languages import ORDERS, Compiled, compiled, has_keys, tried
from mcplock.lint.text import SENTENCE, excerpt, forbids, lazy
from mcplock.model.severity import HIGH, MEDIUM

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


def _exfiltration(lang: Compiled, t: str, low: str) -> tuple[int, int] | None:
    """A sentence that orders data sent to a destination: a send verb and the destination (in any
    order), and the user's data named in it."""
    send, data = lang.send, lang.data
    if send is None or data is None or not _may_send(low) or send.search(t) is None:
        return None
    return _first_sending(send, data, t)


def _first_sending(send: re.Pattern[str], data: re.Pattern[str], t: str) -> tuple[int, int] | None:
    """The span in ``t`` of the first sentence that orders the user's data sent to a destination."""
    for sent in SENTENCE.finditer(t):
        span = _sending(send, data, sent.group(0))
        if span is not None:
            return sent.start() + span[0], sent.start() + span[1]
    return None


def _sending(send: re.Pattern[str], data: re.Pattern[str], s: str) -> tuple[int, int] | None:
    """The span of the sentence ``s`` from its send verb to its destination, in any order (Japanese
    and Korean put the verb last), when ``s`` names the user's data outside the destination."""
    verb = send.search(s)
    dest = DESTINATION.search(s) if verb is not None else None
    if verb is None or dest is None or data.search(s[: dest.start()] + " " + s[dest.end() :]) is None:
        return None
    return min(verb.start(), dest.start()), max(verb.end(), dest.end())


def orders(t: str, low: str) -> Iterator[tuple[str, str, int, int]]:
    """(rule, language, start, end) for each order in ``t`` (``low``: its lower case), one per rule."""
    seen: set[str] = set()
    for lang in compiled():
        if not tried(lang, t, low):
            continue
        # its patterns, then a sentence sending data away; ``seen`` grows as each is taken
        for rule, a, b in chain(_matched(lang, t, low, seen), _sent_away(lang, t, low, seen)):
            seen.add(rule)
            yield rule, lang.name, a, b


def _matched(lang: Compiled, t: str, low: str, seen: set[str]) -> Iterator[tuple[str, int, int]]:
    """(rule, start, end) of each pattern of the language ``lang`` that matches ``t``, for the rules
    not in ``seen``."""
    for rule, pat, keys in lang.orders:
        m = pat.search(t) if rule not in seen and has_keys(keys, low) else None
        if m is not None and rule == "conceal" and _stated(lang.name, t, m.start()):
            m = next((x for x in pat.finditer(t) if not _stated(lang.name, t, x.start())), None)
        if m is not None and not _forbidden(rule, t, m):
            yield rule, m.start(), m.end()


def _stated(language: str, t: str, at: int) -> bool:
    """Whether the negation at ``t[at]`` says what a third person does ("Le serveur ne le signale pas à
    l'utilisateur" describes), not an order (:func:`mcplock.lint.addressed.described`)."""
    if language != "French":
        return False
    return described(language, t, at)


_NEGATIVE_ORDER = lazy(r"(?:do\s+not|don'?t|never|must\s+not)\b", re.I)


def _forbidden(rule: str, t: str, m: re.Match[str]) -> bool:
    """A consent order ("call … without confirmation", "without asking the user") inside a clause
    that forbids it ("Never call the delete tool without confirmation"): the text asks for the check."""
    return rule == "consent" and _NEGATIVE_ORDER.match(m.group(0)) is None and forbids(t, m.start())


def _sent_away(lang: Compiled, t: str, low: str, seen: set[str]) -> Iterator[tuple[str, int, int]]:
    """(``exfiltrate``, start, end) of a sentence of ``lang`` that orders data sent away, unless
    ``seen`` has that rule."""
    span = _exfiltration(lang, t, low) if "exfiltrate" not in seen else None
    if span is not None:
        yield "exfiltrate", *span


def instruction_findings(t: str, low: str, where: str, how: str = "") -> Iterator[tuple[LintFinding, Sig]]:
    """Findings in ``t`` (cleaned text, or a decoded reading of it when ``how`` names the
    disguise undone; ``low`` its lower case), each with its signature."""
    for rule, lang, a, b in orders(t, low):
        yield _order_finding(t, where, how, rule, lang, (a, b))
    comment = None if how else _html_comment(t, where)
    if comment is not None:
        yield comment


def _order_finding(
    t: str, where: str, how: str, rule: str, lang: str, span: tuple[int, int]
) -> tuple[LintFinding, Sig]:
    """The finding of one order of the table, in ``lang``, at ``t[span]``."""
    a, b = span
    what, severity = ORDERS[rule]
    in_lang = f", in {lang}" if lang not in ("English", "*") else ""
    decoded = f", decoded from {how}" if how else ""
    message = f"instruction-like text aimed at the model ({what}{in_lang}){decoded}: {excerpt(t, a, b)}"
    return LintFinding("hidden-instructions", severity, message, where), ("hidden-instructions", what, t[a:b].lower())


def _html_comment(t: str, where: str) -> tuple[LintFinding, Sig] | None:
    """An HTML comment with something in it (high): hidden when rendered, read by the model."""
    m = _HTML_COMMENT.search(t) if "<!--" in t else None
    if m is None or not m.group(0).strip("<!-> \n\t"):
        return None
    if _inert_comment(m.group(0)[4:-3]):
        message = f"an HTML comment that asks nothing (a note of the tooling): {excerpt(t, m.start(), m.end(), 20)}"
        return LintFinding("html-comment-note", MEDIUM, message, where), ("html-comment", m.group(0))
    message = f"an HTML comment (hidden when rendered, read by the model): {excerpt(t, m.start(), m.end(), 20)}"
    return LintFinding("hidden-instructions", HIGH, message, where), ("html-comment", m.group(0))


_READ = lazy(r"\b(?:read|first|always|before|after|ignore|assistant|model|ai|llm|agent|you)\b", re.I)


def _inert_comment(body: str) -> bool:
    """A short comment that names nothing and asks nothing ("generated by docgen 2.1"): a note of
    the tooling that wrote the text, not text for the model."""
    from mcplock.lint.aspects import candidates
    from mcplock.lint.destinations import references
    from mcplock.lint.language_id import unreadable
    from mcplock.lint.stems import stemmed_verb

    words = body.split()
    if len(words) > 6 or _READ.search(body) or references(body) or unreadable(body):
        return False
    languages = candidates(body, body.lower())
    return not any(stemmed_verb(body, cls, languages) for cls in ("move", "call", "fill"))
