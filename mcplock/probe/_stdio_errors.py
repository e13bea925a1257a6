"""Why a stdio server failed, as the person reads it: it stopped (how it ended, what mcplock waited
for) or stayed silent past the timeout; a process that printed no JSON-RPC, only other output,
is told to speak MCP over stdio. Each error carries the server's last stderr lines."""

from __future__ import annotations

import signal

from mcplock.errors import ProbeError
from mcplock.probe._common import State, fmt_seconds, with_stderr
from mcplock.text.untrusted import sanitize


def stopped(name: str, state: State, code: int | None, stderr: str) -> ProbeError:
    """The server's process is gone (or closed its stdout): how it ended, what mcplock waited for,
    its last stderr lines; a process that printed only other output than JSON-RPC says so."""
    waiting = state.step.removeprefix("the answer to ")
    if code is None:
        how = "closed its stdout"
    elif code < 0:
        try:
            how = f"was killed by signal {signal.Signals(-code).name}"
        except ValueError:
            how = f"was killed by signal {-code}"
    else:
        how = f"exited with code {code}"
    if state.valid_messages == 0 and state.skipped_lines:
        return ProbeError(
            "garbage",
            with_stderr(
                f"server `{name}` printed no JSON-RPC on stdout, only other output, and {how}; "
                f"first line: {sanitize(state.skipped_lines[0], 200)}",
                stderr,
            ),
            hint="the command must speak MCP over stdio; check `command` and `args`",
        )
    return ProbeError(
        "exited",
        with_stderr(f"server `{name}` {how} while mcplock waited for {waiting}", stderr),
        hint="run the command by hand to see why it stops",
    )


def silent(name: str, state: State, timeout: float, stderr: str) -> ProbeError:
    """No answer within ``timeout``: what mcplock waited for; a process that printed only other
    output than JSON-RPC says so."""
    waiting = state.step.removeprefix("the answer to ")
    if state.valid_messages == 0 and state.skipped_lines:
        return ProbeError(
            "garbage",
            with_stderr(
                f"server `{name}` printed no JSON-RPC on stdout within {fmt_seconds(timeout)} s, "
                f"only other output ({_lines(state.skipped_count)}); "
                "first line: "
                f"{sanitize(state.skipped_lines[0], 200)}",
                stderr,
            ),
            hint="the command must speak MCP over stdio (newline-delimited JSON-RPC on stdout; logs go to stderr)",
        )
    return ProbeError(
        "timeout",
        with_stderr(
            f"server `{name}`: no answer within {fmt_seconds(timeout)} s (waiting for {waiting})",
            stderr,
        ),
        hint="if the server is just slow to start (e.g. `npx` downloading a package), give it longer with "
        "--timeout SECONDS",
    )


def _lines(n: int) -> str:
    return f"{n} line" + ("s" if n != 1 else "")
