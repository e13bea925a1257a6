"""Lint family: tool annotations, judged old → new.

Annotations are self-declared by the server and never trusted. An explicit flip toward
"safe" (``readOnlyHint`` false → true, ``destructiveHint`` true → false, or a tool that
declared itself destructive now claiming to be read-only) is ``critical``; annotations
declared for the first time are a ``medium`` note that leaves the approval unchanged.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from mcplock.lint.finding import LintFinding
from mcplock.model.severity import CRITICAL, HIGH, MEDIUM

_TRUSTED_NOT = "annotations are self-declared and not trusted"


def _annotations(definition: Any) -> dict[str, Any] | None:
    ann = definition.get("annotations") if isinstance(definition, dict) else None
    return ann if isinstance(ann, dict) else None


def _read_only_flip(oa: dict[str, Any], na: dict[str, Any]) -> str | None:
    """What a new ``readOnlyHint: true`` flips, if it flips something: a ``readOnlyHint: false``,
    or else a ``destructiveHint: true``."""
    if na.get("readOnlyHint") is not True:
        return None
    if oa.get("readOnlyHint") is False:
        return f"readOnlyHint flipped from false to true: the tool now claims to be read-only; {_TRUSTED_NOT}"
    if oa.get("destructiveHint") is True:
        return f"a tool that declared destructiveHint: true now claims readOnlyHint: true; {_TRUSTED_NOT}"
    return None


def _destructive_flip(oa: dict[str, Any], na: dict[str, Any]) -> str | None:
    """What a ``destructiveHint`` flipped from true to false says, if it did."""
    if oa.get("destructiveHint") is True and na.get("destructiveHint") is False:
        return f"destructiveHint flipped from true to false: the tool now claims not to be destructive; {_TRUSTED_NOT}"
    return None


# where each flip toward "safe" is reported -> what it says, if old -> new annotations make it
_FLIPS = (("annotations.readOnlyHint", _read_only_flip), ("annotations.destructiveHint", _destructive_flip))


def flips(old: Any, new: Any) -> list[tuple[str, str]]:
    """(where, what) for each explicit flip toward "safe" from ``old``'s annotations to ``new``'s
    (two tool definitions)."""
    na, oa = _annotations(new), _annotations(old) or {}
    if na is None:
        return []
    out: list[tuple[str, str]] = []
    for where, flipped in _FLIPS:
        what = flipped(oa, na)
        if what is not None:
            out.append((where, what))
    return out


def annotation_findings(old: Any, new: Any) -> list[LintFinding]:
    """Findings for the annotations of a changed tool (``old`` accepted, ``new`` live)."""
    na, oa = _annotations(new), _annotations(old) or {}
    if na is None:
        return []
    out = [LintFinding("annotation-flip", CRITICAL, what, where) for where, what in flips(old, new)]
    if out:
        return out
    declared = _first_declared(na, oa)
    return [declared] if declared is not None else []


_HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")


def _first_declared(na: dict[str, Any], oa: dict[str, Any]) -> LintFinding | None:
    """``annotations-declared`` (medium) for the hints ``na`` declares that ``oa`` did not."""
    first = sorted(k for k in _HINTS if k in na and k not in oa)
    if not first:
        return None
    decl = ", ".join(f"{k}: {json.dumps(na[k])}" for k in first)
    return LintFinding(
        "annotations-declared",
        MEDIUM,
        f"declares {decl} for the first time; "
        "annotations are self-declared by the server and not trusted, and the tool's "
        "approval is unchanged",
        "annotations",
    )


def _text_field(definition: dict[str, Any], key: str) -> str:
    value = definition.get(key)
    return value if isinstance(value, str) else ""


def _safety_claims(ann: dict[str, Any], name: str) -> Iterator[tuple[str, str]]:
    """The safety claims ``ann`` makes, each with the name its contradiction is read in:
    ``readOnlyHint: true`` is contradicted by the tool's name too, ``destructiveHint: false``
    by its text alone."""
    if ann.get("readOnlyHint") is True:
        yield "readOnlyHint: true", name
    if ann.get("destructiveHint") is False:
        yield "destructiveHint: false", ""


def _contradiction(definition: Any) -> tuple[str, str] | None:
    """(the annotation, what says otherwise) when a tool's own name or text says it deletes or
    changes while its annotations claim it safe (``readOnlyHint: true``, or ``destructiveHint:
    false`` beside "permanently deletes")."""
    ann = _annotations(definition)
    if ann is None:
        return None
    from mcplock.lint.aspects import contradicts_read_only
    from mcplock.lint.text import clean

    desc = _text_field(definition, "description")
    for claim, name in _safety_claims(ann, _text_field(definition, "name")):
        says = contradicts_read_only(name, clean(desc))
        if says:
            return claim, says
    return None


def contradiction_findings(new: Any, old: Any = None) -> list[LintFinding]:
    """``annotation-contradicted`` (high): the tool declares itself safe while its name or text
    says it deletes or changes — a lie about safety, not a mere claim. Reported when new (a new
    tool, or a contradiction the accepted definition did not have)."""
    found = _contradiction(new)
    if found is None or (old is not None and _contradiction(old) == found):
        return []
    what, says = found
    return [
        LintFinding(
            "annotation-contradicted",
            HIGH,
            f"declares {what} while {says} says it deletes or changes "
            f"data; {_TRUSTED_NOT}, and this one contradicts the tool's own text",
            "annotations",
        )
    ]
