"""`mcplock run NAME …` without the CLI stack: a host launches the guard on every session,
so it starts without importing typer or rich (about 85 ms). Anything it does not recognise
(``--help``, an unknown option, a missing value) goes to the full CLI, which explains it."""

from __future__ import annotations

import os
import sys

_VALUED = {"--timeout": "timeout", "--request-timeout": "request_timeout", "--client-name": "client_name",
           "--client-version": "client_version", "--lockfile": "lockfile"}
_FLAGS = {"--strict": "strict", "-v": "verbose", "--verbose": "verbose", "-q": "quiet", "--quiet": "quiet",
          "--no-color": "no_color"}


def parse(args: list[str]) -> dict[str, object] | None:
    """The options of a plain `run NAME …` (global options already in front), or None."""
    opts: dict[str, object] = {"lockfile": os.environ.get("MCPLOCK_LOCKFILE") or "mcp.lock"}
    rest: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        key, _, value = a.partition("=")
        if key in _VALUED:
            if not value:
                if i + 1 >= len(args):
                    return None
                value = args[i + 1]
                i += 1
            opts[_VALUED[key]] = value
        elif a in _FLAGS:
            opts[_FLAGS[a]] = True
        elif a.startswith("-"):
            return None
        else:
            rest.append(a)
        i += 1
    if len(rest) != 2 or rest[0] != "run":
        return None
    opts["name"] = rest[1]
    try:
        for k in ("timeout", "request_timeout"):
            if k in opts:
                opts[k] = float(opts[k])  # type: ignore[arg-type]
                if opts[k] <= 0:  # type: ignore[operator]
                    return None
    except ValueError:
        return None
    return opts


def _say(text: str) -> None:
    from mcplock.untrusted import sanitize

    for line in text.splitlines() or [""]:
        sys.stderr.write(sanitize(line, 2000) + "\n")
    sys.stderr.flush()


def run(opts: dict[str, object]) -> int:
    from mcplock.errors import McplockError
    from mcplock.guard import run_guard

    try:
        return run_guard(str(opts["lockfile"]), str(opts["name"]), timeout=float(opts.get("timeout", 30.0)),  # type: ignore[arg-type]
                         request_timeout=float(opts.get("request_timeout", 120.0)),  # type: ignore[arg-type]
                         strict=bool(opts.get("strict")), client_name=opts.get("client_name"),  # type: ignore[arg-type]
                         client_version=opts.get("client_version"), verbose=bool(opts.get("verbose")),  # type: ignore[arg-type]
                         say=_say)
    except McplockError as e:
        _say(f"error: {e.message}" + (f"\nhint: {e.hint}" if e.hint else ""))
        return e.exit_code
    except KeyboardInterrupt:
        _say("interrupted")
        return 130
