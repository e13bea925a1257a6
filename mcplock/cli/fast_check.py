"""`mcplock check` without the CLI stack, for the all-clear a pre-commit hook sees on nearly
every commit: the lock read, every hash verified, the warning's lint from the lint cache, one
``ok:`` line — without importing typer or rich (a third of check's time on a 2,000-tool lock).

Anything else goes to the full CLI, which does and says it all again: an option besides the
global ones, a lock that cannot be read, any finding, warning or drift evidence, a path that
needs escaping, ``-v``. Those are the rare runs; the all-clear is the same bytes either way.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mcplock.core.check import Finding
    from mcplock.lock.model import Lock

_FLAGS = {"-q", "--quiet", "--no-color"}


def parse(args: list[str]) -> tuple[str, bool] | None:
    """(lock path, quiet) for a plain ``check`` with only global flags, else None."""
    lockfile = os.environ.get("MCPLOCK_LOCKFILE") or ""
    quiet = False
    rest: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        value, used = _lockfile_option(args, i)
        if value is not None:
            lockfile = value
        elif a in _FLAGS:
            quiet = quiet or a in ("-q", "--quiet")
        else:
            rest.append(a)
        i += used or 1
    if rest != ["check"]:
        return None
    if not lockfile:  # none named: ./mcp.lock, or the nearest above (its path says which)
        from mcplock.model.lockpath import find_lock

        lockfile = find_lock()
    return lockfile, quiet


def _lockfile_option(args: list[str], i: int) -> tuple[str | None, int]:
    """The lock path a ``--lockfile`` option at ``args[i]`` names, and how many arguments it
    takes; (None, 0) when ``args[i]`` is not one (a ``--lockfile`` with nothing after it)."""
    a = args[i]
    if a == "--lockfile" and i + 1 < len(args):
        return args[i + 1], 2
    if a.startswith("--lockfile="):
        return a.split("=", 1)[1], 1
    return None, 0


def run(lockfile: str, quiet: bool) -> int | None:
    """The exit code of an all-clear check (its line printed), or None: let the full CLI run."""
    if not lockfile.isprintable() or not lockfile.isascii():
        return None  # the full CLI escapes the path
    from mcplock.errors import McplockError

    try:
        from mcplock.core.check import run_check
        from mcplock.lock.read import load
        from mcplock.trust import org_policy

        org = org_policy.resolve(None)  # $MCPLOCK_POLICY (docs/policy.md); a broken one: the full CLI says so
        lock = load(lockfile)
        if _anything_to_say(lock, lockfile, run_check(lock, lockfile, org)):
            return None
    except (McplockError, OSError):
        return None  # the full CLI says what went wrong
    except KeyboardInterrupt:
        sys.stderr.write("\ninterrupted\n")
        return 130
    if not quiet:
        _say_ok(lock, lockfile)
    return 0


def counted(n: int, word: str) -> str:
    """``1 server``, ``2 servers``: a count with its noun (issue 42.10: "1 tools")."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _say_ok(lock: Lock, lockfile: str) -> None:
    """The all-clear line (a closed pipe is not an error: the exit code still says it)."""
    tools = sum(len(srv.tools) for srv in lock.servers.values())
    try:
        sys.stdout.write(
            f"ok: {lockfile}: {counted(len(lock.servers), 'server')}, {counted(tools, 'tool')}, every hash matches, "
            "nothing pending\n"
        )
        sys.stdout.flush()
    except BrokenPipeError:  # `mcplock check | head -0`
        pass


def _anything_to_say(lock: Lock, lockfile: str, findings: list[Finding]) -> bool:
    """Whether the full check has anything to say beyond "ok": a finding, or one of its warnings
    (code loaded through a variable, a critical finding accepted, a look-alike package name, drift
    evidence from runs, a merge driver override)."""
    from mcplock.core.check import code_env, critical_accepted
    from mcplock.core.lookalikes import lookalike_warnings
    from mcplock.core.merge_install import override_warning
    from mcplock.guard import evidence

    return bool(
        findings
        or code_env(lock)
        or critical_accepted(lock, findings)
        or lookalike_warnings(lock)
        or evidence.current(lockfile, lock)
        or override_warning(lockfile)
    )
