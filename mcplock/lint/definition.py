"""Lint of one definition: every string in it, keys included, through the characters family
(on the raw string) and the one text pipeline (:mod:`mcplock.lint.pipeline`), plus what the
definition's shape says: new required parameters that ask for a credential, the annotations
of a changed tool. Findings are cached per string: schemas repeat the same text a lot.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from typing import Any

from mcplock.lint.annotations import annotation_findings, contradiction_findings
from mcplock.lint.characters import char_findings
from mcplock.lint.finding import LintFinding, Sig
from mcplock.lint.headers import header_findings
from mcplock.lint.names import pattern_name
from mcplock.lint.params import context_findings, credential_findings
from mcplock.lint.pipeline import text_findings
from mcplock.lint.quoting import requoted
from mcplock.lint.skills import content_findings, skill_findings
from mcplock.lint.text import root, strings, texts
from mcplock.lock.param_headers import ANNOTATION
from mcplock.model.severity import CRITICAL, rank

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
        out.extend(_placed(_cached_char(s), where))
        if (where, s) not in seen_text:  # a key and its value path: check the text once per path
            seen_text.add((where, s))
            out.extend(_text_placed(s, where))
    return out


def _text_placed(s: str, where: str) -> list[tuple[LintFinding, Sig]]:
    """The text pipeline's findings on ``s``, at ``where`` (a URI template's placeholders aside)."""
    return [p for p in _placed(_cached_text(s), where) if not _template_url(p[0], where)]


def _template_url(f: LintFinding, where: str) -> bool:
    """A resource template's own URI template: placeholders are what it is made of."""
    return f.rule == "exfiltration-url" and where == "uriTemplate" and "placeholder" in f.message


def _sig(f: LintFinding, sig: Sig) -> Sig:
    return (f.rule, f.where, sig)


_CONCEALS = "a directive to keep something from the person"


def _directive_kind(f: LintFinding, sig: Sig) -> str:
    return "hide" if f.message.startswith(_CONCEALS) else "act"


def _instruction_kind(f: LintFinding, sig: Sig) -> str:
    """An instruction-like text's part by the instruction table's rule it matched (its signature's)."""
    from mcplock.lint.languages import ACTS, CLAIMS, HIDES, RULE_OF

    if len(sig) <= 1:
        return ""
    rule = RULE_OF.get(str(sig[1]), "")
    return "act" if rule in ACTS else "hide" if rule in HIDES | CLAIMS else ""


def _acts(f: LintFinding, sig: Sig) -> str:
    return "act"


# the rules whose findings take part in the intent model -> which part a finding plays
_KIND_OF = {"directive": _directive_kind, "exfiltration-url": _acts, "hidden-instructions": _instruction_kind}


def _kind(f: LintFinding, sig: Sig) -> str:
    """How a finding takes part in the intent model: "act", "hide" (concealment or a claim of
    consent) or ""."""
    kind_of = _KIND_OF.get(f.rule)
    return kind_of(f, sig) if kind_of is not None else ""


def _act_and_hide(found: list[tuple[LintFinding, Sig]]) -> tuple[LintFinding, LintFinding] | None:
    """The first act and a concealment (or claim of consent) at another path, when no act is
    critical already."""
    kinds = [(f, _kind(f, sig)) for f, sig in found]
    act = _first_act(kinds)
    if act is None:
        return None
    hide = _hide_elsewhere(kinds, act.where)
    return (act, hide) if hide is not None else None


def _hide_elsewhere(kinds: list[tuple[LintFinding, str]], where: str) -> LintFinding | None:
    """The first concealment (or claim of consent) at a path other than ``where``."""
    return next((f for f, k in kinds if k == "hide" and f.where != where), None)


def _first_act(kinds: list[tuple[LintFinding, str]]) -> LintFinding | None:
    """The first act, when none is critical already (then it says all there is)."""
    acts = [f for f, k in kinds if k == "act"]
    if not acts or any(f.severity == CRITICAL for f in acts):
        return None
    return acts[0]


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


