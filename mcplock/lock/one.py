"""One server of a lock, for the commands that use one: the guard (``mcplock run``, started by a
host for every session) and ``mcplock call``. Reading a whole lock of 2,000 tools takes about
150 ms; a host starts one guard per server, each needing only its own server.

After a full read, the server's part is remembered as mcplock writes a lock holding only that
server, under the SHA-256 of the whole file's bytes (and of the mcplock that read it): any change
to the file gives another key, so an entry is only ever used for the exact bytes it was read
from, by the same reader. An entry is read with the ordinary reader (everything ``loads``
checks, it checks again), and the caller verifies the server's hashes as after a full read
(:func:`mcplock.guard.locked_server`). What the entry holds came from mcplock's own full read:
the lock is never cut into pieces by hand, so no crafted text (a description holding a line that
looks like a table header) can make the two readings differ.

An entry is signed (HMAC-SHA256) with a secret of this user on this machine that lives beside
the trust records, not in the cache (:func:`mcplock.core.trust.machine_secret`): an entry mcplock
did not write here (a cache directory shared between CI jobs, or restored from another one) is
ignored, and the lock is read whole.

The directory is ``$MCPLOCK_CACHE_DIR/locks``, else the user cache directory + ``mcplock/locks``,
one small file per (lock content, server); ``MCPLOCK_LOCK_CACHE=0`` turns it off. Deleting it
is always safe; a cache that cannot be read or written is no error (the lock is then read
whole). See docs/performance.md.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
from collections.abc import Mapping
from pathlib import Path

from mcplock.errors import LockfileError
from mcplock.lock.model import Lock
from mcplock.lock.read import loads, read_text
from mcplock.model import paths

MAX_FILES = 256  # entries beyond it: the least recently used are removed (when one is written)


def cache_dir(environ: Mapping[str, str] | None = None) -> Path | None:
    return paths.cache_dir("locks", "MCPLOCK_LOCK_CACHE", environ)


def load_one(
    path: str | os.PathLike[str], name: str, secret: bytes | None, environ: Mapping[str, str] | None = None
) -> Lock:
    """The lock at ``path`` with (at least) the server ``name``: from the cache when this exact
    file was read before, else read whole (and ``name``'s part remembered). ``secret`` signs
    the entries (:func:`mcplock.core.trust.machine_secret`); None: nothing is remembered.
    Errors are those of :func:`mcplock.lock.read.load`; a server the lock lacks is left to the
    caller."""
    p = os.fspath(path)
    text = read_text(p)
    directory = cache_dir(environ)
    if directory is None or not secret:
        return loads(text, p)
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    which = hashlib.sha256(f"{name}\0{_reader_version()}".encode()).hexdigest()[:24]
    entry = directory / f"{digest[:40]}-{which}.toml"
    context = f"{digest}\0{name}\0{_reader_version()}\0".encode()
    with contextlib.suppress(OSError, UnicodeDecodeError, ValueError, LockfileError):
        signed = entry.read_bytes()
        mac, _, body = signed.partition(b"\n")
        if hmac.compare_digest(mac, _mac(secret, context, body)):
            one = loads(body.decode("utf-8"), p)
            if list(one.servers) == [name]:
                with contextlib.suppress(OSError):
                    os.utime(entry)  # recently used
                return one
    lock = loads(text, p)
    if name in lock.servers:
        from mcplock.lock.write import dumps

        body = dumps(Lock({name: lock.servers[name]}, version=lock.version)).encode("utf-8")
        with contextlib.suppress(OSError):
            _remember(directory, entry, _mac(secret, context, body) + b"\n" + body)
    return lock


def _mac(secret: bytes, context: bytes, body: bytes) -> bytes:
    return hmac.new(secret, context + body, hashlib.sha256).hexdigest().encode()


def _reader_version() -> str:
    """Which mcplock reads and writes the entries: its version and its lock package's files as
    installed (size and modification time: an upgrade, or an edit in a checkout, is another
    key), so an entry written by one mcplock is never read by another that might read the lock
    differently."""
    from mcplock._version import __version__

    here = Path(__file__).resolve().parent
    parts = [__version__]
    for f in sorted(here.glob("*.py")):
        st = f.stat()
        parts.append(f"{f.name}:{st.st_size}:{st.st_mtime_ns}")
    return "\0".join(parts)


def _remember(directory: Path, entry: Path, data: bytes) -> None:
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    tmp = entry.with_name(f".{entry.name}.{os.getpid()}.tmp")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, entry)  # whole, at once: another guard may be reading the same entry
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()
    files = sorted(directory.glob("*.toml"), key=lambda f: f.stat().st_mtime)  # entries are touched when read
    for old in files[: max(0, len(files) - MAX_FILES)]:
        with contextlib.suppress(OSError):
            old.unlink()
