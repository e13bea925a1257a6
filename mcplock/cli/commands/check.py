"""`mcplock check`: the offline gate for pre-commit."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer
from rich.text import Text

from mcplock.cli import context, reports
from mcplock.cli.options import FORMAT_HELP, ORG_POLICY, OUTPUT_HELP
from mcplock.text.untrusted import safe_text

if TYPE_CHECKING:
    from mcplock.core.check import Finding
    from mcplock.lock.model import Lock


def cmd_check(
    ctx: typer.Context,
    fmt: str = typer.Option("text", "--format", help=FORMAT_HELP),
    out_file: str | None = typer.Option(None, "--output", "-o", metavar="FILE", help=OUTPUT_HELP),
    report_to: list[str] | None = reports.option("check"),
    policy: str | None = ORG_POLICY,
) -> int:
    """Offline gate for pre-commit: hashes match, nothing pending, in sync with host configs.

    It reads files only: it never launches a server, never connects to one, and needs no trust."""
    from mcplock.core.check import code_env, critical_accepted, run_check
    from mcplock.lock.read import load
    from mcplock.render import formats

    cli = context.of(ctx)
    cli.report_format("check", fmt, formats.FORMATS)
    cli.check_output(out_file)  # before any work: never over the lock or a host config
    extra = reports.parse(cli, report_to)
    from mcplock.trust import org_policy

    org = org_policy.resolve(policy)  # a broken policy stops the run before anything is read (exit 2)
    path = cli.lockfile
    lock = load(path)
    findings = run_check(lock, path, org, policy)
    from mcplock.core.lookalikes import lookalike_warnings
    from mcplock.core.merge_install import merge_warnings

    # said, but they do not fail the gate
    warnings = code_env(lock) + critical_accepted(lock, findings) + lookalike_warnings(lock) + merge_warnings(path)
    code = 1 if findings else 0

    def report_of(f: str, text: str | None) -> str:
        return formats.check_report(
            f, findings, lock, path, code, lock_text=text, path=formats.artifact_path(path), warnings=warnings
        )

    reports.write(cli, extra, code, report_of)
    if fmt != "text":
        cli.emit_report(report_of(fmt, cli.lock_text(fmt)), out_file, fmt, code)
        return code
    return _say_check(cli, lock, findings, warnings, code, out_file)


def _verdict(lock: Lock, path: str, findings: list[Finding]) -> Text:
    """The last line: ok (what was verified), or how many problems."""
    if findings:
        return Text(f"{len(findings)} problem(s) in ", style="bold red").append_text(
            safe_text(path, "bold red", keep_newlines=False)
        )
    from mcplock.cli.fast_check import counted

    tools = sum(len(srv.tools) for srv in lock.servers.values())
    return (
        Text("ok: ")
        .append_text(safe_text(path, keep_newlines=False))
        .append(
            f": {counted(len(lock.servers), 'server')}, {counted(tools, 'tool')}, every hash matches, nothing pending"
        )
    )


def _say_check(
    cli: context.Cli, lock: Lock, findings: list[Finding], warnings: list[Finding], code: int, out_file: str | None
) -> int:
    """The text report: the findings and warnings, the verdict (into ``out_file`` when given),
    what the warnings are, and any drift evidence from runs."""
    from mcplock.render.text import render_findings

    path = cli.lockfile
    verdict = _verdict(lock, path, findings)
    listed = findings + warnings
    if out_file:
        from rich.console import Group

        cli.write_rendered(out_file, Group(render_findings(listed), verdict) if listed else verdict)
        cli.info(f"wrote the report to {out_file} (exit {code})")
        return code
    if listed:
        cli.out.print(render_findings(listed))
    cli.say(verdict)
    if warnings:
        cli.say(
            Text(
                f"{len(warnings)} warning(s): variables that load code, accepted items with critical "
                f"findings, look-alike names or a merge driver git skips (exit {code})",
                style="yellow",
            )
        )
    from mcplock.cli.commands.listing import drift_evidence, note_drift_evidence

    note_drift_evidence(cli, drift_evidence(path, lock))
    return code


def register(app: typer.Typer) -> None:
    app.command("check")(cmd_check)
