"""Lint family: tool annotations, judged old → new.

Annotations are self-declared by the server and never trusted. An explicit flip toward
"safe" (``readOnlyHint`` false → true, ``destructiveHint`` true → false, or a tool that
declared itself destructive now claiming to be read-only) is ``critical``; annotations
declared for the first time are a ``medium`` note that leaves the approval unchanged.
"""

from __future__ import annotations

import json
from typing import Any

from mcplock.lint.finding import LintFinding
from mcplock.severity import CRITICAL, HIGH, MEDIUM

_TRUSTED_NOT = "annotations are self-declared and not trusted"


def _annotations(definition: Any) -> dict[str, Any] | None:
    ann = definition.get("annotations") if isinstance(definition, dict) else None
    return ann if isinstance(ann, dict) else None


def flips(old: Any, new: Any) -> list[tuple[str, str]]:
    """(where, what) for each explicit flip toward "safe" from ``old``'s annotations to ``new``'s
    (two tool definitions)."""
    na, oa = _annotations(new), _annotations(old) or {}
    if na is None:
        return []
    out: list[tuple[str, str]] = []
    if oa.get("readOnlyHint") is False and na.get("readOnlyHint") is True:
        out.append(
            (
                "annotations.readOnlyHint",
                f"readOnlyHint flipped from false to true: the tool now claims to be read-only; {_TRUSTED_NOT}",
            )
        )
    elif oa.get("destructiveHint") is True and na.get("readOnlyHint") is True:
        out.append(
            (
                "annotations.readOnlyHint",
                f"a tool that declared destructiveHint: true now claims readOnlyHint: true; {_TRUSTED_NOT}",
            )
        )
    if oa.get("destructiveHint") is True and na.get("destructiveHint") is False:
        out.append(
            (
                "annotations.destructiveHint",
                "destructiveHint flipped from true to false: the tool "
                f"now claims not to be destructive; {_TRUSTED_NOT}",
            )
        )
    return out


def annotation_findings(old: Any, new: Any) -> list[LintFinding]:
    """Findings for the annotations of a changed tool (``old`` accepted, ``new`` live)."""
    na, oa = _annotations(new), _annotations(old) or {}
    if na is None:
        return []
    out = [LintFinding("annotation-flip", CRITICAL, what, where) for where, what in flips(old, new)]
    if not out:
        first = sorted(
            k for k in ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint") if k in na and k not in oa
        )
        if first:
            decl = ", ".join(f"{k}: {json.dumps(na[k])}" for k in first)
            out.append(
                LintFinding(
                    "annotations-declared",
                    MEDIUM,
                    f"declares {decl} for the first time; "
                    "annotations are self-declared by the server and not trusted, and the tool's "
                    "approval is unchanged",
                    "annotations",
                )
            )
    return out


def _contradiction(definition: Any) -> tuple[str, str] | None:
    """(the annotation, what says otherwise) when a tool's own name or text says it deletes or
    changes while its annotations claim it safe (``readOnlyHint: true``, or ``destructiveHint:
    false`` beside "permanently deletes")."""
    ann = _annotations(definition)
    if ann is None or not isinstance(definition, dict):
        return None
    from mcplock.lint.intent import contradicts_read_only
    from mcplock.lint.text import clean

    raw_name, raw_desc = definition.get("name"), definition.get("description")
    name = raw_name if isinstance(raw_name, str) else ""
    desc = raw_desc if isinstance(raw_desc, str) else ""
    if ann.get("readOnlyHint") is True:
        says = contradicts_read_only(name, clean(desc))
        if says:
            return "readOnlyHint: true", says
    if ann.get("destructiveHint") is False:
        says = contradicts_read_only("", clean(desc))
        if says:
            return "destructiveHint: false", says
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
