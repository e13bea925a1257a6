"""This user's machine key: a random secret beside the trust records (``machine.key``, 0600 in a
0700 directory, made on first use), for what mcplock keeps in shared places and must know it
wrote itself. The lock entries the guard remembers (mcplock/lock/one.py) and the package
cache's manifests (mcplock/packages/cache.py) are signed with it, so a cache directory that
others can write (a CI cache restored from another job, another user) cannot feed mcplock.
A leaf: nothing here but the standard library and :mod:`mcplock.model.paths`.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import stat
from collections.abc import Mapping
from pathlib import Path

from mcplock.model import paths


def require_private(path: Path) -> None:
    """Refuse (exit 2) a file of mcplock's own records that someone else could have written: one
    owned by another user, or writable by everyone (or in such a directory)."""
    from mcplock.errors import McplockError

    for p in (path, path.parent):
        try:
            st = os.stat(p)
        except FileNotFoundError:
            continue
        if st.st_uid != os.getuid() or st.st_mode & 0o002:  # group-writable: common (user private groups)
            raise McplockError(
                f"{p} can be written by others than you (mode {stat.S_IMODE(st.st_mode):o}, owner uid "
                f"{st.st_uid}): mcplock does not believe what it holds",
                hint=f"make it yours alone: `chmod {'700' if p.is_dir() else '600'} {p}` (and check who changed it)",
                code="not-private",
            )


def machine_secret(environ: Mapping[str, str] | None = None) -> bytes | None:
    """The key (32 random bytes), made on first use; None when it can be neither read nor made
    (then nothing is remembered, and nothing signed is believed). A key others could write is
    refused (:func:`require_private`)."""
    path = paths.data_dir(environ) / "machine.key"
    for _ in range(2):
        try:
            require_private(path)
            data = path.read_bytes()
            return data if len(data) >= 32 else None
        except FileNotFoundError:
            pass
        except OSError:
            return None
        try:
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            continue  # another process made it just now: read that one
        except OSError:
            return None
        with os.fdopen(fd, "wb") as f:
            f.write(os.urandom(32))
    return None


def sign(secret: bytes, context: bytes, body: bytes) -> str:
    """The HMAC-SHA256 of ``body`` under ``context`` (what it is about), hex."""
    return hmac.new(secret, context + b"\0" + body, hashlib.sha256).hexdigest()


def signed_by(secret: bytes, context: bytes, body: bytes, mac: object) -> bool:
    return isinstance(mac, str) and hmac.compare_digest(mac, sign(secret, context, body))
