"""The one analysis pipeline every string a model can read goes through (docs/severity.md).

1. **Normalise**: the text as the model reads it (:func:`mcplock.lint.text.clean`: NFKC folds
   fullwidth and styled letters, zero-width and other hidden characters are dropped). The hidden
   characters themselves are the ``characters`` family's, on the raw string.
2. **Judge** the normalised text: instruction-like orders in every language of the table
   (:mod:`mcplock.lint.instructions`), secrets paths and encoded blobs (:mod:`mcplock.lint.secrets`),
   URLs shaped for exfiltration (:mod:`mcplock.lint.urls`).
3. **Decode disguises** (:mod:`mcplock.lint.disguises`: confusables folded, letter-spaced words
   joined, base64/hex, ROT13, reversed text) and judge each reading again: an order found only in
   a decoded reading is ``critical`` and says what it decoded from. A disguise with no order inside
   is a risk signal (``disguised-text``, or ``encoded-blob`` for base64/hex: ``high``), with the text
   it reads.

Where the string sits (a description, a title, an ``enum`` value, a prompt argument, instructions,
an App document) does not change how it is judged: :mod:`mcplock.lint.definition` walks them all.
"""

from __future__ import annotations

from collections.abc import Iterator

from mcplock.lint.disguises import decoded_runs, disguised, views
from mcplock.lint.finding import LintFinding, Sig
from mcplock.lint.instructions import instruction_findings
from mcplock.lint.intent import intent_findings
from mcplock.lint.languages import ACTS, CLAIMS, HIDES, RULE_OF
from mcplock.lint.markup import markup_findings
from mcplock.lint.secrets import payload_findings, secret_findings
from mcplock.lint.text import clean, excerpt
from mcplock.lint.urls import url_findings
from mcplock.model.severity import CRITICAL, HIGH, rank

Found = tuple[LintFinding, Sig]


def _rule_of(f: LintFinding, sig: Sig) -> str:
    """The language table's rule behind a finding: an order's, ``exfiltrate`` for a URL shaped for
    exfiltration; '' for any other finding."""
    if f.rule == "exfiltration-url":
        return "exfiltrate"
    if f.rule == "hidden-instructions" and len(sig) > 1:
        return RULE_OF.get(str(sig[1]), "")
    return ""


def _kinds(found: list[Found]) -> tuple[int, int, int]:
    """How many of ``found`` are acting, concealing and consent-claiming orders (the intent model)."""
    rules = [_rule_of(f, sig) for f, sig in found]
    return (sum(r in ACTS for r in rules), sum(r in HIDES for r in rules), sum(r in CLAIMS for r in rules))


def _judged(t: str, low: str, where: str, how: str = "", extra: list[Found] | None = None) -> list[Found]:
    """The orders of the language table and the intent analysis of ``t`` (and how they combine
    with each other and with ``extra``, the text's other findings)."""
    found = list(instruction_findings(t, low, where, how))
    acts, hides, claims = _kinds(found + (extra or []))
    directive = list(intent_findings(t, where, acts=acts, hides=hides, claims=claims, how=how))
    if not directive and _covered_act(acts, hides, claims):
        directive = [_orders_directive(found, where)]
    return directive + found


def _covered_act(acts: int, hides: int, claims: int) -> bool:
    """Whether the table's orders hold an act and, beside it, concealment or a claim of consent."""
    return bool(acts and (hides or claims))


def _orders_directive(found: list[Found], where: str) -> Found:
    """The directive that the table's orders make together when the intent analysis found none:
    an act with concealment or a claim of consent (critical), quoting the first order."""
    f, sig = next(x for x in found if x[0].rule == "hidden-instructions")
    message = (
        "a directive that moves data or redirects tools, with concealment or a claim of consent: "
        + f.message.split(": ", 1)[-1]
    )
    return LintFinding("directive", CRITICAL, message, where), ("directive", *sig[1:])


def _decoded(t: str, where: str, plain: list[Found]) -> Iterator[Found]:
    """Findings of the decoded readings of ``t`` that the plain text does not have: an order or a
    directive found only once a disguise is undone is ``critical`` (the disguise conceals it)."""
    known = {sig[:2] for _f, sig in plain}
    for how, reading in views(t):
        for f, sig in _in_reading(how, reading, where):
            if sig[:2] in known:
                continue
            known.add(sig[:2])
            yield _concealed(f, how), (*sig, how)


def _in_reading(how: str, reading: str, where: str) -> list[Found]:
    """What counts in a decoded reading: the judged findings of high or above, and a critical
    secrets path (which survives neither ROT13 nor reversal)."""
    found = [(f, sig) for f, sig in _judged(reading, reading.lower(), where, how) if rank(f.severity) <= rank(HIGH)]
    if how not in ("ROT13", "reversed"):
        found += [(f, sig) for f, sig in secret_findings(reading, reading.lower(), where) if f.severity == CRITICAL]
    return found


def _concealed(f: LintFinding, how: str) -> LintFinding:
    """A finding of a decoded reading made critical (the disguise conceals it); a secrets path,
    critical already, says what it was decoded from."""
    if f.rule == "sensitive-path":
        return LintFinding(f.rule, f.severity, f"{f.message} (decoded from {how})", f.where)
    return f if f.severity == CRITICAL else LintFinding(f.rule, CRITICAL, f.message, f.where)


def text_findings(s: str, where: str) -> Iterator[Found]:
    """Every finding of the pipeline on one string ``s`` at JSON path ``where``, with its signature."""
    if len(s) < 4:
        return
    t = clean(s)
    low = t.lower()
    urls = list(url_findings(t, low, where))
    plain = [*_judged(t, low, where, extra=urls), *secret_findings(t, low, where), *payload_findings(t, where), *urls]
    plain += markup_findings(t, where, lambda hidden: _judged(hidden, hidden.lower(), where))
    yield from plain
    decoded = list(_decoded(t, where, plain)) if len(t) >= 12 else []
    yield from decoded
    signal = None if decoded else _disguise_signal(t, where, plain)
    if signal is not None:
        yield signal


def _disguise_signal(t: str, where: str, plain: list[Found]) -> Found | None:
    """A disguise with no order inside (high): a run that decodes to text, unless the plain text
    has an encoded blob already; else disguised text."""
    blob = None if any(f.rule == "encoded-blob" for f, _ in plain) else _encoded_run(t, where)
    return blob if blob is not None else _disguised_text(t, where)


def _encoded_run(t: str, where: str) -> Found | None:
    """The first base64 or hex run of ``t`` that decodes to text (``encoded-blob``)."""
    first = next(iter(decoded_runs(t)), None)
    if first is None:
        return None
    how, run, text = first
    at = t.find(run)
    message = (
        f"a {how} run that decodes to text ({excerpt(text, 0, 0, 60)}): "
        f"{excerpt(t, at, min(at + len(run), at + 40), 10)}"
    )
    return LintFinding("encoded-blob", HIGH, message, where), ("encoded-blob", run)


def _disguised_text(t: str, where: str) -> Found | None:
    """Mixed-script, letter-spaced, ROT13 or reversed text (``disguised-text``), with what it reads."""
    found = disguised(t) if len(t) >= 12 else None
    if found is None:
        return None
    how, reads = found
    message = f"disguised text ({how}) that reads «{excerpt(reads, 0, 0, 80)}»"
    return LintFinding("disguised-text", HIGH, message, where), ("disguised-text", how, reads)
