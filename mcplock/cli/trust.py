"""Asking a person to trust what would run (the core decides what needs trust:
:mod:`mcplock.core.trust`).

At a terminal the exact command lines and URLs are shown, with the names of the variables
they receive, and one question is asked; off a terminal the :class:`UntrustedError` stands
(exit 2), naming what would run and the command that trusts it. Untrusted text (commands
from a file) reaches the terminal only through :mod:`mcplock.text.untrusted`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TypeVar

from rich.text import Text

from mcplock.cli.context import Cli
from mcplock.errors import UntrustedError
from mcplock.text.untrusted import safe_text

T = TypeVar("T")


def terminal() -> bool:
    return sys.stdin.isatty() and sys.stderr.isatty()


def ask(cli: Cli, err: UntrustedError) -> bool:
    from mcplock.core.trust import describe

    n = len(err.specs)
    cli.err.print(
        Text(
            f"{'this server comes' if n == 1 else f'these {n} servers come'} from a file and "
            f"{'has' if n == 1 else 'have'} not run in this project on this machine:",
            style="bold",
        )
    )
    for spec in err.specs:
        cli.err.print(Text("  ").append_text(safe_text(describe(spec), keep_newlines=False)))
    from mcplock.cli.prompt import confirm

    return confirm(cli.err, f"trust {'it' if n == 1 else 'them'} and run? [y/N] ")


def guarded(cli: Cli, run: Callable[[], T]) -> T:
    """``run()``; when it stops at untrusted servers, ask at a terminal, record a yes and run
    again. Off a terminal, or on a no, the refusal stands."""
    from mcplock.core.trust import trust

    try:
        return run()
    except UntrustedError as e:
        if not terminal():
            raise
        if not ask(cli, e):
            raise UntrustedError("not trusted: nothing ran", specs=e.specs, hint=e.hint) from None
        trust(e.specs, cli.lock_dir)
        return run()
