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
from mcplock.severity import CRITICAL, MEDIUM


def annotation_findings(old: Any, new: Any) -> list[LintFinding]:
    """Findings for the annotations of a changed tool (``old`` accepted, ``new`` live)."""
    if not isinstance(new, dict):
        return []
    na = new.get("annotations")
    if not isinstance(na, dict):
        return []
    oa = old.get("annotations") if isinstance(old, dict) else None
    oa = oa if isinstance(oa, dict) else {}
    out: list[LintFinding] = []
    if oa.get("readOnlyHint") is False and na.get("readOnlyHint") is True:
        out.append(LintFinding("annotation-flip", CRITICAL, "readOnlyHint flipped from false to true: the tool now "
                               "claims to be read-only; annotations are self-declared and not trusted",
                               "annotations.readOnlyHint"))
    elif oa.get("destructiveHint") is True and na.get("readOnlyHint") is True:
        out.append(LintFinding("annotation-flip", CRITICAL, "a tool that declared destructiveHint: true now claims "
                               "readOnlyHint: true; annotations are self-declared and not trusted",
                               "annotations.readOnlyHint"))
    if oa.get("destructiveHint") is True and na.get("destructiveHint") is False:
        out.append(LintFinding("annotation-flip", CRITICAL, "destructiveHint flipped from true to false: the tool "
                               "now claims not to be destructive; annotations are self-declared and not trusted",
                               "annotations.destructiveHint"))
    if not out:
        first = sorted(k for k in ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")
                       if k in na and k not in oa)
        if first:
            decl = ", ".join(f"{k}: {json.dumps(na[k])}" for k in first)
            out.append(LintFinding("annotations-declared", MEDIUM, f"declares {decl} for the first time; "
                                   "annotations are self-declared by the server and not trusted, and the tool's "
                                   "approval is unchanged", "annotations"))
    return out
