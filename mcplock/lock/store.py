"""Atomic, serialised lock writes.

``transaction(path)`` takes an exclusive advisory lock (``flock`` on the lock's
directory, so no side file is left behind), reads the current lock, hands it to the
caller and, when the caller's changes produce different bytes, writes them with a
temp file in the same directory + fsync + rename. An unchanged state leaves the
file's bytes and mtime alone. Ctrl-C at any point leaves either the old or the new
file, never half of one.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
from collections.abc import Iterator

from mcplock.errors import LockBusyError, LockfileError
from mcplock.lock.model import Lock

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]


@contextlib.contextmanager
def exclusive(path: str, *, wait: float = 60.0) -> Iterator[None]:
    """Hold an exclusive lock for writers of ``path`` (blocks other mcplock writers)."""
    directory = os.path.dirname(os.path.abspath(path)) or "."
    if fcntl is None:  # pragma: no cover
        yield
        return
    fd = os.open(directory, os.O_RDONLY)
    try:
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise LockBusyError(
                        f"another mcplock process has been writing {path} for over {wait:.0f} s",
                        hint="wait for it to finish, or stop it",
                    ) from None
                time.sleep(0.05)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def write_atomic(path: str, data: bytes) -> bool:
    """Replace ``path`` with ``data`` atomically. Returns False when the bytes were already there."""
    try:
        with open(path, "rb") as f:
            if f.read() == data:
                return False
    except FileNotFoundError:
        pass
    directory = os.path.dirname(os.path.abspath(path)) or "."
    mode = 0o644
    with contextlib.suppress(OSError):
        mode = os.stat(path).st_mode & 0o777
    fd, tmp = tempfile.mkstemp(prefix=".mcp.lock.", suffix=".tmp", dir=directory)
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
        with contextlib.suppress(OSError):
            dfd = os.open(directory, os.O_RDONLY)
            try:
                os.fsync(dfd)
            finally:
                os.close(dfd)
    except OSError as e:
        raise LockfileError(f"cannot write: {e.strerror}", path=path) from None
    finally:
        if tmp:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
    return True


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
