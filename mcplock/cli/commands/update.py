"""`mcplock outdated` and `mcplock update`: package pins against their registries."""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING

import typer
from rich.text import Text

from mcplock.cli import context, progress
from mcplock.cli.options import ALLOW_CODE_ENV, MIN_AGE, ORG_POLICY, OUTPUT_HELP, ProbeArgs, probing
from mcplock.cli.progress import report_failure
from mcplock.text.untrusted import safe_text, sanitize

if TYPE_CHECKING:
    from mcplock.core.probing import Results
    from mcplock.core.update import Row
    from mcplock.errors import ProbeError
    from mcplock.lock.model import ServerEntry
    from mcplock.lock.review import StageResult
    from mcplock.lock.spec import ServerSpec


def cmd_outdated(
    ctx: typer.Context,
    names: list[str] | None = typer.Argument(None, metavar="[NAME]…"),
    fmt: str = typer.Option("text", "--format", help="text or json."),
    min_age: float | None = MIN_AGE,
    policy: str | None = ORG_POLICY,
) -> int:
    """Pinned servers behind their registry (npm, PyPI, an image tag's digest), each newer release
    screened (minimum age, OSV malware and vulnerabilities, install scripts, deprecated or yanked).
    Exit 1 when any is behind or runs a registry package unpinned, like `pnpm outdated` (a release
    held or refused by screening is shown, not counted); 3 when a registry could not answer."""
    from mcplock.core.update import outdated
    from mcplock.lock.read import load
    from mcplock.lock.targets import select

    cli = context.of(ctx)
    cli.report_format("outdated", fmt, ("text", "json"))
    rows = outdated(select(load(cli.lockfile), list(names or [])))
    screen(rows, policy, min_age)
    behind = [r for r in rows if r.status in ("behind", "unpinned")]
    errors = [r for r in rows if r.status == "error"]
    code = _outdated_code(behind, errors)
    if fmt == "json":
        _write_outdated_json(cli, rows, code, behind=len(behind), errors=len(errors))
    else:
        _say_outdated(cli, rows, behind, errors)
    return code


def _write_outdated_json(cli: context.Cli, rows: list[Row], code: int, *, behind: int, errors: int) -> None:
    """`outdated --format json`: every server's row, and how many are behind or failed."""
    cli.write_json(
        {
            "version": 1,
            "command": "outdated",
            "lockfile": cli.lockfile,
            "exit_code": code,
            "servers": [r.as_json() for r in rows],
            "summary": {"servers": len(rows), "behind": behind, "errors": errors},
        }
    )


def _outdated_code(behind: list[Row], errors: list[Row]) -> int:
    """`outdated`'s exit code: 1 when a server is behind (or unpinned), else 3 when a registry
    could not answer, else 0."""
    if behind:
        return 1
    return 3 if errors else 0


def _say_outdated(cli: context.Cli, rows: list[Row], behind: list[Row], errors: list[Row]) -> None:
    """The table of servers that run a registry package, each registry that failed, and what to run."""
    shown = [r for r in rows if r.status != "local"]
    if not shown:
        cli.say("no server runs a registry package (nothing to pin)")
        return
    cli.say(_outdated_table(shown))
    for r in errors:
        if r.error is not None:
            report_failure(cli, r.server, r.error)
    say_screening(cli, rows)
    if behind:
        cli.info("move them with `mcplock update [NAME…]`; the new releases' definitions are staged for review")


STATUS_STYLE = {
    "behind": "yellow",
    "unpinned": "yellow",
    "error": "red",
    "up-to-date": "green",
    "held": "yellow",
    "refused": "red",
}


def screen(rows: list[Row], policy: str | None, min_age: float | None) -> float:
    """Screen the releases ``rows`` would move to (:mod:`mcplock.core.screening`); the minimum age used."""
    from mcplock.core.screening import screen_rows
    from mcplock.core.update_policy import min_age as resolve_min_age
    from mcplock.trust import org_policy

    days = resolve_min_age(org_policy.resolve(policy), min_age)
    screen_rows(rows, days)
    return days


