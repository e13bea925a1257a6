"""`mcplock diff`: compare live servers with the lock (never writes)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer

from mcplock.cli import context, options, reports
from mcplock.cli.options import FORMAT_HELP, ORG_POLICY, OUTPUT_HELP, ProbeArgs, probing
from mcplock.cli.progress import load_and_probe
from mcplock.cli.trust import guarded
from mcplock.core.diff import diff_servers
from mcplock.errors import UsageError

if TYPE_CHECKING:
    from mcplock.core.check import Finding
    from mcplock.core.probing import Results
    from mcplock.lint.compare import ServerDiff
    from mcplock.lock.model import Lock, ServerEntry
    from mcplock.probe import ProbeOptions
    from mcplock.trust.org_policy import OrgPolicy

CLOAK_HELP = (
    "Probe each server again as each well-known host announces itself (Claude Code, Cursor, Codex, "
    "Gemini CLI, VS Code) and list again after a few requests in one session: a server that answers "
    "any of them otherwise than the first probe is a critical finding (exit 1). docs/protocol.md."
)
FAIL_ON_HELP = (
    "Exit 1 only when a drift change is SEVERITY or worse (critical, high, medium, low, info); "
    "pending review still fails. Default: any drift fails. Severities: docs/severity.md."
)


@probing()
def cmd_diff(
    ctx: typer.Context,
    names: list[str] | None = typer.Argument(None, metavar="[NAME]…"),
    fmt: str = typer.Option("text", "--format", help=FORMAT_HELP),
    out_file: str | None = typer.Option(None, "--output", "-o", metavar="FILE", help=OUTPUT_HELP),
    fail_on: str | None = typer.Option(None, "--fail-on", metavar="SEVERITY", help=FAIL_ON_HELP),
    report_to: list[str] | None = reports.option("diff"),
    policy: str | None = ORG_POLICY,
    cloak: bool = typer.Option(False, "--cloak", help=CLOAK_HELP),
    *,
    probe: ProbeArgs,
) -> int:
    """Compare live servers with the lock (never writes). Exit 1 on drift (with --fail-on: drift of that
    severity or worse), pending review or (with --cloak) a server that answers a host otherwise, 3 if
    unreachable. `diff OLD NEW` (two existing files: locks or mcp-surface.json statements) compares
    them with no server contacted: docs/publishers.md."""
    from mcplock.render import formats

    cli = context.of(ctx)
    cli.report_format("diff", fmt, formats.FORMATS)
    fail_on = options.fail_on_severity(fail_on, "mcplock diff --fail-on high")
    cli.check_output(out_file)  # before any work: never over the lock or a host config
    extra = reports.parse(cli, report_to)
    files = offline_files(cli, list(names or []))
    if files is not None:
        if cloak or policy:
            raise UsageError(
                "--cloak and --policy need live servers; `diff OLD NEW` compares two files",
                hint="drop the option, or run `mcplock diff [NAME…]` against the live servers",
            )
        from mcplock.cli.commands.diff_files import diff_files

        return diff_files(cli, files, fmt, out_file, fail_on, extra)
    from mcplock.trust import org_policy

    org = org_policy.resolve(policy)  # a broken policy: exit 2 before anything is probed
    from mcplock.trust.signing import enforce

    enforce(org, cli.lockfile)  # [signing] require: a lock no listed key signed is refused before any probe
    opts = probe.options(cli)
    lock, selected, results = guarded(
        cli,
        lambda: load_and_probe(
            cli, list(names or []), opts, use_stored_client=not probe.client_name, login=probe.login
        ),
    )
    cloaked = _probe_cloaked(cli, selected, results, opts, probe) if cloak else None
    diffs, code = diff_servers(lock, selected, results, fail_on, cloaked)
    violations = _policy_findings(org, lock, {s.name for s in selected})
    if violations and code in (0, 3):
        code = 1  # a violation is a finding; exit 3 means "unreachable and nothing else found"
    code = _proposed(cli, org, diffs, code, bool(violations))  # drift an open update-pr pull request proposes

    def report_of(f: str, text: str | None) -> str:
        report = formats.diff_report(
            f, diffs, cli.lockfile, code, lock_text=text, path=formats.artifact_path(cli.lockfile)
        )
        return _with_policy(f, report, violations)

    reports.write(cli, extra, code, report_of)
    if fmt != "text":
        cli.emit_report(report_of(fmt, cli.lock_text(fmt)), out_file, fmt, code)
        if fmt not in ("json", "markdown"):  # (those two carry the policy's findings themselves)
            _say_violations(cli, violations)
        return code
    _print_text(cli, diffs, violations, out_file, code)
    return code


def offline_files(cli: context.Cli, names: list[str]) -> tuple[str, str] | None:
    """`diff OLD NEW`: exactly two arguments, both existing files (never a server name: a name has
    no `/`, so `./NAME` always means the file). Two names that are both files and both servers of
    the lock are refused as ambiguous."""
    import os

    if len(names) != 2 or not all(os.path.isfile(n) for n in names):
        return None
    if all("/" not in n and os.sep not in n for n in names) and os.path.isfile(cli.lockfile):
        from mcplock.lock.read import load

        locked = load(cli.lockfile).servers
        if all(n in locked for n in names):
            raise UsageError(
                f"`{names[0]}` and `{names[1]}` are both files here and servers of {cli.lockfile}",
                hint=f"compare the files with `mcplock diff ./{names[0]} ./{names[1]}`, the servers "
                f"from another directory (`mcplock --lockfile {cli.lockfile} diff …`)",
            )
    return names[0], names[1]


def _probe_cloaked(
    cli: context.Cli, selected: list[ServerEntry], results: Results, opts: ProbeOptions, probe: ProbeArgs
) -> dict[str, list[Any]]:
    """--cloak: the servers probed again as each well-known host, and once more in one session."""
    from mcplock.core.diff import probe_cloaked

    cli.info("probing again as Claude Code, Cursor, Codex, Gemini CLI, VS Code, and once more in one session")
    return guarded(
        cli, lambda: probe_cloaked(cli.lockfile, selected, results, opts, use_stored_client=not probe.client_name)
    )


def _say_violations(cli: context.Cli, violations: list[Finding]) -> None:
    """The policy's findings, one line each, beside a report that does not hold them."""
    for v in violations:
        cli.info(f"policy: {v.message}; {v.hint}")


