"""`mcplock run NAME …` without the CLI stack: a host launches the guard on every session,
so it starts without importing typer or rich (about 85 ms). Anything it does not recognise
(``--help``, an unknown option, a missing value) goes to the full CLI, which explains it."""

from __future__ import annotations

import sys

from mcplock.model.guard_argv import GuardArgs, parse

__all__ = ["parse", "run"]


def _say(text: str) -> None:
    from mcplock.text.untrusted import sanitize

    for line in text.splitlines() or [""]:
        sys.stderr.write(sanitize(line, 2000) + "\n")
    sys.stderr.flush()


def run(opts: GuardArgs) -> int:
    from mcplock.errors import McplockError, Terminated, trap_termination
    from mcplock.guard import run_guard

    received: list[int] = []
    trap_termination(received)  # a host's SIGTERM ends the session like Ctrl-C: the server's group dies too
    try:
        return run_guard(
            opts.lockfile,
            opts.name,
            timeout=opts.timeout,
            request_timeout=opts.request_timeout,
            strict=opts.strict,
            client_name=opts.client_name,
            client_version=opts.client_version,
            verbose=opts.verbose,
            say=_say,
            policy=opts.policy,
        )
    except McplockError as e:
        _say(f"error: {e.message}" + (f"\nhint: {e.hint}" if e.hint else ""))
        return e.exit_code
    except KeyboardInterrupt as e:
        if isinstance(e, Terminated) or received:
            import signal

            signum = e.signum if isinstance(e, Terminated) else received[0]
            _say(f"terminated by {signal.Signals(signum).name}")
            return 128 + signum
        _say("interrupted")
        return 130