def say_screening(cli: context.Cli, rows: list[Row]) -> None:
    """What screening found about each newer release, escaped: on stderr as notes."""
    from mcplock.render.screening import text_lines

    for r in rows:
        lines = text_lines(r.server, r.screen.as_json() if r.screen is not None else None)
        if lines:
            cli.info(Text().append_text(safe_text(f"{r.server} {r.package} {r.latest}:", keep_newlines=False)))
        for line, style in lines:
            cli.info(safe_text(line, style))


def _outdated_table(shown: list[Row]) -> Text:
    """One row per server that runs a registry package: its package, current and latest release,
    and status (the status cell coloured)."""
    heads = ("server", "package", "current", "latest", "status")
    table = [(r.server, f"{r.registry} {r.package}", r.current or "-", r.latest or "-", r.status) for r in shown]
    widths = [max(len(h), *(len(sanitize(row[k])) for row in table)) + 2 for k, h in enumerate(heads)]
    out = Text("".join(h.ljust(w) for h, w in zip(heads, widths, strict=True)).rstrip() + "\n", style="bold")
    for row in table:
        out.append_text(_table_line(row, widths))
    out.rstrip()
    return out


def _table_line(row: tuple[str, ...], widths: list[int]) -> Text:
    """One server's line: each cell padded to its column (the status, last, as it is and coloured)."""
    line = Text()
    for k, cell in enumerate(row):
        style = STATUS_STYLE.get(cell, "")
        line.append_text(safe_text(sanitize(cell).ljust(widths[k]) if k < 4 else cell, style, keep_newlines=False))
    line.append("\n")
    return line


def move_pins(
    cli: context.Cli, selected: list[ServerEntry], rows: list[Row], probe: ProbeArgs, *, again: set[str]
) -> tuple[dict[str, ServerSpec], list[tuple[str, StageResult]], dict[str, ProbeError], Results, list[ServerEntry]]:
    """Move the pins of ``rows`` behind (and of the servers in ``again``) in ``cli.lockfile``:
    install the new releases, probe them, stage their definitions as pending and write the pins
    of the servers whose probe succeeded (`update`, and `update-pr` in its worktree). Returns the
    specs moved, the staged results per server, the failures, the probe results, and the entries
    whose command line was rewritten (an MCP Registry entry's, or one that named the old release)."""
    from mcplock.core import refresh as core_refresh
    from mcplock.core import update as core_update

    moving = core_update.new_pins(rows, selected, cli.lock_dir, again=again)
    failed: dict[str, ProbeError] = {r.server: r.error for r in rows if r.error is not None}
    if not moving:
        return moving, [], failed, {}, []
    chosen = [s for s in selected if s.name in moving]
    the_plan = core_refresh.Plan([moving[s.name] for s in chosen], {})
    results = progress.probe(cli, the_plan.specs, probe.options(cli), login=probe.login)
    pins = {n: sp.package for n, sp in moving.items()}
    summary, probe_failed = core_refresh.apply(cli.lockfile, cli.lock_dir, chosen, results, the_plan, None, pins)
    failed.update(probe_failed)
    rewritten = core_update.record_registry(cli.lockfile, rows, {n for n, _ in summary})
    rewritten += core_update.record_command_lines(cli.lockfile, rows, {n for n, _ in summary})  # follows the pin
    return moving, summary, failed, results, rewritten


