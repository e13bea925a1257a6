"""Lint of one definition: every string in it, keys included, through the characters family
(on the raw string) and the one text pipeline (:mod:`mcplock.lint.pipeline`), plus what the
definition's shape says: new required parameters that ask for a credential, the annotations
of a changed tool. Findings are cached per string: schemas repeat the same text a lot.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any

from mcplock.lint.annotations import annotation_findings, contradiction_findings
from mcplock.lint.characters import char_findings
from mcplock.lint.finding import LintFinding, Sig
from mcplock.lint.headers import header_findings
from mcplock.lint.names import pattern_name
from mcplock.lint.params import context_findings, credential_findings
from mcplock.lint.pipeline import text_findings
from mcplock.lint.text import root, strings, texts
from mcplock.param_headers import ANNOTATION
from mcplock.severity import CRITICAL, rank

_HERE = "\x00where\x00"  # stands for the JSON path in cached findings


@functools.lru_cache(maxsize=32768)
def _cached_char(s: str) -> tuple[tuple[LintFinding, Sig], ...]:
    return tuple(char_findings(s, _HERE))


@functools.lru_cache(maxsize=32768)
def _cached_text(s: str) -> tuple[tuple[LintFinding, Sig], ...]:
    return tuple(text_findings(s, _HERE))


def _placed(found: tuple[tuple[LintFinding, Sig], ...], where: str) -> list[tuple[LintFinding, Sig]]:
    """Cached findings of one string, put at ``where`` (schemas repeat the same strings a lot)."""
    out = []
    for f, sig in found:
        f = LintFinding(f.rule, f.severity, f.message.replace(_HERE, where), where)
        out.append((f, tuple(where if x == _HERE else x for x in sig)))
    return out


@functools.lru_cache(maxsize=32768)
def _quiet(s: str) -> bool:
    """No family finds anything in ``s`` (an ``x-mcp-header`` key: the tool's annotations get checked)."""
    return s != ANNOTATION and not _cached_char(s) and not _cached_text(s)


def quiet(strings: Iterable[str]) -> bool:
    """No family finds anything in any of ``strings`` (a definition's :func:`texts`): then
    :func:`lint_definition` without ``old`` finds nothing either, but a tool's ``pattern-name``
    (:func:`mcplock.lint.names.pattern_name`, which looks at the name alone)."""
    return all(_quiet(s) for s in set(strings))


def _raw(kind: str, definition: Any) -> list[tuple[LintFinding, Sig]]:
    if quiet(texts(definition)):  # most definitions: no path walk at all
        return []
    out: list[tuple[LintFinding, Sig]] = []
    seen_text: set[tuple[str, str]] = set()
    for where, s in strings(definition, root(definition)):
        found = _cached_char(s)
        if found:
            out.extend(_placed(found, where))
        if (where, s) not in seen_text:  # a key and its value path: check the text once per path
            seen_text.add((where, s))
            found = _cached_text(s)
            if found:
                out.extend(p for p in _placed(found, where) if not _template_url(p[0], where))
    return out


def _template_url(f: LintFinding, where: str) -> bool:
    """A resource template's own URI template: placeholders are what it is made of."""
    return f.rule == "exfiltration-url" and where == "uriTemplate" and "placeholder" in f.message


def _sig(f: LintFinding, sig: Sig) -> Sig:
    return (f.rule, f.where, sig)


_CONCEALS = "a directive to keep something from the person"


def _kind(f: LintFinding, sig: Sig) -> str:
    """How a finding takes part in the intent model: "act", "hide" (concealment or a claim of
    consent) or ""."""
    from mcplock.lint.languages import ACTS, CLAIMS, HIDES, RULE_OF

    if f.rule == "directive":
        return "hide" if f.message.startswith(_CONCEALS) else "act"
    if f.rule == "exfiltration-url":
        return "act"
    if f.rule == "hidden-instructions" and len(sig) > 1:
        rule = RULE_OF.get(str(sig[1]), "")
        return "act" if rule in ACTS else "hide" if rule in HIDES | CLAIMS else ""
    return ""


def _act_and_hide(found: list[tuple[LintFinding, Sig]]) -> tuple[LintFinding, LintFinding] | None:
    """The first act and a concealment (or claim of consent) at another path, when no act is
    critical already."""
    kinds = [(f, _kind(f, sig)) for f, sig in found]
    acts = [f for f, k in kinds if k == "act"]
    if not acts or any(f.severity == CRITICAL for f in acts):
        return None
    hide = next((f for f, k in kinds if k == "hide" and f.where != acts[0].where), None)
    return (acts[0], hide) if hide is not None else None


def _combined(found: list[tuple[LintFinding, Sig]]) -> list[tuple[LintFinding, Sig]]:
    """An act in one string and a concealment (or a claim of consent) in another string of the same
    definition — an exfiltration order in the description, "do not mention it" in a parameter —
    are one critical directive, as they are within one string (:mod:`mcplock.lint.intent`)."""
    pair = _act_and_hide(found)
    if pair is None:
        return []
    act, hide = pair
    what = act.message.split(": ", 1)[0]
    return [
        (
            LintFinding(
                "directive",
                CRITICAL,
                f"{what}, with concealment or a claim of consent at {hide.where} "
                f"({hide.message.split(': ', 1)[-1][:80]}): {act.message.split(': ', 1)[-1]}",
                act.where,
            ),
            ("directive", "combined", act.where, hide.where, act.message, hide.message),
        )
    ]


def lint_definition(kind: str, definition: Any, *, old: Any = None, name: str = "") -> list[LintFinding]:
    """Security findings for one definition (a dict; a str for instructions).

    With ``old`` (the accepted definition of a changed item) only text findings that are new
    are reported, and annotations are judged old → new (a flip toward "safe" is critical;
    annotations declared for the first time are a medium note, never a flip).
    """
    if definition is None:
        return []
    if kind == "ui":  # an App's HTML: the host renders it, the model does not read it
        from mcplock.lint.apps import app_findings

        return app_findings(definition, old)
    out = _text_findings(kind, definition, old)
    out.extend(credential_findings(kind, definition, old))
    if kind == "tool" and old is not None:
        out.extend(annotation_findings(old, definition))
    out.extend(context_findings(kind, definition, old))
    if kind == "tool":
        out.extend(_tool_findings(definition, old, flipped=any(f.rule == "annotation-flip" for f in out)))
    if kind in ("resource", "resource-template"):
        out.extend(_new_internal_uri(kind, definition, old))
    out.sort(key=lambda f: (rank(f.severity), f.where, f.rule))
    return out


def _text_findings(kind: str, definition: Any, old: Any) -> list[LintFinding]:
    """The families' findings on every string of ``definition`` (with ``old``, only those that are
    new, by signature), and an act and a concealment in two of its strings combined."""
    found = _raw(kind, definition)
    if old is not None:
        before = {_sig(f, s) for f, s in _raw(kind, old)}
        found = [(f, s) for f, s in found if _sig(f, s) not in before]
    found += _combined(found)
    return [f for f, _ in found]


def _tool_findings(definition: Any, old: Any, *, flipped: bool) -> list[LintFinding]:
    """A tool's own checks: annotations its text contradicts (unless ``flipped``: an annotation
    flip already says it, critically), its ``x-mcp-header`` parameters, its name's pattern."""
    out = [] if flipped else contradiction_findings(definition, old)
    return [*out, *header_findings(definition, old), *pattern_name(definition)]


def _new_internal_uri(kind: str, definition: Any, old: Any) -> list[LintFinding]:
    """A resource's URI reaching an internal target, when the accepted definition's did not."""
    from mcplock.lint.resource_uris import resource_uri_findings

    if old is not None and resource_uri_findings(kind, old):
        return []
    return resource_uri_findings(kind, definition)
