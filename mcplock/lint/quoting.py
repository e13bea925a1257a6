"""A tool whose job is text about attacks quotes them (docs/severity.md, issue 45 item 7).

A prompt-injection scanner lists the phrases it looks for; a translator shows a sentence and its
translation; a security guide quotes a poisoned description. The order they quote is their
subject, not an order to the model. When a tool's job — its name or the first sentence of its
description, stemmed — is to scan, detect, translate, explain or document, an order of the text
family that is found only inside quotation marks (removing the quoted spans removes it) is
``quoted-by-its-job`` (``medium``: still named, never an alarm). The same words outside quotes,
or in any other tool, keep their severity.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from mcplock.lint.finding import LintFinding
from mcplock.lint.text import SENTENCE, lazy, root, strings
from mcplock.model.severity import MEDIUM, rank

_JOB_WORDS = (
    "scan scanner detect detector translate translator explain explainer classify classifier moderate "
    "moderation sanitize sanitise sanitizer filter lint linter guard document documentation describe "
    "analyze analyse analyzer teach tutor"
)
_QUOTED = lazy(
    r"(?<![\w'])'[^'\n]{3,200}'(?![\w'])|\"[^\"\n]{3,300}\"|“[^”\n]{3,300}”|«[^»\n]{3,300}»|„[^“\n]{3,300}“"
    r"|<[A-Za-z_|]{2,30}>(?=\s+tags?\b)",
)
_WORD = lazy(r"[A-Za-z]+")
_QUOTING_RULES = frozenset({"hidden-instructions", "directive", "sensitive-path"})


def quoting_job(definition: Any) -> str:
    """The word of the tool's name or first sentence that says its job is text about text ('')."""
    if not isinstance(definition, dict):
        return ""
    name = str(definition.get("name") or "")
    description = str(definition.get("description") or "")
    first = next(iter(SENTENCE.finditer(description)), None)
    words = re.split(r"[_\-.\s]+", re.sub(r"(?<=[a-z])(?=[A-Z])", "_", name))
    words += _WORD.findall(first.group(0)) if first is not None else []
    stem, jobs = _stemmed_jobs()
    return next((w for w in words if w and stem(w.lower()) in jobs), "")


@functools.cache
def _stemmed_jobs() -> tuple[Any, frozenset[str]]:
    import snowballstemmer

    stem = functools.lru_cache(maxsize=16384)(snowballstemmer.stemmer("english").stemWord)
    return stem, frozenset(stem(w) for w in _JOB_WORDS.split())


def unquoted(s: str) -> str:
    return _QUOTED.sub(" «…» ", s)


def requoted(kind: str, definition: Any, found: list[LintFinding]) -> list[LintFinding]:
    """``found`` with the orders a quoting tool only quotes made ``quoted-by-its-job``."""
    if kind != "tool" or not isinstance(definition, dict) or not any(f.rule in _QUOTING_RULES for f in found):
        return found
    job = quoting_job(definition)
    if not job:
        return found
    from mcplock.lint.pipeline import text_findings

    by_path = dict(strings(definition, root(definition)))
    out = []
    for f in found:
        s = by_path.get(f.where)
        if f.rule in _QUOTING_RULES and s is not None and _only_quoted(f, s, text_findings):
            f = LintFinding(
                "quoted-by-its-job",
                MEDIUM,
                f"quoted as data by a tool whose job is to {job.lower()}: {f.message}",
                f.where,
            )
        out.append(f)
    return out


def _only_quoted(f: LintFinding, s: str, text_findings: Any) -> bool:
    if _QUOTED.search(s) is None:
        return False
    left = [g for g, _sig in text_findings(unquoted(s), f.where) if g.rule in _QUOTING_RULES]
    return not any(rank(g.severity) <= rank(f.severity) for g in left)
