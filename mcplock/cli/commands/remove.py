"""`mcplock remove`: drop servers from the lock."""

from __future__ import annotations

import typer
from rich.text import Text

from mcplock.cli import context
from mcplock.untrusted import safe_text


def cmd_remove(ctx: typer.Context, names: list[str] = typer.Argument(..., metavar="NAME…")) -> int:
    """Drop servers from the lock."""
    from mcplock.lock.store import transaction
    from mcplock.lock.targets import server_of

    cli = context.of(ctx)
    with transaction(cli.lockfile) as lock:
        for name in names:
            server_of(lock, name)
        for name in names:
            del lock.servers[name]
            cli.say(Text("removed server ").append_text(safe_text(name, keep_newlines=False)))
    return 0


def register(app: typer.Typer) -> None:
    app.command("remove")(cmd_remove)
