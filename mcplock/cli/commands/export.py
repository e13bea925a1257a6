"""`mcplock export`: write the lock's per-tool flags into the hosts' project settings."""

from __future__ import annotations

import typer
from rich.text import Text

from mcplock.cli import context
from mcplock.cli.options import ORG_POLICY
from mcplock.untrusted import safe_text

HOST_HELP = (
    "A host to export to (repeatable): claude-code, codex, gemini, opencode, cursor. "
    "Default: every host whose project config exists."
)


def cmd_export(
    ctx: typer.Context,
    hosts: list[str] = typer.Option([], "--host", metavar="HOST", help=HOST_HELP),
    guard: bool | None = typer.Option(
        None,
        "--guard/--no-guard",
        help="Launch each locked server through `mcplock run NAME` (--no-guard restores the original entry).",
    ),
    dry_run: bool = typer.Option(
        False, "--dry-run", help="Print the change as a diff, write nothing; exit 1 if anything would change."
    ),
    policy: str | None = ORG_POLICY,
) -> int:
    """Write the lock's flags into each host's own permission settings (see docs/export.md).

    Disabled or unreviewed tools are denied, `approval = "always"` asks, `"never"` is allowed.
    Only the rules mcplock wrote are ever changed; a second run changes nothing.
    """
    from mcplock import orgpolicy
    from mcplock.core import export as core
    from mcplock.lock.read import load

    cli = context.of(ctx)
    org = orgpolicy.resolve(policy)  # a tool it denies is written as deny, whatever the lock says
    from mcplock.core.check import verified

    lock = verified(load(cli.lockfile), cli.lockfile)  # a hand-edited lock is not exported
    command = "mcplock"
    if guard:
        from mcplock.core.export_guard import guard_command

        command = guard_command()
        if command != "mcplock":
            cli.note(f"the `mcplock` on PATH is not this one (or there is none): host entries launch {command}, "
                     "a path of this machine; put this mcplock on PATH and export again for entries a teammate "
                     "can use")
    plan = core.plan(lock, cli.lockfile, hosts, guard=guard, command=command, org=org)
    if not plan.changes:
        cli.info("no host config found in this project; name one with --host " + "|".join(core.EXPORTERS))
        return 0
    for c in plan.changes:
        for n in c.notes:
            cli.note(n)
        for n in c.contradictions:
            cli.note(f"{c.path}: {n} (your own setting: mcplock leaves it; `mcplock check` reports it)")
    if dry_run:
        for c in plan.changes:
            if c.changed:
                cli.out.print(safe_text(c.diff()), end="")
        if plan.record_before != plan.record_after:
            cli.info(f"the export record {plan.record} would be updated")
        return 1 if plan.changed else 0
    written = core.write(plan)
    for c in plan.changes:
        verb = "updated" if c.changed else "unchanged"
        cli.say(Text(f"{verb} ").append_text(safe_text(c.path, keep_newlines=False)).append(f" ({c.host})"))
    if not written:
        cli.info("everything was already in sync with the lock")
    return 0


def register(app: typer.Typer) -> None:
    app.command("export")(cmd_export)
