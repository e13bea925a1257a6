"""`mcplock remove`: drop servers from the lock."""

from __future__ import annotations

import typer
from rich.text import Text

from mcplock.cli import context
from mcplock.cli.commands.export import NO_EXPORT, keep_in_step
from mcplock.text.untrusted import safe_text


def cmd_remove(
    ctx: typer.Context, names: list[str] = typer.Argument(..., metavar="NAME…"), no_export: bool = NO_EXPORT
) -> int:
    """Drop servers from the lock."""
    from mcplock.core.review import remove

    cli = context.of(ctx)
    for name in remove(cli.lockfile, names):
        cli.say(Text("removed server ").append_text(safe_text(name, keep_newlines=False)))
    return keep_in_step(cli, no_export)


def register(app: typer.Typer) -> None:
    app.command("remove")(cmd_remove)
