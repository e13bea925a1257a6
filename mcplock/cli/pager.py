"""`show` at a terminal pages what is taller than the screen, as `git show` does (issue 42.12: the
change is shown whole, so a long one must stay readable).

The pager is ``$MCPLOCK_PAGER``, else ``$PAGER``, else ``less`` (run by the shell, as git runs its
pager), with ``LESS=FRX`` unless ``LESS`` is set: a screenful or less is printed and ``less`` quits,
colours pass, the screen is not cleared. ``MCPLOCK_PAGER=cat`` (or an empty one) turns paging off;
off a terminal nothing is paged. Ctrl-C belongs to the pager while it runs (mcplock waits for it).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
from typing import Any

from mcplock.cli.context import Cli

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def page(cli: Cli, renderable: Any) -> None:
    """Print ``renderable`` on stdout, through the pager when it is taller than the terminal."""
    command = os.environ.get("MCPLOCK_PAGER", os.environ.get("PAGER", "less")).strip()
    if not _terminal() or command in ("", "cat"):
        cli.out.print(renderable)
        return
    with cli.out.capture() as captured:
        cli.out.print(renderable)
    text = captured.get()
    size = shutil.get_terminal_size()
    if _rows(text, size.columns) < size.lines:
        sys.stdout.write(text)
        return
    _run(command, text)


def _terminal() -> bool:
    try:
        return sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


def _rows(text: str, columns: int) -> int:
    """How many screen rows ``text`` takes at ``columns`` (the terminal wraps long lines)."""
    from rich.cells import cell_len

    width = max(1, columns)
    return sum(max(1, -(-cell_len(_ANSI.sub("", line)) // width)) for line in text.split("\n"))


def _run(command: str, text: str) -> None:
    env = dict(os.environ)
    env.setdefault("LESS", "FRX")
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the pager's to take
    try:
        sys.stdout.flush()
        subprocess.run(command, shell=True, input=text.encode("utf-8", "replace"), env=env, check=False)
    except OSError:  # no shell, no pager: print it
        sys.stdout.write(text)
    finally:
        signal.signal(signal.SIGINT, old)
