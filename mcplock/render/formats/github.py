"""``--format github`` of ``diff`` and ``check``: workflow-command annotations
(``::error file=…,line=…,title=…::message``) on the lock's lines, then a summary line."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mcplock.render.formats.common import (
    CHECK_LEVEL,
    PENDING_RULE,
    Lines,
    change_message,
    check_message,
    check_rule,
    drift_rule,
    finding_message,
    finding_severity,
    ident,
    lint_rule,
    pending_message,
    plain,
    summary_counts,
    target,
    unreachable_message,
)
from mcplock.severity import GITHUB_LEVEL, github_level
from mcplock.untrusted import visible

if TYPE_CHECKING:  # pragma: no cover
    from mcplock.compare import Change, ServerDiff
    from mcplock.core.check import Finding
    from mcplock.lock.model import Lock


def gh_data(s: object) -> str:
    """The message of a workflow command (after `::`), on one line."""
    text = visible(s if isinstance(s, str) else str(s), keep_newlines=True)
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def gh_property(s: object) -> str:
    """A property value of a workflow command (`file=`, `title=`)."""
    return gh_data(s).replace(":", "%3A").replace(",", "%2C")


def _gh(level: str, file: str, line: int, title: str, message: str) -> str:
    return f"::{level} file={gh_property(file)},line={line},title={gh_property(title)}::{gh_data(message)}"


def _finding_lines(server: str, c: Change, file: str, line: int, t: str) -> list[str]:
    """An annotation per security finding on ``c``'s new text, at its item's line (``t``: the item)."""
    out: list[str] = []
    for f in c.findings:
        sev = finding_severity(f)
        out.append(
            _gh(github_level(sev), file, line, f"mcplock {lint_rule(f)} ({sev}): {t}", finding_message(server, c, f))
        )
    return out


def diff_github(
    diffs: list[ServerDiff], lockfile: str, exit_code: int, *, lock_text: str | None = None, path: str | None = None
) -> str:
    file = path or lockfile
    lines = Lines(lock_text)
    out: list[str] = []
    for d in diffs:
        if d.error is not None:
            out.append(
                _gh(
                    "warning",
                    file,
                    lines.of(("server", d.name)),
                    f"mcplock unreachable: {plain(d.name)}",
                    unreachable_message(d),
                )
            )
        for c in d.changes:
            line = lines.item(d.name, c.kind, c.name)
            t = plain(target(d.name, c.kind, c.name))
            out.append(
                _gh(
                    github_level(c.severity),
                    file,
                    line,
                    f"mcplock {drift_rule(c.kind, c.change)} ({c.severity}): {t}",
                    change_message(d.name, c),
                )
            )
            out += _finding_lines(d.name, c, file, line, t)
        for k in d.cloaked or ():  # diff --cloak: another answer to another host
            out.append(
                _gh(
                    github_level(k.severity),
                    file,
                    lines.of(("server", d.name)),
                    f"mcplock cloaking ({k.severity}): {plain(d.name)}/{plain(k.name)}",
                    f"server `{plain(d.name)}`, {plain(k.kind)} `{plain(k.name)}`: {plain(k.message)}",
                )
            )
        for p in d.pending:
            t = plain(target(d.name, p.kind, p.name))
            line = lines.item(d.name, p.kind, p.name)
            out.append(
                _gh(
                    "warning",
                    file,
                    line,
                    f"mcplock {PENDING_RULE}: {t}",
                    pending_message(d.name, p.kind, p.name, p.change),
                )
            )
            if p.detail is not None:  # a staged change's findings still count
                out += _finding_lines(d.name, p.detail, file, line, t)
        if d.identity is not None:
            out.append(
                _gh(
                    "notice",
                    file,
                    lines.of(("server", d.name)),
                    f"mcplock identity: {plain(d.name)}",
                    f"server `{plain(d.name)}` reports {plain(ident(d.identity['live']))}, locked as "
                    f"{plain(ident(d.identity['locked']))} (reported apart, not drift)",
                )
            )
    n = summary_counts(diffs)
    out.append(
        f"mcplock diff: {n['servers']} server(s): {n['drift']} with drift, {n['unreachable']} unreachable, "
        f"{n['pending']} pending review (exit {exit_code})"
    )
    return "\n".join(out) + "\n"


def check_github(
    findings: list[Finding],
    lock: Lock,
    lockfile: str,
    exit_code: int,
    *,
    lock_text: str | None = None,
    path: str | None = None,
    warnings: list[Finding] | None = None,
) -> str:
    """Problems as annotations at their level, then ``warnings`` (they never fail the gate) as
    ``warning`` annotations, then the summary line."""
    file = path or lockfile
    lines = Lines(lock_text)
    warnings = warnings or []
    out: list[str] = []
    for f in [*findings, *warnings]:
        what = plain(target(f.server, f.kind, f.name or "")) if f.kind else plain(f.server)
        out.append(
            _gh(
                GITHUB_LEVEL[CHECK_LEVEL.get(f.code, "warning")],
                file,
                lines.of(f.table),
                f"mcplock {check_rule(f.code)}: {what}",
                check_message(f),
            )
        )
    said = f", {len(warnings)} warning(s)" if warnings else ""
    out.append(f"mcplock check: {len(lock.servers)} server(s), {len(findings)} problem(s){said} (exit {exit_code})")
    return "\n".join(out) + "\n"