def lint_definition(
    kind: str,
    definition: Any,
    *,
    old: Any = None,
    name: str = "",
    own: frozenset[str] | None = None,
) -> list[LintFinding]:
    """Security findings for one definition (a dict; a str for instructions).

    With ``old`` (the accepted definition of a changed item) only text findings that are new
    are reported, and annotations are judged old → new (a flip toward "safe" is critical;
    annotations declared for the first time are a medium note, never a flip). ``own``: the names
    of the server's tools, given when a change is judged (then what the definition adds over
    ``old`` is judged too, :mod:`mcplock.lint.novelty`; an accepted definition has nothing new).
    """
    if definition is None:
        return []
    if kind == "ui":  # an App's HTML: the host renders it, the model does not read it
        from mcplock.lint.apps import app_findings

        return app_findings(definition, old)
    of_kind = _OWN_FINDINGS.get(kind)
    text = requoted(kind, definition, _text_findings(kind, definition, old))
    out = [
        *text,
        *(_novel(kind, definition, old, own, text) if own is not None else []),
        *credential_findings(kind, definition, old),
        *context_findings(kind, definition, old),
        *(of_kind(kind, definition, old) if of_kind is not None else []),
    ]
    out.sort(key=lambda f: (rank(f.severity), f.where, f.rule))
    return out


def _novel(kind: str, definition: Any, old: Any, own: frozenset[str], text: list[LintFinding]) -> list[LintFinding]:
    """What the definition adds over the accepted one (:mod:`mcplock.lint.novelty`), less an act a
    text finding at the same path already says as severely."""
    from mcplock.lint.novelty import novelty_findings

    said = {(f.where, f.severity) for f in text if f.rule in _ACTING}
    out = []
    for f in novelty_findings(kind, definition, old, own):
        if f.rule == "new-destination" and any(w == f.where and rank(s) <= rank(f.severity) for w, s in said):
            continue
        out.append(f)
    return out


# the text rules that already say a sentence acts
_ACTING = frozenset({"directive", "hidden-instructions", "exfiltration-url", "sensitive-path"})


def _text_findings(kind: str, definition: Any, old: Any) -> list[LintFinding]:
    """The families' findings on every string of ``definition`` (with ``old``, only those that are
    new, by signature), and an act and a concealment in two of its strings combined."""
    found = _raw(kind, definition) if old is None else _new_since(_raw(kind, definition), _raw(kind, old), old)
    found += _combined(found)
    return [f for f, _ in found]


def _new_since(
    found: list[tuple[LintFinding, Sig]], before: list[tuple[LintFinding, Sig]], old: Any
) -> list[tuple[LintFinding, Sig]]:
    """The findings of ``found`` whose signature (at their path) is not among ``before``'s; a URL
    shaped for exfiltration only when the URL itself is new (a reworded sentence around the
    accepted link is no new destination)."""
    seen = {_sig(f, s) for f, s in before}
    new = [(f, s) for f, s in found if _sig(f, s) not in seen]
    if any(f.rule == "exfiltration-url" for f, _ in new):
        known = {u.rstrip(".,;:!?)").lower() for t in texts(old) for u in _URL.findall(t)}
        new = [(f, s) for f, s in new if f.rule != "exfiltration-url" or not _urls_known(f, known)]
    return new


def _urls_known(f: LintFinding, known: set[str]) -> bool:
    """Whether every URL a finding's message quotes was in the accepted definition."""
    urls = [u.rstrip(".,;:!?)").lower() for u in _URL.findall(f.message)]
    return bool(urls) and all(u in known for u in urls)


_URL = re.compile(r"\b[a-z][a-z0-9+.-]{1,9}://[^\s<>'\"`)\]]+", re.I)


def _tool_findings(kind: str, definition: Any, old: Any) -> list[LintFinding]:
    """A tool's own checks: its annotations old → new, annotations its text contradicts (unless
    one flipped: the flip already says it, critically), its ``x-mcp-header`` parameters, its
    name's pattern."""
    flips = annotation_findings(old, definition) if old is not None else []
    flipped = any(f.rule == "annotation-flip" for f in flips)
    contradicted = [] if flipped else contradiction_findings(definition, old)
    return [*flips, *contradicted, *header_findings(definition, old), *pattern_name(definition)]


def _new_internal_uri(kind: str, definition: Any, old: Any) -> list[LintFinding]:
    """A resource's URI reaching an internal target, when the accepted definition's did not."""
    from mcplock.lint.resource_uris import resource_uri_findings

    if old is not None and resource_uri_findings(kind, old):
        return []
    return resource_uri_findings(kind, definition)


# what a definition's own kind is checked for, beside its text (a tool's annotations, header
# parameters and name; a resource's URI; a skill's content integrity; a skill file's code fetching)
_OWN_FINDINGS = {
    "tool": _tool_findings,
    "resource": _new_internal_uri,
    "resource-template": _new_internal_uri,
    "skill": skill_findings,
    "content": content_findings,
}
