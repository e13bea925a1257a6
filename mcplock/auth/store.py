"""The token store: ``tokens/<sha256(server url)>.json`` in mcplock's config directory
(``$MCPLOCK_CONFIG_DIR``, else ``$XDG_CONFIG_HOME/mcplock`` or ``~/.config/mcplock`` on Linux,
the platform's user config directory elsewhere: :mod:`mcplock.model.paths`).

One JSON file per server URL holds the OAuth tokens, their absolute expiry, the client
registration (a dynamically registered client's secret too) and the discovered metadata
needed to refresh in a later process. Files are 0600 in a 0700 directory, written
atomically (temporary file, fsync, rename), and opened with ``O_NOFOLLOW``: a symlink in
place of a token file or of the tokens directory is refused, never followed.

No MCP SDK import here: ``auth status`` and the probe's "is there a token?" check stay light.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from mcplock.errors import McplockError
from mcplock.model import paths

FORMAT = 1


class TokenStoreError(McplockError):
    exit_code = 2

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)


def normalize_url(url: str) -> str:
    """The key of a server: its URL without a fragment (scheme and host lower-cased)."""
    from urllib.parse import urlsplit, urlunsplit

    p = urlsplit(url.strip())
    return urlunsplit((p.scheme.lower(), p.netloc.lower(), p.path or "/", p.query, ""))


def url_key(url: str) -> str:
    return hashlib.sha256(normalize_url(url).encode("utf-8")).hexdigest()


class TokenStore:
    def __init__(self, environ: Mapping[str, str] | None = None, root: Path | None = None) -> None:
        self.root = root if root is not None else paths.config_dir(environ)
        self.dir = self.root / "tokens"

    def path(self, url: str) -> Path:
        return self.dir / f"{url_key(url)}.json"

    # -- safety ---------------------------------------------------------------------------
    def _check_dir(self, create: bool) -> bool:
        """True when the tokens directory exists (created 0700 if asked); refuse symlinks."""
        for d in (self.root, self.dir):
            try:
                st = os.lstat(d)
            except FileNotFoundError:
                if not create:
                    return False
                os.makedirs(d, mode=0o700, exist_ok=True)
                st = os.lstat(d)
            if stat.S_ISLNK(st.st_mode):
                raise TokenStoreError(
                    f"refusing to use the token store: {d} is a symbolic link",
                    hint="remove the link; mcplock keeps tokens in a real directory only it can read",
                )
            if not stat.S_ISDIR(st.st_mode):
                raise TokenStoreError(f"refusing to use the token store: {d} is not a directory")
        if create:
            os.chmod(self.dir, 0o700)
        return True

    def exists(self, url: str) -> bool:
        try:
            return os.path.lexists(self.path(url))
        except OSError:
            return False

    # -- read / write ---------------------------------------------------------------------
    def load(self, url: str) -> dict[str, Any] | None:
        if not self._check_dir(create=False):
            return None
        p = self.path(url)
        try:
            fd = os.open(p, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
        except FileNotFoundError:
            return None
        except OSError as e:
            if os.path.islink(p):
                raise TokenStoreError(
                    f"refusing to read the token file {p}: it is a symbolic link",
                    hint="delete it (`mcplock auth logout`) and log in again",
                ) from None
            raise TokenStoreError(f"cannot read the token file {p}: {e.strerror}") from None
        with os.fdopen(fd, "rb") as f:
            st = os.fstat(f.fileno())
            if not stat.S_ISREG(st.st_mode):
                raise TokenStoreError(f"refusing to read the token file {p}: not a regular file")
            raw = f.read(1024 * 1024)
        try:
            data = json.loads(raw)
        except ValueError:
            return None  # a damaged file is as good as none: the next login rewrites it
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            return None
        return data

    def save(self, url: str, data: dict[str, Any]) -> Path:
        self._check_dir(create=True)
        p = self.path(url)
        if os.path.islink(p):
            raise TokenStoreError(
                f"refusing to write the token file {p}: it is a symbolic link",
                hint="delete the link, then log in again",
            )
        body = dict(data)
        body["format"] = FORMAT
        body["server_url"] = normalize_url(url)
        text = json.dumps(body, indent=2, sort_keys=True) + "\n"
        fd, tmp = tempfile.mkstemp(prefix=".tok-", suffix=".tmp", dir=self.dir)  # O_EXCL, 0600
        try:
            os.fchmod(fd, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, p)  # replaces a path, never follows a link at p
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
        try:
            dfd = os.open(self.dir, os.O_RDONLY)
            try:
                os.fsync(dfd)
            finally:
                os.close(dfd)
        except OSError:
            pass
        return p

    def update(self, url: str, **fields: Any) -> None:
        data = self.load(url) or {}
        for k, v in fields.items():
            if v is None:
                data.pop(k, None)
            else:
                data[k] = v
        self.save(url, data)

    def delete(self, url: str) -> bool:
        p = self.path(url)
        try:
            os.unlink(p)  # unlinks a symlink itself, never its target
            return True
        except FileNotFoundError:
            return False


class StagedStore(TokenStore):
    """One server's entry held in memory while a login runs, over a real store: the login
    reads and writes this copy (started without ``drop``'s fields, e.g. the old tokens, so the
    server asks for a new login), and :meth:`commit` writes it to the real store in one atomic
    replace. A login that fails never commits: the entry on disk (a still-valid token, the
    client registration it belongs to) stays as it was. Other servers' entries pass through."""

    def __init__(self, base: TokenStore, url: str, drop: tuple[str, ...] = ()) -> None:
        super().__init__(root=base.root)
        self.base = base
        self.url = url
        self._key = url_key(url)
        old = base.load(url)
        self._entry: dict[str, Any] | None = None if old is None else {k: v for k, v in old.items() if k not in drop}
        self.changed = False

    def _staged(self, url: str) -> bool:
        return url_key(url) == self._key

    def exists(self, url: str) -> bool:
        return self._entry is not None if self._staged(url) else self.base.exists(url)

    def load(self, url: str) -> dict[str, Any] | None:
        if not self._staged(url):
            return self.base.load(url)
        return None if self._entry is None else json.loads(json.dumps(self._entry))

    def save(self, url: str, data: dict[str, Any]) -> Path:
        if not self._staged(url):
            return self.base.save(url, data)
        self._entry = json.loads(json.dumps(data))
        self.changed = True
        return self.path(url)

    def delete(self, url: str) -> bool:
        if not self._staged(url):
            return self.base.delete(url)
        gone, self._entry, self.changed = self._entry is not None, None, True
        return gone

    def commit(self) -> None:
        """Write the staged entry to the real store (atomically: see :meth:`TokenStore.save`)."""
        if not self.changed:
            return
        if self._entry is None:
            self.base.delete(self.url)
        else:
            self.base.save(self.url, self._entry)
        self.changed = False


def describe(data: dict[str, Any] | None, now: float | None = None) -> dict[str, Any]:
    """What `auth status` may show about a stored entry: never a token or a secret."""
    now = time.time() if now is None else now
    if not data or not isinstance(data.get("tokens"), dict) or not data["tokens"].get("access_token"):
        return {"token": False}
    out: dict[str, Any] = {"token": True, "refreshable": bool(data["tokens"].get("refresh_token"))}
    exp = data.get("expires_at")
    if isinstance(exp, (int, float)):
        out["expires_at"] = int(exp)
        out["expired"] = exp <= now
    if data["tokens"].get("scope"):
        out["scopes"] = data["tokens"]["scope"]
    if data.get("method"):
        out["method"] = data["method"]
    client = data.get("client_info")
    if isinstance(client, dict) and client.get("client_id"):
        out["client_id"] = client["client_id"]
    return out
