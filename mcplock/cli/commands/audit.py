"""`mcplock audit`: what OSV reports about the releases this project's lock pins or launches."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from mcplock.cli import context, reports
from mcplock.cli.options import OUTPUT_HELP

if TYPE_CHECKING:  # pragma: no cover
    from mcplock.core.audit import Audit

FORMATS = ("text", "json", "markdown", "sarif", "github")


def cmd_audit(
    ctx: typer.Context,
    fail_on: str = typer.Option(
        "low",
        "--fail-on",
        metavar="LEVEL",
        help="Exit 1 on a vulnerability at or above LEVEL: critical, high, medium, low (default: any "
        "vulnerability) or info; `malware`: only malware fails. Malware always fails.",
    ),
    fmt: str = typer.Option(
        "text", "--format", help="text, json, markdown (step summaries), sarif (code scanning) or github (annotations)."
    ),
    out_file: str | None = typer.Option(None, "--output", "-o", metavar="FILE", help=OUTPUT_HELP),
    report_to: list[str] | None = reports.option("audit"),
) -> int:
    """Ask OSV about every exact release the lock pins or launches: malware, then vulnerabilities.

    Only package names and versions leave the machine (MCPLOCK_OSV_URL, default https://api.osv.dev).
    Exit 0: nothing at or above --fail-on; 1: malware, or a vulnerability at or above --fail-on;
    3: OSV did not answer for a release (unknown, never read as clean); 2: the lock cannot be read."""
    from mcplock.core.audit import FAIL_ON, run_audit
    from mcplock.errors import UsageError
    from mcplock.lock.read import load
    from mcplock.render import audit as render

    cli = context.of(ctx)
    cli.report_format("audit", fmt, FORMATS)
    if fail_on not in FAIL_ON:
        raise UsageError(f"unknown --fail-on level `{fail_on}`", hint=f"use --fail-on {'|'.join(FAIL_ON)}")
    cli.check_output(out_file)
    extra = reports.parse(cli, report_to)
    path = cli.lockfile
    lock = load(path)
    audit = run_audit(lock, path, fail_on)  # one question to OSV feeds --format and every --report
    code = audit.exit_code
    reports.write(cli, extra, code, lambda f, text: _report(audit, f, text, path))
    if fmt == "text":
        lines = render.audit_text(audit)
        if out_file:
            cli.write_rendered(out_file, *lines)
            cli.info(f"wrote the report to {out_file} (exit {code})")
        else:
            for line in lines:
                cli.out.print(line)
        return code
    cli.emit_report(_report(audit, fmt, cli.lock_text(fmt), path), out_file, fmt, code)
    return code


def _report(audit: Audit, fmt: str, lock_text: str | None, path: str) -> str:
    from mcplock.render import audit as render
    from mcplock.render.formats import artifact_path
    from mcplock.render.formats.json import dumps

    if fmt == "json":
        return dumps(render.audit_json(audit))
    if fmt == "markdown":
        return render.audit_markdown(audit)
    if fmt == "sarif":
        return dumps(render.audit_sarif(audit, lock_text=lock_text, uri=artifact_path(path)))
    return render.audit_github(audit, lock_text=lock_text, path=artifact_path(path))


def register(app: typer.Typer) -> None:
    app.command("audit")(cmd_audit)
