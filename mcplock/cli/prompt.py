"""Waiting for a person at the terminal: every interactive question reads through here.

Ctrl-C while mcplock waits for an answer always stops the wait (a KeyboardInterrupt), whatever
SIGINT's disposition was when mcplock started: a parent that ran it with SIGINT ignored (``make
test &``, a background job, ``nohup``) would otherwise leave a person at a prompt whose Ctrl-C
does nothing. The disposition is restored once the answer is read.

The wait itself is a ``select`` on the terminal and on a wakeup pipe (``signal.set_wakeup_fd``),
never a bare blocking read: the kernel hands a Ctrl-C to any thread of the process that does not
block SIGINT (asyncio's child-watcher thread waiting on a server mcplock started, an executor
thread), and Python runs the handler only when the main thread comes back to Python code. A main
thread blocked in ``read`` would not: the question would hang with Ctrl-C lost (seen as a rare
hang of ``mcplock call``'s form; ``tests/test_call_elicit.py`` sends the SIGINT to that thread).
"""

from __future__ import annotations

import contextlib
import os
import select
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


def wait_readable(fd: int) -> None:
    """Until ``fd`` has input, or until a signal reaches any thread of the process: its Python
    handler then runs here, in the main thread (Ctrl-C's KeyboardInterrupt in an
    :func:`interruptible` block). Signals meant for an earlier wakeup fd (asyncio's) are passed on
    to it. Off the main thread this returns at once (the caller's read blocks as before)."""
    r, w = os.pipe()
    try:
        os.set_blocking(w, False)
        os.set_blocking(r, False)
        try:
            old = signal.set_wakeup_fd(w, warn_on_full_buffer=False)
        except ValueError:  # not the main thread
            return
        try:
            while fd not in select.select([fd, r], [], [])[0]:
                _pass_on(r, old)  # a signal whose handler did not raise: wait on
        finally:
            signal.set_wakeup_fd(old)
            _pass_on(r, old)
    finally:
        os.close(r)
        os.close(w)


def _pass_on(r: int, old: int) -> None:
    """Empty the wakeup pipe ``r``; what it held goes on to the wakeup fd before ours, if any."""
    with contextlib.suppress(BlockingIOError):
        got = os.read(r, 512)
        if old != -1 and got:
            with contextlib.suppress(OSError):
                os.write(old, got)


def read_line() -> str | None:
    """The line typed (with its newline), or None at the end of input."""
    with interruptible():
        if _stdin_is_terminal():  # a terminal's read gives one line at most: nothing is left buffered
            wait_readable(sys.stdin.fileno())
        line = sys.stdin.readline()
    return line or None


def _stdin_is_terminal() -> bool:
    try:
        return sys.stdin.isatty()
    except (AttributeError, ValueError):  # closed or replaced streams
        return False


def confirm(console: Console, question: str, *, default: bool = False) -> bool:
    """Ask ``question`` (bold, on ``console``) and read the answer: yes for ``y`` or ``yes``, and
    for Enter alone (or the end of input) when ``default``."""
    from rich.text import Text

    with interruptible():  # before the question shows: a Ctrl-C typed as soon as it does counts
        console.print(Text(question, style="bold"), end="")
        answer = read_line()
    got = (answer or "").strip().lower()
    return got in ("y", "yes") or (default and not got)
