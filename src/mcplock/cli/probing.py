"""Commands that talk to servers (filled in with the probe module)."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    return None
