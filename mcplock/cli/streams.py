"""Standard output and error that a closed pipe cannot break.

``mcplock check | head -1`` (or ``| true``, or ``mcplock diff 2>&1 | head -3``, where the
progress on stderr meets the closed pipe first) closes the pipe before mcplock is done
writing. The command's answer is its exit code, not the lines nobody reads any more: a write
into a closed pipe is dropped silently (the stream now goes to /dev/null) and the command
finishes with the exit code it would have had.
"""

from __future__ import annotations

import contextlib
import os
from typing import Any, TextIO


class PipeSafe:
    """A text stream proxy: BrokenPipeError on write/flush points the fd at /dev/null."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self.closed_pipe = False

    def _drop(self) -> None:
        self.closed_pipe = True
        with contextlib.suppress(OSError, ValueError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self._stream.fileno())
            os.close(devnull)

    def write(self, s: str) -> int:
        try:
            return self._stream.write(s)
        except BrokenPipeError:
            self._drop()
            return len(s)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            self._drop()
            with contextlib.suppress(BrokenPipeError, OSError, ValueError):
                self._stream.flush()  # the buffer drains into /dev/null

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def guard_stdout() -> Any:
    """Replace ``sys.stdout`` and ``sys.stderr`` with :class:`PipeSafe` proxies (once); returns
    the stdout proxy."""
    import sys

    if not isinstance(sys.stdout, PipeSafe) and sys.stdout is not None:
        sys.stdout = PipeSafe(sys.stdout)
    if not isinstance(sys.stderr, PipeSafe) and sys.stderr is not None:
        sys.stderr = PipeSafe(sys.stderr)
    return sys.stdout
