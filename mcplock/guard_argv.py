"""The command line of the guard, read without the CLI stack: ``mcplock [OPTIONS] run NAME [OPTIONS]``.

Two readers need it: the fast start of ``mcplock run`` (:mod:`mcplock.cli.fast_run`), and
``check`` and ``export``, which recognise a host entry that already launches the guard for a
locked server (docs/guard.md, "Putting it in front of a host"). Pure: no imports beyond ``os``.
"""

from __future__ import annotations

import os

_VALUED = {
    "--timeout": "timeout",
    "--request-timeout": "request_timeout",
    "--client-name": "client_name",
    "--client-version": "client_version",
    "--lockfile": "lockfile",
    "--policy": "policy",
}
_FLAGS = {
    "--strict": "strict",
    "-v": "verbose",
    "--verbose": "verbose",
    "-q": "quiet",
    "--quiet": "quiet",
    "--no-color": "no_color",
}


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


def guard_target(command: object, args: object) -> str | None:
    """The server a host entry's ``command``/``args`` run through the guard, or None.

    ``mcplock`` (on PATH or by path) with any arrangement of the options ``mcplock run`` takes
    (``--lockfile PATH`` before or after ``run NAME``). Anything else, or an option the guard
    would not take, is not recognised: such an entry is compared with the lock as any other."""
    if not isinstance(command, str) or os.path.basename(command) != "mcplock":
        return None
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        return None
    opts = parse(args)
    return str(opts["name"]) if opts else None