def _print_text(
    cli: context.Cli, diffs: list[ServerDiff], violations: list[Finding], out_file: str | None, code: int
) -> None:
    """The text report (on stdout, or into ``out_file`` with a note), then the policy's findings."""
    from mcplock.render.diff import render_diff

    rendered = render_diff(diffs, color=cli.color() and not out_file)
    if out_file:
        cli.write_rendered(out_file, rendered)
        cli.info(f"wrote the report to {out_file} (exit {code})")
    else:
        cli.out.print(rendered)
    if violations:
        from mcplock.render.text import render_findings

        cli.out.print(render_findings(violations))


def _proposed(cli: context.Cli, org: OrgPolicy | None, diffs: list[Any], code: int, violations: bool) -> int:
    """Name the drift an open `update-pr --drift` pull request proposes; with the policy's
    ``ci.proposed-drift = "warn"``, let exactly that drift pass (docs/updates.md)."""
    if not any(d.changes for d in diffs):
        return code
    from mcplock.core.proposed import gate, proposals
    from mcplock.core.update_policy import proposed_drift

    mode = proposed_drift(org)
    code, lines = gate(code, diffs, proposals(cli.lockfile, diffs), mode, violations or any(d.pending for d in diffs))
    from mcplock.text.untrusted import safe_text

    for line in lines:
        cli.info(safe_text(line, keep_newlines=False))
    return code


def _policy_findings(org: OrgPolicy | None, lock: Lock, names: set[str]) -> list[Finding]:
    """The organisation's policy over the servers diffed (docs/policy.md)."""
    if org is None:
        return []
    from mcplock.core.check import policy_findings
    from mcplock.lock.model import Lock

    return policy_findings(org, Lock({n: s for n, s in lock.servers.items() if n in names}, path=lock.path))


def _with_policy(fmt: str, report: str, violations: list[Finding]) -> str:
    """The JSON report carries the policy's findings under `policy`, the Markdown one a section of
    its own (the others: on stderr)."""
    if not violations or fmt not in ("json", "markdown"):
        return report
    if fmt == "markdown":
        from mcplock.render.formats.markdown import md_text

        lines = ["", f"### ❌ the organisation's policy: {len(violations)} violation(s)", ""]
        lines += [f"- {md_text(v.message)} — {md_text(v.hint)}" for v in violations]
        return report.rstrip("\n") + "\n" + "\n".join(lines) + "\n"
    import json

    from mcplock.render.formats.json import dumps

    doc = json.loads(report)
    doc["policy"] = [v.as_json() for v in violations]
    return dumps(doc)


def register(app: typer.Typer) -> None:
    app.command("diff")(cmd_diff)
