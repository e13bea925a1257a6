"""The command line of the guard, read without the CLI stack: ``mcplock [OPTIONS] run NAME [OPTIONS]``.

Two readers need it: the fast start of ``mcplock run`` (:mod:`mcplock.cli.fast_run`), and
``check`` and ``export``, which recognise a host entry that already launches the guard for a
locked server (docs/guard.md, "Putting it in front of a host"). Pure: no imports beyond ``os`` and ``dataclasses``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

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


TIMEOUT = 30.0  # seconds, as the CLI's --timeout and --request-timeout default
REQUEST_TIMEOUT = 120.0


@dataclass(frozen=True)
class GuardArgs:
    """A plain `run NAME …`, read: the options the guard takes (the defaults are the CLI's)."""

    name: str
    lockfile: str = "mcp.lock"
    timeout: float = TIMEOUT
    request_timeout: float = REQUEST_TIMEOUT
    client_name: str | None = None
    client_version: str | None = None
    policy: str | None = None
    strict: bool = False
    verbose: bool = False
    quiet: bool = False
    no_color: bool = False


def _read_options(args: list[str]) -> tuple[dict[str, str], set[str], list[str]] | None:
    """``args`` sorted into the valued options (``--x V`` or ``--x=V``), the flags and the
    positional words; None for an option the guard does not take or a value that is missing."""
    valued: dict[str, str] = {"lockfile": os.environ.get("MCPLOCK_LOCKFILE") or "mcp.lock"}
    flags: set[str] = set()
    rest: list[str] = []
    words = iter(args)
    for a in words:
        key, _, value = a.partition("=")
        if key in _VALUED:
            given = value or next(words, None)
            if given is None:
                return None
            valued[_VALUED[key]] = given
        elif a in _FLAGS:
            flags.add(_FLAGS[a])
        elif a.startswith("-"):
            return None
        else:
            rest.append(a)
    return valued, flags, rest


def _timeouts(valued: dict[str, str]) -> tuple[float, float] | None:
    """``--timeout`` and ``--request-timeout`` as positive seconds (None: not a positive number)."""
    try:
        timeout = float(valued.get("timeout", TIMEOUT))
        request_timeout = float(valued.get("request_timeout", REQUEST_TIMEOUT))
    except ValueError:
        return None
    if timeout <= 0 or request_timeout <= 0:
        return None
    return timeout, request_timeout


def parse(args: list[str]) -> GuardArgs | None:
    """The options of a plain `run NAME …` (global options already in front), or None."""
    read = _read_options(args)
    if read is None:
        return None
    valued, flags, rest = read
    if len(rest) != 2 or rest[0] != "run":
        return None
    timeouts = _timeouts(valued)
    if timeouts is None:
        return None
    return GuardArgs(
        name=rest[1],
        lockfile=valued["lockfile"],
        timeout=timeouts[0],
        request_timeout=timeouts[1],
        client_name=valued.get("client_name"),
        client_version=valued.get("client_version"),
        policy=valued.get("policy"),
        strict="strict" in flags,
        verbose="verbose" in flags,
        quiet="quiet" in flags,
        no_color="no_color" in flags,
    )


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
    return opts.name if opts else None
