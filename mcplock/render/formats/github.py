"""``--format github`` of ``diff`` and ``check``: workflow-command annotations
(``::error file=…,line=…,title=…::message``) on the lock's lines, then a summary line."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mcplock.model.severity import GITHUB_LEVEL, github_level
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
from mcplock.text.untrusted import visible

if TYPE_CHECKING:  # pragma: no cover
    from mcplock.core.check import Finding
    from mcplock.lint.compare import Change, Cloaked, PendingItem, ServerDiff
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


def _gh_unreachable(d: ServerDiff, file: str, lines: Lines) -> str:
    return _gh(
        "warning", file, lines.of(("server", d.name)), f"mcplock unreachable: {plain(d.name)}", unreachable_message(d)
    )


def _gh_change(server: str, c: Change, file: str, lines: Lines) -> list[str]:
    """A drifted item's annotation at its line, then one per security finding on its new text."""
    line = lines.item(server, c.kind, c.name)
    t = plain(target(server, c.kind, c.name))
    head = _gh(
        github_level(c.severity),
        file,
        line,
        f"mcplock {drift_rule(c.kind, c.change)} ({c.severity}): {t}",
        change_message(server, c),
    )
    return [head, *_finding_lines(server, c, file, line, t)]


def _gh_cloak(server: str, k: Cloaked, file: str, lines: Lines) -> str:
    """What another host's identity is answered otherwise (``diff --cloak``), at the server's line."""
    return _gh(
        github_level(k.severity),
        file,
        lines.of(("server", server)),
        f"mcplock cloaking ({k.severity}): {plain(server)}/{plain(k.name)}",
        f"server `{plain(server)}`, {plain(k.kind)} `{plain(k.name)}`: {plain(k.message)}",
    )


def _gh_pending(server: str, p: PendingItem, file: str, lines: Lines) -> list[str]:
    """A staged item's annotation at its line, then its staged change's findings (they still count)."""
    t = plain(target(server, p.kind, p.name))
    line = lines.item(server, p.kind, p.name)
    out = [
        _gh("warning", file, line, f"mcplock {PENDING_RULE}: {t}", pending_message(server, p.kind, p.name, p.change))
    ]
    if p.detail is not None:
        out += _finding_lines(server, p.detail, file, line, t)
    return out


def _gh_identity(d: ServerDiff, identity: dict[str, Any], file: str, lines: Lines) -> str:
    return _gh(
        "notice",
        file,
        lines.of(("server", d.name)),
        f"mcplock identity: {plain(d.name)}",
        f"server `{plain(d.name)}` reports {plain(ident(identity['live']))}, locked as "
        f"{plain(ident(identity['locked']))} (reported apart, not drift)",
    )


def _gh_server(d: ServerDiff, file: str, lines: Lines) -> list[str]:
    """A server's annotations: unreachable, its drift, cloaking, its pending items, an identity change."""
    out = [_gh_unreachable(d, file, lines)] if d.error is not None else []
    for c in d.changes:
        out += _gh_change(d.name, c, file, lines)
    out += [_gh_cloak(d.name, k, file, lines) for k in d.cloaked or ()]
    for p in d.pending:
        out += _gh_pending(d.name, p, file, lines)
    if d.identity is not None:
        out.append(_gh_identity(d, d.identity, file, lines))
    return out


def diff_github(
    diffs: list[ServerDiff], lockfile: str, exit_code: int, *, lock_text: str | None = None, path: str | None = None
) -> str:
    file = path or lockfile
    lines = Lines(lock_text)
    out: list[str] = []
    for d in diffs:
        out += _gh_server(d, file, lines)
    n = summary_counts(diffs)
    out.append(
        f"mcplock diff: {n['servers']} server(s): {n['drift']} with drift, {n['unreachable']} unreachable, "
        f"{n['pending']} pending review (exit {exit_code})"
    )
    return "\n".join(out) + "\n"


def _gh_check(f: Finding, file: str, lines: Lines) -> str:
    """A problem (or a warning) at its table's line, at its level; titled by its item, else its server."""
    what = plain(target(f.server, f.kind, f.name or "")) if f.kind else plain(f.server)
    return _gh(
        GITHUB_LEVEL[CHECK_LEVEL.get(f.code, "warning")],
        file,
        lines.of(f.table),
        f"mcplock {check_rule(f.code)}: {what}",
        check_message(f),
    )


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
    out = [_gh_check(f, file, lines) for f in [*findings, *warnings]]
    said = f", {len(warnings)} warning(s)" if warnings else ""
    out.append(f"mcplock check: {len(lock.servers)} server(s), {len(findings)} problem(s){said} (exit {exit_code})")
    return "\n".join(out) + "\n"
