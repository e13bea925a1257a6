"""Waiting for a person's input at the terminal (:mod:`mcplock.cli.prompt` reads lines,
:mod:`mcplock.cli.keys` reads keys; both wait here).

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
from collections.abc import Iterator


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
