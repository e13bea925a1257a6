"""`mcplock trust`: trust the servers of the lock to run in this project, on this machine."""

from __future__ import annotations

import typer
from rich.text import Text

from mcplock.cli import context
from mcplock.untrusted import safe_text, shell_word


def cmd_trust(
    ctx: typer.Context,
    names: list[str] | None = typer.Argument(None, metavar="[NAME]…", help="Servers of the lock (default: all)."),
) -> int:
    """Trust the servers of the lock (their commands, URLs and the variables they receive) to
    run in this project on this machine. Runs nothing; a later change to a server asks again."""
    from mcplock.core import trust as core_trust
    from mcplock.lock.read import load
    from mcplock.lock.targets import select

    cli = context.of(ctx)
    selected = select(load(cli.lockfile), list(names or []))
    specs = core_trust.launch_specs(selected, cli.lock_dir)
    pending = core_trust.untrusted(specs, cli.lock_dir)  # what is new here
    held: list = []
    if not names:  # a bulk trust never covers a launch that loads code through a variable: named, it is
        from mcplock.packages.envcode import of_spec

        held = [s for s in specs if s in pending and of_spec(s)]
        for spec in held:
            cli.err.print(Text("not trusted ", style="yellow").append_text(safe_text(
                f"{core_trust.describe(spec)}: a variable of it loads code outside the package pin; review it, "
                f"then trust it by name: `mcplock trust {shell_word(spec.name)}`", keep_newlines=False)))
        specs = [s for s in specs if s not in held]
    core_trust.trust(specs, cli.lock_dir)
    for spec in specs:
        if core_trust.needs_trust(spec):
            mark = "trusted " if spec in pending else "already trusted "
            cli.say(Text(mark).append_text(safe_text(core_trust.describe(spec), keep_newlines=False)))
    if not any(core_trust.needs_trust(s) for s in specs):
        cli.info("nothing to trust: these servers run no command and receive no variable")
    return 1 if held else 0


def register(app: typer.Typer) -> None:
    app.command("trust")(cmd_trust)
