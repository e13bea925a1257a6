"""Machine and CI reports of ``diff`` and ``check``: json, markdown, sarif, github — one
module per format, what they share in :mod:`.common`.

Pure: every function returns a ``dict`` or a ``str``; nothing prints, nothing touches the
network. The CLI passes the lock's text when a format needs line numbers (sarif, github).
A new output format is a module here plus a branch in :func:`diff_report` and
:func:`check_report`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mcplock.render.formats.common import artifact_path, drift_rule, lint_rule, target
from mcplock.render.formats.github import check_github, diff_github, gh_data, gh_property
from mcplock.render.formats.json import check_json, diff_json, dumps
from mcplock.render.formats.markdown import check_markdown, diff_markdown, md_code, md_text
from mcplock.render.formats.sarif import FINGERPRINT_KEY, SARIF_SCHEMA, SARIF_VERSION, check_sarif, diff_sarif

if TYPE_CHECKING:  # pragma: no cover
    from mcplock.core.check import Finding
    from mcplock.lint.compare import ServerDiff
    from mcplock.lock.model import Lock

__all__ = [
    "FINGERPRINT_KEY",
    "FORMATS",
    "SARIF_SCHEMA",
    "SARIF_VERSION",
    "artifact_path",
    "check_github",
    "check_json",
    "check_markdown",
    "check_report",
    "check_sarif",
    "diff_github",
    "diff_json",
    "diff_markdown",
    "diff_report",
    "diff_sarif",
    "drift_rule",
    "dumps",
    "gh_data",
    "gh_property",
    "lint_rule",
    "md_code",
    "md_text",
    "target",
]

FORMATS = ("text", "json", "markdown", "sarif", "github")


def diff_report(
    fmt: str,
    diffs: list[ServerDiff],
    lockfile: str,
    exit_code: int,
    *,
    lock_text: str | None = None,
    path: str | None = None,
) -> str:
    """The whole report of `mcplock diff` in a machine format (not `text`)."""
    if fmt == "json":
        return dumps(diff_json(diffs, lockfile, exit_code))
    if fmt == "markdown":
        return diff_markdown(diffs, lockfile, exit_code)
    if fmt == "sarif":
        return dumps(diff_sarif(diffs, lockfile, exit_code, lock_text=lock_text, uri=path))
    if fmt == "github":
        return diff_github(diffs, lockfile, exit_code, lock_text=lock_text, path=path)
    raise ValueError(f"unknown format {fmt!r}")


def check_report(
    fmt: str,
    findings: list[Finding],
    lock: Lock,
    lockfile: str,
    exit_code: int,
    *,
    lock_text: str | None = None,
    path: str | None = None,
    warnings: list[Finding] | None = None,
) -> str:
    """The whole report of `mcplock check` in a machine format (not `text`). ``warnings`` (accepted
    items with critical findings) are in every format; they never change the exit code."""
    if fmt == "json":
        return dumps(check_json(findings, lock, lockfile, exit_code, warnings=warnings))
    if fmt == "markdown":
        return check_markdown(findings, lock, lockfile, exit_code, warnings=warnings)
    if fmt == "sarif":
        return dumps(check_sarif(findings, lockfile, exit_code, lock_text=lock_text, uri=path, warnings=warnings))
    if fmt == "github":
        return check_github(findings, lock, lockfile, exit_code, lock_text=lock_text, path=path, warnings=warnings)
    raise ValueError(f"unknown format {fmt!r}")