@probing()
def cmd_update(
    ctx: typer.Context,
    names: list[str] | None = typer.Argument(None, metavar="[NAME]…"),
    fmt: str = typer.Option("text", "--format", help="text, json or markdown (a pull request body)."),
    out_file: str | None = typer.Option(None, "--output", "-o", metavar="FILE", help=OUTPUT_HELP),
    policy: str | None = ORG_POLICY,
    allow_code_env: list[str] | None = ALLOW_CODE_ENV,
    min_age: float | None = MIN_AGE,
    *,
    probe: ProbeArgs,
) -> int:
    """Move package pins to the newest release, probe it, and stage its definition changes as
    pending (changed tools are quarantined until accepted). Exit 0 when done, even with
    proposals to review; 3 when a registry or a server could not be reached (its pin stays)."""
    from mcplock.core import update as core_update
    from mcplock.core.launch_gate import enforce_signing
    from mcplock.lock.read import load
    from mcplock.lock.targets import select
    from mcplock.render.update import render_update

    cli = context.of(ctx)
    _update_format(cli, fmt)
    enforce_signing(cli.lockfile, policy)  # [signing] require: an unsigned lock launches nothing
    selected = select(load(cli.lockfile), list(names or []))
    rows = core_update.outdated(selected)
    screen(rows, policy, min_age)  # held (too young) and refused releases do not move
    if fmt == "text":
        say_screening(cli, rows)
    again = set(names or [])  # named on the command line: pinned afresh even when up to date (`pnpm update PKG`)
    gate_moves(cli, _to_move(selected, rows, again), allow_code_env or (), command="update")
    moving, summary, failed, _, rewritten = move_pins(cli, selected, rows, probe, again=again)
    if summary:
        _trust_moved(cli, moving, summary, rewritten)
    code = 3 if failed else 0
    report = render_update(rows, dict(summary), failed, fmt, lockfile=cli.lockfile, exit_code=code)
    if fmt != "text":
        cli.emit_report(report, out_file, fmt, code)
    else:
        _say_update(cli, report, failed, summary)
    return code


def _trust_moved(
    cli: context.Cli,
    moving: dict[str, ServerSpec],
    summary: list[tuple[str, StageResult]],
    rewritten: list[ServerEntry],
) -> None:
    """The same command at its new release, run now with the person's consent: trusted as the old
    one was (a server from the MCP Registry: with its entry's new command line)."""
    from mcplock.core import trust as core_trust

    core_trust.trust(
        [moving[n] for n, _ in summary if n in moving] + [s.as_launched(cli.lock_dir) for s in rewritten],
        cli.lock_dir,
    )


def _update_format(cli: context.Cli, fmt: str) -> None:
    """`update --format`: text, json (the run's output is then JSON alone) or markdown."""
    if fmt not in ("text", "json", "markdown"):
        from mcplock.errors import UsageError

        raise UsageError(f"unknown format `{fmt}` for update", hint="use --format text|json|markdown")
    if fmt == "json":
        cli.json_mode("update", fmt)


def _say_update(
    cli: context.Cli, report: str, failed: dict[str, ProbeError], summary: list[tuple[str, StageResult]]
) -> None:
    """Each failure, the report, and (with proposals staged) how to review them."""
    for name, err in failed.items():
        report_failure(cli, name, err)
    cli.say(report)
    if any(res.proposals for _, res in summary):
        cli.info("review with `mcplock diff` / `mcplock show`, then `mcplock accept` or `mcplock reject`")


def _to_move(selected: list[ServerEntry], rows: list[Row], again: set[str]) -> list[ServerEntry]:
    """The servers whose pin moves (:func:`mcplock.core.update.to_move`)."""
    from mcplock.core.update import to_move

    return [s for s, r in zip(selected, rows, strict=True) if to_move(r, again)]


def gate_moves(cli: context.Cli, to_move: list[ServerEntry], allow_code_env: Collection[str], *, command: str) -> None:
    """What moves runs (its newest release is probed): only servers trusted in this project as
    locked, or in CI (`update`, `update-pr`); asked at a terminal. A launch that loads code through
    a variable runs only when a person trusted it here or the command names the variable."""
    from mcplock.cli.trust import guarded
    from mcplock.core import trust as core_trust
    from mcplock.core.launch_gate import refuse_code_env

    refuse_code_env([s.as_launched(cli.lock_dir) for s in to_move], cli.lock_dir, allow_code_env, command=command)

    guarded(
        cli,
        lambda: core_trust.gate(
            [s.as_launched(cli.lock_dir) for s in to_move],
            cli.lock_dir,
            how=core_trust.trust_command(cli.lockfile),
            reviewed=core_trust.reviewed(to_move, cli.lock_dir),
        ),
    )


def register(app: typer.Typer) -> None:
    app.command("outdated")(cmd_outdated)
    app.command("update")(cmd_update)
