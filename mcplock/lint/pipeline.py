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
from mcplock.lint.secrets import payload_findings, secret_findings
from mcplock.lint.text import clean, excerpt
from mcplock.lint.urls import url_findings
from mcplock.severity import CRITICAL, HIGH

Found = tuple[LintFinding, Sig]


def _decoded(t: str, where: str, plain: list[Found]) -> Iterator[Found]:
    """Critical findings of the decoded readings of ``t`` that the plain text does not have."""
    known = {sig[:2] for _f, sig in plain}
    for how, reading in views(t):
        found = [*instruction_findings(reading, reading.lower(), where, how)]
        if how not in ("ROT13", "reversed"):  # a secrets path survives neither
            found += [(f, sig) for f, sig in secret_findings(reading, reading.lower(), where)]
        for f, sig in found:
            if f.severity != CRITICAL or sig[:2] in known:
                continue
            known.add(sig[:2])
            if f.rule == "sensitive-path":
                f = LintFinding(f.rule, f.severity, f"{f.message} (decoded from {how})", f.where)
            yield f, (*sig, how)


def text_findings(s: str, where: str) -> Iterator[Found]:
    """Every finding of the pipeline on one string ``s`` at JSON path ``where``, with its signature."""
    if len(s) < 4:
        return
    t = clean(s)
    low = t.lower()
    plain = [*instruction_findings(t, low, where), *secret_findings(t, low, where), *payload_findings(t, where),
             *url_findings(t, low, where)]
    yield from plain
    decoded = list(_decoded(t, where, plain)) if len(t) >= 12 else []
    yield from decoded
    if decoded:
        return
    blob = any(f.rule == "encoded-blob" for f, _ in plain)
    for how, run, text in decoded_runs(t) if not blob else ():
        at = t.find(run)
        yield (LintFinding("encoded-blob", HIGH, f"a {how} run that decodes to text ({excerpt(text, 0, 0, 60)}): "
                           f"{excerpt(t, at, min(at + len(run), at + 40), 10)}", where), ("encoded-blob", run))
        return
    found = disguised(t) if len(t) >= 12 else None
    if found is not None:
        how, reads = found
        yield (LintFinding("disguised-text", HIGH, f"disguised text ({how}) that reads «{excerpt(reads, 0, 0, 80)}»",
                           where), ("disguised-text", how, reads))
