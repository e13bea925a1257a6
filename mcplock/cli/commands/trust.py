"""`mcplock trust`: trust the servers of the lock to run in this project, on this machine."""

from __future__ import annotations

import typer
from rich.text import Text

from mcplock.cli import context
from mcplock.lock.spec import ServerSpec
from mcplock.text.untrusted import safe_text, shell_word


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
    from mcplock.core.refresh import launch_specs
    from mcplock.lock.read import load
    from mcplock.lock.targets import select

    cli = context.of(ctx)
    selected = select(load(cli.lockfile), list(names or []))
    specs = launch_specs(selected, cli.lock_dir)
    pending = core_trust.untrusted(specs, cli.lock_dir)  # what is new here
    held = [] if names else _held_for_code_env(cli, specs, pending)
    specs = [s for s in specs if s not in held]
    if _refused(cli, [s for s in pending if s in specs], yes=yes):
        cli.info("nothing trusted")
        return 1
    core_trust.trust(specs, cli.lock_dir)
    _say_trusted(cli, specs, pending)
    return 1 if held else 0


def _held_for_code_env(cli: context.Cli, specs: list[ServerSpec], pending: list[ServerSpec]) -> list[ServerSpec]:
    """A bulk trust never covers a launch that loads code through a variable: named, it is.
    The new ones of ``specs`` that do, each said."""
    from mcplock.core import trust as core_trust
    from mcplock.packages.envcode import of_spec

    held = [s for s in specs if s in pending and of_spec(s)]
    for spec in held:
        cli.err.print(
            Text("not trusted ", style="yellow").append_text(
                safe_text(
                    f"{core_trust.describe(spec)}: a variable of it loads code outside the package pin; review it, "
                    f"then trust it by name: `mcplock trust {shell_word(spec.name)}`",
                    keep_newlines=False,
                )
            )
        )
    return held


def _refused(cli: context.Cli, asked: list[ServerSpec], *, yes: bool) -> bool:
    """Whether the person said no: asked (at a terminal, without --yes) about the servers new here."""
    from mcplock.cli.trust import terminal

    return bool(asked) and terminal() and not yes and not _agreed(cli, asked)


def _agreed(cli: context.Cli, asked: list[ServerSpec]) -> bool:
    """At a terminal: the servers not trusted here yet, listed, and one question for all of them."""
    from mcplock.cli.prompt import confirm
    from mcplock.core import trust as core_trust

    n = len(asked)
    cli.err.print(
        Text(
            f"{'this server' if n == 1 else f'these {n} servers'} of the lock "
            f"{'has' if n == 1 else 'have'} not run in this project on this machine:",
            style="bold",
        )
    )
    for spec in asked:
        cli.err.print(Text("  ").append_text(safe_text(core_trust.describe(spec), keep_newlines=False)))
    return confirm(cli.err, f"trust {'it' if n == 1 else 'them'} to run here? [y/N] ")


def _say_trusted(cli: context.Cli, specs: list[ServerSpec], pending: list[ServerSpec]) -> None:
    from mcplock.core import trust as core_trust

    for spec in specs:
        if core_trust.needs_trust(spec):
            mark = "trusted " if spec in pending else "already trusted "
            cli.say(Text(mark).append_text(safe_text(core_trust.describe(spec), keep_newlines=False)))
    if not any(core_trust.needs_trust(s) for s in specs):
        cli.info("nothing to trust: these servers run no command and receive no variable")


def register(app: typer.Typer) -> None:
    app.command("trust")(cmd_trust)
