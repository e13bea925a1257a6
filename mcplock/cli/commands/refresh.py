"""`mcplock refresh`: probe again and stage upstream changes for review."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer
from rich.text import Text

from mcplock.cli import context, progress
from mcplock.cli.options import ALLOW_CODE_ENV, ORG_POLICY, ProbeArgs, probing
from mcplock.cli.progress import report_failure
from mcplock.cli.trust import guarded
from mcplock.core import refresh as core_refresh
from mcplock.core import trust as core_trust
from mcplock.text.untrusted import safe_text

if TYPE_CHECKING:
    from collections.abc import Mapping

    from mcplock.core.probing import Results
    from mcplock.errors import ProbeError
    from mcplock.lock.model import Publisher, ServerEntry
    from mcplock.lock.review import StageResult
    from mcplock.lock.spec import ServerSpec


@probing()
def cmd_refresh(
    ctx: typer.Context,
    names: list[str] | None = typer.Argument(None, metavar="[NAME]…"),
    policy: str | None = ORG_POLICY,
    allow_code_env: list[str] | None = ALLOW_CODE_ENV,
    *,
    probe: ProbeArgs,
) -> int:
    """Probe again and stage upstream changes as pending; changed tools are quarantined (disabled)."""
    from mcplock.core.launch_gate import enforce_signing, refuse_code_env
    from mcplock.lock.read import load
    from mcplock.lock.targets import select

    cli = context.of(ctx)
    enforce_signing(cli.lockfile, policy)  # [signing] require: an unsigned lock launches nothing
    selected = select(load(cli.lockfile), list(names or []))
    plan = core_refresh.plan(selected, cli.lock_dir, use_stored_client=not probe.client_name)
    # what runs is the lock's spec, or a host config's as it is now: trusted here, or in CI as locked
    refuse_code_env(plan.specs, cli.lock_dir, allow_code_env or (), command="refresh")
    guarded(
        cli,
        lambda: core_trust.gate(
            plan.specs,
            cli.lock_dir,
            how=core_trust.trust_command(cli.lockfile),
            reviewed=core_trust.reviewed(selected, cli.lock_dir),
        ),
    )
    client = probe.client()
    opts = probe.options(cli)
    from mcplock.core.update import requested_pins

    repinned, unresolved = requested_pins(plan.specs, opts.environ)  # a version bumped in the command
    plan.specs = [repinned.get(sp.name, sp) for sp in plan.specs if sp.name not in unresolved]
    results = progress.probe(cli, plan.specs, opts, login=probe.login) if plan.specs else {}
    results.update(unresolved)
    pins = {n: sp.package for n, sp in repinned.items()}
    vouched = _vouched(selected, results, opts.environ)
    summary, failed = core_refresh.apply(cli.lockfile, cli.lock_dir, selected, results, plan, client, pins, vouched)
    _say_repinned(cli, repinned, failed)
    _say_summary(cli, failed, summary)
    if any(getattr(err, "exit_code", 3) == 2 for err in failed.values()):
        return 2  # a command, script or working directory not on this machine: an input error
    return 3 if failed else 0


def _vouched(
    selected: list[ServerEntry], results: Results, environ: Mapping[str, str] | None
) -> dict[str, Publisher | None]:
    """The servers whose pinned package ships a publisher statement, checked against what they
    answered (docs/publishers.md): its lines on stderr (a difference is critical, said even with
    -q); server -> the key that vouched, or None."""
    from mcplock.model.snapshot import Snapshot
    from mcplock.publish.vouch import check_servers

    answered = [s for s in selected if isinstance(results.get(s.name), Snapshot)]
    check_servers([(s, results[s.name]) for s in answered], environ, progress.say_plain)
    return {s.name: s.publisher for s in answered}


def _say_summary(cli: context.Cli, failed: dict[str, ProbeError], summary: list[tuple[str, StageResult]]) -> None:
    """Each failure, each server refreshed, and (with proposals staged) how to review them."""
    for name, err in failed.items():
        report_failure(cli, name, err)
    for name, res in summary:
        _say_refreshed(cli, name, res)
    if any(res.proposals for _, res in summary):
        cli.info("review with `mcplock diff` / `mcplock show`, then `mcplock accept` or `mcplock reject`")


def _say_repinned(cli: context.Cli, repinned: dict[str, ServerSpec], failed: dict[str, ProbeError]) -> None:
    """The servers whose command names another version now, pinned to it (those that probed)."""
    for name, sp in repinned.items():
        if name not in failed and sp.package is not None:
            cli.info(
                Text("re-pinned ")
                .append_text(safe_text(f"{name} to {sp.package.label}", keep_newlines=False))
                .append(" (the version its command names)")
            )


def _say_refreshed(cli: context.Cli, name: str, res: StageResult) -> None:
    """A server's line (what is pending review, or up to date), then each tool quarantined."""
    line = Text().append_text(safe_text(name, keep_newlines=False))
    if res.proposals:
        line.append(
            f": {len(res.new)} new, {len(res.changed)} changed, {len(res.removed)} removed — pending review",
            style="yellow",
        )
    else:
        line.append(": up to date", style="green")
    cli.say(line)
    for item in res.changed:
        # a quarantine is a result, not progress: said even with -q (on stderr, as a warning)
        why = "its stored definition failed its hash" if item in res.tampered else "changed upstream"
        cli.err.print(Text(f"  quarantined ({why}): ").append_text(safe_text(f"{name}/{item}", keep_newlines=False)))


def register(app: typer.Typer) -> None:
    app.command("refresh")(cmd_refresh)
