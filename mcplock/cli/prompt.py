"""Waiting for a person at the terminal: every interactive question reads through here.

Ctrl-C while mcplock waits for an answer always stops the wait (a KeyboardInterrupt), whatever
SIGINT's disposition was when mcplock started: a parent that ran it with SIGINT ignored (``make
test &``, a background job, ``nohup``) would otherwise leave a person at a prompt whose Ctrl-C
does nothing. The disposition is restored once the answer is read.
"""

from __future__ import annotations

import contextlib
import signal
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console


@contextlib.contextmanager
def interruptible() -> Iterator[None]:
    """Ctrl-C raises KeyboardInterrupt inside the block (in the main thread)."""
    try:
        old = signal.signal(signal.SIGINT, signal.default_int_handler)
    except ValueError:  # not the main thread: signals are the main thread's to take
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


def read_line() -> str | None:
    """The line typed (with its newline), or None at the end of input."""
    with interruptible():
        line = sys.stdin.readline()
    return line or None


def confirm(console: Console, question: str, *, default: bool = False) -> bool:
    """Ask ``question`` (bold, on ``console``) and read the answer: yes for ``y`` or ``yes``, and
    for Enter alone (or the end of input) when ``default``."""
    from rich.text import Text

    with interruptible():  # before the question shows: a Ctrl-C typed as soon as it does counts
        console.print(Text(question, style="bold"), end="")
        answer = read_line()
    got = (answer or "").strip().lower()
    return got in ("y", "yes") or (default and not got)
