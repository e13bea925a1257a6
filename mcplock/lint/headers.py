"""A tool whose ``x-mcp-header`` annotations break the spec's constraints (MCP 2026-07-28,
SEP-2243): a client on Streamable HTTP must not use it, so mcplock reports it (``high``: a
defect that can also be a way to smuggle text into HTTP headers) and the guard and ``call``
refuse it over HTTP. The constraints themselves live in :mod:`mcplock.lock.param_headers`."""

from __future__ import annotations

from typing import Any

from mcplock.lint.finding import LintFinding
from mcplock.lock.param_headers import ANNOTATION, problems
from mcplock.model.severity import HIGH


def header_findings(definition: Any, old: Any = None) -> list[LintFinding]:
    if not isinstance(definition, dict):
        return []
    before = set(problems(old)) if isinstance(old, dict) else set()
    return [
        LintFinding(
            "invalid-mcp-header",
            HIGH,
            f"invalid {ANNOTATION}: {p} (a client must not use this tool over Streamable HTTP)",
            "inputSchema",
        )
        for p in problems(definition)
        if p not in before
    ]
