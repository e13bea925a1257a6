"""``--format json`` of ``diff`` and ``check``: one JSON document, a contract (keys and
``exit_code`` are stable; see docs/architecture.md)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from mcplock.render.formats.common import summary_counts

if TYPE_CHECKING:  # pragma: no cover
    from mcplock.core.check import Finding
    from mcplock.lint.compare import ServerDiff
    from mcplock.lock.model import Lock


def diff_json(diffs: list[ServerDiff], lockfile: str, exit_code: int) -> dict[str, Any]:
    return {
        "version": 1,
        "command": "diff",
        "lockfile": lockfile,
        "exit_code": exit_code,
        "servers": [d.as_json() for d in diffs],
        "summary": summary_counts(diffs),
    }


def check_json(
    findings: list[Finding], lock: Lock, lockfile: str, exit_code: int, *, warnings: list[Finding] | None = None
) -> dict[str, Any]:
    warnings = warnings or []
    return {
        "version": 1,
        "command": "check",
        "lockfile": lockfile,
        "exit_code": exit_code,
        "findings": [f.as_json() for f in findings],
        "warnings": [w.as_json() for w in warnings],
        "summary": {"servers": len(lock.servers), "findings": len(findings), "warnings": len(warnings)},
    }


def dumps(doc: dict[str, Any]) -> str:
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
