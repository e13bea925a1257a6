"""Atomic, serialised lock writes.

``transaction(path)`` takes an exclusive advisory lock (``flock`` on the lock's
directory, so no side file is left behind), reads the current lock, hands it to the
caller and, when the caller's changes produce different bytes, writes them with a
temp file in the same directory + fsync + rename. An unchanged state leaves the
file's bytes and mtime alone. Ctrl-C at any point leaves either the old or the new
file, never half of one.

A symlinked lock is written through when the link stays inside the project and names a regular
file: the link is resolved and the target's directory is flocked and written, so the link stays a
link. Every writer of a repository file (the lock, its signature, the export record, the
``mcp-lock/1`` export, host files, ``.gitattributes``) goes through :func:`write_atomic`, which
refuses a link out of the project and anything that is not a regular file (a device such as
``/dev/null``, a FIFO, a directory): :func:`mcplock.model.files.write_target`. OS errors (permissions, a read-only file
system, a full disk, a missing directory) become :class:`LockfileError`s that say what to do.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import time
from collections.abc import Iterator

from mcplock.errors import LockBusyError, LockfileError
from mcplock.lock.model import Lock

if sys.platform == "win32":  # pragma: no cover - no fcntl: writers are not serialised there
    fcntl = None
else:
    import fcntl


def os_error(e: OSError, path: str, doing: str) -> LockfileError:
    """An OS error met while ``doing`` something to the lock at ``path``, as a clear error with a hint."""
    import errno

    directory = os.path.dirname(os.path.abspath(path)) or "."
    why = e.strerror or type(e).__name__
    hints = {
        errno.EACCES: f"you may not write in {directory}: fix its permissions, or run as a user who may",
        errno.EPERM: f"you may not write in {directory}: fix its permissions, or run as a user who may",
        errno.EROFS: f"{directory} is on a read-only file system: use a writable checkout or --lockfile elsewhere",
        errno.ENOSPC: "the disk is full: free some space and run the command again",
        errno.EDQUOT: "your disk quota is used up: free some space and run the command again",
        errno.ENOENT: f"the directory {directory} does not exist: create it (`mkdir -p {directory}`) "
        "or pass another --lockfile",
    }
    hint = hints.get(e.errno or 0, "check the file and its directory, then run the command again")
    return LockfileError(f"cannot {doing}: {why}", path=path, hint=hint, code="os-error")


def check_directory(path: str) -> None:
    """Fail early, naming the directory, when the lock's directory does not exist."""
    directory = os.path.dirname(path) or "."
    if not os.path.isdir(directory):
        raise LockfileError(
            f"the lock's directory {os.path.dirname(path) or directory} does not exist",
            path=path,
            hint=f"create it (`mkdir -p {os.path.dirname(path) or directory}`) or pass another --lockfile",
            code="missing-directory",
        )


@contextlib.contextmanager
def exclusive(path: str, *, wait: float = 60.0) -> Iterator[None]:
    """Hold an exclusive lock for writers of ``path`` (blocks other mcplock writers)."""
    path = safe_target(path)
    directory = os.path.dirname(path) or "."
    if fcntl is None:  # pragma: no cover
        yield
        return
    check_directory(path)
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError as e:
        raise os_error(e, path, "lock the file for writing") from None
    try:
        _acquire(fd, path, wait)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def _acquire(fd: int, path: str, wait: float) -> None:
    """Take the writers' lock on ``fd``, waiting up to ``wait`` seconds for another writer."""
    deadline = time.monotonic() + wait
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() > deadline:
                raise LockBusyError(
                    f"another mcplock process has been writing {path} for over {wait:.0f} s",
                    hint="wait for it to finish, or stop it",
                ) from None
            time.sleep(0.05)


def safe_target(path: str, root: str | None = None) -> str:
    """Where a write of ``path`` may land (:func:`mcplock.model.files.write_target`), or the
    :class:`LockfileError` that refuses it (exit 2), naming what the path is and what to do."""
    from mcplock.model.files import NotRegularFile, write_target

    try:
        return write_target(path, root)
    except NotRegularFile as e:
        raise LockfileError(
            f"cannot write: {e.strerror}",
            path=path,
            hint=f"remove it (`rm {_quoted(path)}`) and run the command again: mcplock writes only regular files "
            "inside the project",
            code="not-regular-file",
        ) from None


def _quoted(path: str) -> str:
    import shlex

    return shlex.quote(path)


def write_atomic(path: str, data: bytes, *, root: str | None = None) -> bool:
    """Replace ``path`` (a symlink inside the project: its target) with ``data`` atomically.
    Returns False when the bytes were already there. ``root``: the project (default: the git
    work tree above ``path``, else its directory); a link out of it, or a path that is not a
    regular file, is refused (:func:`safe_target`)."""
    path = safe_target(path, root)
    if _holds(path, data):
        return False
    directory = os.path.dirname(path) or "."
    mode = _mode_of(path)
    try:
        fd, tmp = tempfile.mkstemp(prefix=".mcp.lock.", suffix=".tmp", dir=directory)
    except OSError as e:
        raise os_error(e, path, "write") from None
    try:
        try:
            os.fchmod(fd, mode)
        except (AttributeError, OSError):  # pragma: no cover
            pass
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
        tmp = ""
        _sync_directory(directory)
    except OSError as e:
        raise os_error(e, path, "write") from None
    finally:
        if tmp:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
    return True


def _holds(path: str, data: bytes) -> bool:
    """Whether the file already holds ``data`` (a missing or unreadable one does not: the write
    says what is wrong)."""
    from mcplock.model.files import read_bounded

    try:
        return read_bounded(path, len(data)) == data
    except OSError:
        return False


def _mode_of(path: str) -> int:
    """The file's permission bits, kept by the rewrite (0o644 for a new file)."""
    try:
        return os.stat(path).st_mode & 0o777
    except OSError:
        return 0o644


def _sync_directory(directory: str) -> None:
    """Flush the directory entry of the renamed file (best effort)."""
    with contextlib.suppress(OSError):
        dfd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)


def save(lock: Lock, path: str) -> bool:
    from mcplock.lock.write import dumps

    return write_atomic(path, dumps(lock).encode("utf-8"))


@contextlib.contextmanager
def transaction(path: str, *, create: bool = False) -> Iterator[Lock]:
    """Read-modify-write under the writers' lock. ``create``: start from an empty lock if missing.

    The lock is written when the block ends normally; an exception leaves the file as it was.
    The caller may set ``lock.servers`` to drop everything; a lock with no server that did
    not exist before is not created.
    """
    from mcplock.lock.read import load

    with exclusive(path):
        existed = os.path.exists(path)
        if existed or not create:
            lock = load(path)
        else:
            lock = Lock(path=path)
        yield lock
        if not existed and not lock.servers:
            return
        save(lock, path)
