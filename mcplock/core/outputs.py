"""Where ``-o/--output FILE`` may write: never over a file mcplock manages.

Managed: the lock (through any symlink), every host config a locked server was imported
from (its ``source``), and mcplock's token store. Paths are compared resolved (symlinks,
``./x``, ``..``) and, where both exist, by identity (a hard link is the same file).
"""

from __future__ import annotations

import os

from mcplock.errors import McplockError, UsageError


def managed_files(lockfile: str) -> list[tuple[str, str]]:
    """(real path, what it is) of each file ``-o`` must never overwrite."""
    from mcplock.core.specs import lock_dir

    out = [(os.path.realpath(lockfile), f"the lock {lockfile}")]
    base = lock_dir(lockfile)
    try:
        from mcplock.lock.read import load

        lock = load(lockfile)
    except McplockError:  # an unreadable lock: the command itself says so; the lock path is still refused
        lock = None
    if lock is not None:
        for name in sorted(lock.servers):
            source = lock.servers[name].spec.source
            if source:
                what = f"{source}, the host config `{name}` comes from"
                out.append((os.path.realpath(os.path.join(base, source)), what))
    return out


def _store_dir() -> str:
    from mcplock.paths import config_dir

    return os.path.realpath(config_dir())


def _same(a: str, b: str) -> bool:
    if a == b:
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def check_output(out_file: str | None, lockfile: str) -> None:
    """Refuse (exit 2, nothing written) an ``--output`` that would overwrite a managed file."""
    if not out_file:
        return
    target = os.path.realpath(out_file)
    for path, what in managed_files(lockfile):
        if _same(target, path):
            raise UsageError(
                f"--output {out_file} would overwrite {what}",
                hint="write the report elsewhere (e.g. `-o report.json`), or drop -o to print it",
            )
    store = _store_dir()
    if target == store or target.startswith(store + os.sep):
        raise UsageError(
            f"--output {out_file} is inside mcplock's token store ({store})",
            hint="write the report elsewhere (e.g. `-o report.json`)",
        )
