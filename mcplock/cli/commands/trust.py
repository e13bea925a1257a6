"""`mcplock trust`: trust the servers of the lock to run in this project, on this machine."""

from __future__ import annotations

import typer
from rich.text import Text

from mcplock.cli import context
from mcplock.untrusted import safe_text


def cmd_trust(
    ctx: typer.Context,
    names: list[str] | None = typer.Argument(None, metavar="[NAME]…", help="Servers of the lock (default: all)."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Do not ask at a terminal: trust what is listed."),
) -> int:
    """Trust the servers of the lock (their commands, URLs and the variables they receive) to
    run in this project on this machine. Runs nothing; a later change to a server asks again.

    After cloning a project: at a terminal it lists each server not trusted here yet — its
    command line or URL and the variables it receives — and asks once."""
    from mcplock.core import trust as core_trust
    from mcplock.lock.read import load
    from mcplock.lock.targets import select

    cli = context.of(ctx)
    selected = select(load(cli.lockfile), list(names or []))
    specs = core_trust.launch_specs(selected, cli.lock_dir)
    pending = core_trust.untrusted(specs, cli.lock_dir)  # what is new here
    from mcplock.cli.trust import terminal

    if pending and terminal() and not yes:
        from mcplock.cli.prompt import interruptible, read_line

        n = len(pending)
        cli.err.print(Text(f"{'this server' if n == 1 else f'these {n} servers'} of the lock "
                           f"{'has' if n == 1 else 'have'} not run in this project on this machine:", style="bold"))
        for spec in pending:
            cli.err.print(Text("  ").append_text(safe_text(core_trust.describe(spec), keep_newlines=False)))
        with interruptible():
            cli.err.print(Text(f"trust {'it' if n == 1 else 'them'} to run here? [y/N] ", style="bold"), end="")
            answer = read_line()
        if (answer or "").strip().lower() not in ("y", "yes"):
            cli.info("nothing trusted")
            return 1
    core_trust.trust(specs, cli.lock_dir)
    for spec in specs:
        if core_trust.needs_trust(spec):
            mark = "trusted " if spec in pending else "already trusted "
            cli.say(Text(mark).append_text(safe_text(core_trust.describe(spec), keep_newlines=False)))
    if not any(core_trust.needs_trust(s) for s in specs):
        cli.info("nothing to trust: these servers run no command and receive no variable")
    return 0


def register(app: typer.Typer) -> None:
    app.command("trust")(cmd_trust)
