"""The console script on a real pseudo-terminal: the one pty driver of the suite.

``Pty`` waits for a text, then types (``expect``/``send``/``wait``). ``answer`` runs a command to
the end, typing one answer at each question it asks. A question is recognised by what mcplock's
questions look like (cli/prompt.py, cli/walk.py, cli/trust.py): the last thing printed, once colour
codes are stripped, is a line with a ``?`` that ends in ``"] "`` (or ``"]: "``) — mcplock then blocks reading, so
the end of the output is stable. Nothing here is timed: ``timeout`` only keeps a broken run from
hanging the suite, and a run that passes it fails with what it printed.
"""

from __future__ import annotations

import os
import re
import select
import signal
import time
from collections.abc import Mapping, Sequence

from conftest import MCPLOCK

_ANSI = re.compile(rb"\x1b\[[0-9;?]*[A-Za-z]")
_QUESTION = re.compile(rb"\?[^\n]*\]:? $")


def default_env() -> dict[str, str]:
    return {**os.environ, "NO_COLOR": "1", "COLUMNS": "200"}


class Pty:
    """``mcplock ARGS`` (or ``argv``) on a pseudo-terminal of its own."""

    def __init__(
        self,
        *args: str,
        argv: Sequence[str] | None = None,
        env: Mapping[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        sigint: object = signal.SIG_DFL,
    ) -> None:
        import pty

        argv = list(argv) if argv is not None else [MCPLOCK, *args]
        environ = dict(env) if env is not None else default_env()
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # child
            # a terminal session starts with Ctrl-C live; a test run started in the background
            # (`make test &`) would hand down SIGINT ignored, and Python keeps an inherited ignore
            # (``sigint``: the disposition the program starts with)
            signal.signal(signal.SIGINT, sigint)  # type: ignore[arg-type]
            if cwd is not None:
                os.chdir(cwd)
            os.execve(argv[0], argv, environ)
        self.out = b""
        self.seen = 0

    def _read(self, timeout: float) -> bool:
        """False once the program's side of the terminal is closed."""
        r, _, _ = select.select([self.fd], [], [], timeout)
        if not r:
            return True
        try:
            chunk = os.read(self.fd, 65536)
        except OSError:
            return False
        self.out += chunk
        return bool(chunk)

    def text(self) -> str:
        return self.out.decode("utf-8", "replace")

    def expect(self, text: str, timeout: float = 30) -> str:
        """What was printed since the last match, up to and including ``text``."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            at = self.out.find(text.encode(), self.seen)
            if at >= 0:
                got = self.out[self.seen : at + len(text)].decode("utf-8", "replace")
                self.seen = at + len(text)
                return got
            if not self._read(0.2):
                break
        raise AssertionError(f"never saw {text!r} in:\n{self.text()}")

    def question(self, timeout: float = 30) -> str | None:
        """Wait for the next question; what was printed since the last one, or None if the program ended."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            shown = _ANSI.sub(b"", self.out[self.seen :])
            if _QUESTION.search(shown):
                got = self.out[self.seen :].decode("utf-8", "replace")
                self.seen = len(self.out)
                return got
            if not self._read(0.2):
                return None
        raise AssertionError(f"no question within {timeout} s; it printed:\n{self.text()}")

    def send(self, data: str) -> None:
        os.write(self.fd, data.encode())

    def wait(self, timeout: float = 60) -> tuple[int, str]:
        """The exit code and everything printed; fails (killing it) if the program does not end."""
        deadline = time.monotonic() + timeout
        while self._read(0.2):
            if time.monotonic() > deadline:  # never hang the suite: fail with what it printed
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
                raise AssertionError(f"mcplock did not exit; it printed:\n{self.text()}")
        _, status = os.waitpid(self.pid, 0)
        os.close(self.fd)
        return os.waitstatus_to_exitcode(status), self.text()


def answer(
    args: Sequence[str],
    answers: Sequence[str],
    *,
    keys: bool = False,
    env: Mapping[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    timeout: float = 60,
) -> tuple[int, str]:
    """Run ``mcplock ARGS`` to its end, typing ``answers`` one per question.

    A line question takes the answer and Enter; the review walk takes one key (``keys=True``).
    Every answer must be asked for: a run that ends with answers left over fails.
    """
    p = Pty(*args, env=env, cwd=cwd)
    for i, reply in enumerate(answers):
        if p.question(timeout) is None:
            code, out = p.wait(timeout)
            raise AssertionError(f"exited ({code}) before question {i + 1} of {len(answers)}:\n{out}")
        p.send(reply if keys else reply + "\n")
    return p.wait(timeout)
