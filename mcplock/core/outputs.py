"""Where ``-o/--output FILE`` may write: never over a file mcplock manages.

Managed: the lock (through any symlink), every host config a locked server was imported
from (its ``source``), and mcplock's token store. Paths are compared resolved (symlinks,
``./x``, ``..``) and, where both exist, by identity (a hard link is the same file).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from mcplock.errors import McplockError, UsageError

if TYPE_CHECKING:
    from mcplock.lock.model import Lock


def managed_files(lockfile: str) -> list[tuple[str, str]]:
    """(real path, what it is) of each file ``-o`` must never overwrite."""
    from mcplock.core.specs import lock_dir

    out = [(os.path.realpath(lockfile), f"the lock {lockfile}")]
    lock = _lock_if_readable(lockfile)
    if lock is not None:
        out += _imported_from(lock, lock_dir(lockfile))
    return out


def _lock_if_readable(lockfile: str) -> Lock | None:
    """The lock, or None when it cannot be read (the command itself says so; the lock path is
    still refused)."""
    try:
        from mcplock.lock.read import load

        return load(lockfile)
    except McplockError:
        return None


def _imported_from(lock: Lock, base: str) -> list[tuple[str, str]]:
    """(real path, what it is) of each host config a locked server was imported from."""
    out = []
    for name in sorted(lock.servers):
        source = lock.servers[name].spec.source
        if source:
            out.append((os.path.realpath(os.path.join(base, source)), f"{source}, the host config `{name}` comes from"))
    return out


def _store_dir() -> str:
    from mcplock.model.paths import config_dir

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
    if _inside(target, store):
        raise UsageError(
            f"--output {out_file} is inside mcplock's token store ({store})",
            hint="write the report elsewhere (e.g. `-o report.json`)",
        )


def _inside(path: str, directory: str) -> bool:
    """Whether a resolved ``path`` is ``directory`` or lies under it."""
    return path == directory or path.startswith(directory + os.sep)
