"""What the lint found in one definition, remembered by content hash (``mcplock check``'s warning
lints every accepted item; most are the same from one commit to the next).

An entry says "these findings, and these tool-name-like words, for the definition with this
hash", under a version of the lint rules (:func:`rules_version`: the lint's own source, mcplock's
version and Python's Unicode data). It is keyed by the definition's content hash, which the caller
has verified against the definition itself this run: a definition edited in the lock has another
hash and is linted afresh; rules that changed have another version, and entries of another version
are never read. Nothing else about an entry is trusted: a value that does not parse is ignored.

Each file is signed with this machine's key (``mac``: mcplock/model/machine_key.py), as the package
cache's manifests are: the cache directory may be one others can write (a CI cache restored from
another job, another user), and a forged "no findings" entry would make ``check`` pass an accepted
critical item silently. A file without a valid signature is not read (the lint runs in full and
writes a signed one); without a machine key nothing is read or written.

The file is ``$MCPLOCK_CACHE_DIR/lint``, else the platform's user cache directory + ``lint``
(``~/.cache/mcplock/lint`` on Linux), one JSON file per rules version. ``MCPLOCK_LINT_CACHE=0``
turns it off. Deleting it is always safe. A cache that cannot be read or written is no error:
the lint then runs in full.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import sys
import time
import unicodedata
from pathlib import Path
from typing import Any, Self

from mcplock.lint.finding import LintFinding
from mcplock.model import paths
from mcplock.model.severity import is_severity

# a few locks' worth (the file is read on every `check`: ~150 bytes an entry); beyond it the
# oldest entries this run did not use are dropped
MAX_ENTRIES = 10_000
STALE_DAYS = 30  # files of other rules versions untouched this long are removed


@functools.cache
def rules_version() -> str:
    """A digest of everything the per-definition lint depends on: any change to a rule makes it new."""
    from mcplock._version import __version__

    here = Path(__file__).resolve().parent
    h = hashlib.sha256()
    h.update(f"{__version__}\0{sys.version}\0{unicodedata.unidata_version}\0".encode())
    for p in [
        *sorted(here.glob("*.py")),
        *sorted((here.parent / "text").glob("*.py")),
        here.parent / "model" / "severity.py",
    ]:
        h.update(p.name.encode() + b"\0")
        h.update(p.read_bytes())
    return h.hexdigest()[:32]


def cache_dir(environ: Any = None) -> Path | None:
    return paths.cache_dir("lint", "MCPLOCK_LINT_CACHE", environ)


def _write(path: Path, data: bytes) -> bool:
    """Write ``data`` to ``path`` atomically; False (and nothing written) on any OSError."""
    import tempfile

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".lint.", suffix=".tmp", dir=path.parent)
    except OSError:
        return False
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
        return True
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        return False


def _secret() -> bytes | None:
    from mcplock.errors import McplockError
    from mcplock.model.machine_key import machine_secret

    try:
        return machine_secret()
    except McplockError:  # a key others could write: believe nothing signed with it
        return None


def _signed(secret: bytes | None, kind: bytes, raw: bytes, field: str) -> Any:
    """The value of ``field`` in a file :func:`_dump` wrote with this machine's key; None when the
    file is not such a file (another writer's, edited, unsigned, not JSON)."""
    if secret is None:
        return None
    head, sep, body = raw.partition(b',"' + field.encode() + b'":')
    if not sep or not body.endswith(b"}"):
        return None
    try:
        if not _vouched_for(secret, kind, json.loads(head + b"}"), body[:-1]):
            return None
        return json.loads(body[:-1])
    except ValueError:
        return None


def _vouched_for(secret: bytes, kind: bytes, top: Any, body: bytes) -> bool:
    """A file's head ``top`` names this rules version, and its ``mac`` signs ``body`` with ``secret``."""
    from mcplock.model.machine_key import signed_by

    if not isinstance(top, dict) or top.get("rules") != rules_version():
        return False
    return signed_by(secret, kind + b"\0" + rules_version().encode(), body, top.get("mac"))


def _dump(secret: bytes, kind: bytes, field: str, value: Any) -> bytes:
    from mcplock.model.machine_key import sign

    body = json.dumps(value, separators=(",", ":")).encode()
    mac = sign(secret, kind + b"\0" + rules_version().encode(), body)
    return (
        json.dumps({"rules": rules_version(), "mac": mac}, separators=(",", ":")).encode()[:-1]
        + b',"'
        + field.encode()
        + b'":'
        + body
        + b"}"
    )


class _SignedCache:
    """A file of the lint cache directory, signed with this machine's key: ``NAME-<rules
    version>.json``, whose ``FIELD`` (an object) is read into ``_entries``."""

    NAME: str
    FIELD: str

    def __init__(self, directory: Path | None):
        self._secret = _secret() if directory else None
        # nothing signed can be believed or written without the key
        self.path = (
            directory / f"{self.NAME}-{rules_version()}.json" if directory and self._secret is not None else None
        )
        self._entries: dict[str, Any] = {}  # what the file holds: each value checked on read
        if self.path is not None:
            with contextlib.suppress(OSError):
                entries = _signed(self._secret, self.NAME.encode(), self.path.read_bytes(), self.FIELD)
                self._entries = entries if isinstance(entries, dict) else {}

    @classmethod
    def open(cls) -> Self | None:
        """The user's cache; None when it is turned off (``MCPLOCK_LINT_CACHE=0``)."""
        try:
            directory = cache_dir()
            return cls(directory) if directory is not None else None
        except OSError:
            return None

    def _dumped(self, entries: dict[str, Any]) -> bytes:
        assert self._secret is not None
        return _dump(self._secret, self.NAME.encode(), self.FIELD, entries)


class LintCache(_SignedCache):
    """Findings and tool-name-like words per (kind, content hash), for one rules version."""

    NAME, FIELD = "lint", "entries"

    def __init__(self, directory: Path | None):
        super().__init__(directory)
        self._used: set[str] = set()
        self._dirty = False

    @staticmethod
    def key(kind: str, content_hash: str) -> str:
        return f"{kind}:{content_hash}"

    def get(self, kind: str, content_hash: str) -> tuple[list[LintFinding], frozenset[str]] | None:
        k = self.key(kind, content_hash)
        hit = _entry(self._entries.get(k))
        if hit is not None:
            self._used.add(k)
        return hit

    def put(self, kind: str, content_hash: str, found: list[LintFinding], words: frozenset[str]) -> None:
        k = self.key(kind, content_hash)
        self._entries[k] = [[[f.rule, f.severity, f.message, f.where] for f in found], sorted(words)]
        self._used.add(k)
        self._dirty = True

    def save(self) -> None:
        """Write the entries back when some are new (atomically; a failure is silent)."""
        if self.path is None or not self._dirty:
            return
        if _write(self.path, self._dumped(_bounded(self._entries, self._used))):
            self._prune()

    def _prune(self) -> None:
        assert self.path is not None
        cutoff = time.time() - STALE_DAYS * 86400
        for p in [*self.path.parent.glob("lint-*.json"), *self.path.parent.glob("locks-*.json")]:
            with contextlib.suppress(OSError):
                if p != self.path and p.stat().st_mtime < cutoff:
                    p.unlink()


def _entry(value: Any) -> tuple[list[LintFinding], frozenset[str]] | None:
    """A lint cache entry as (findings, words); None when it is not an entry of ours (lint afresh)."""
    if not _two_lists(value):
        return None
    found_raw, words = value
    try:
        found = [_finding(*map(str, f)) for f in found_raw]  # four fields each, or a TypeError
    except (TypeError, ValueError):
        return None
    return (found, frozenset(words)) if _strings(words) else None


def _finding(rule: str, severity: str, message: str, where: str) -> LintFinding:
    """A cached finding; a ValueError for a severity that is none of ours (the entry is linted afresh)."""
    if not is_severity(severity):
        raise ValueError(severity)
    return LintFinding(rule, severity, message, where)


def _two_lists(value: Any) -> bool:
    """The shape of a lint cache entry: [findings, words]."""
    return isinstance(value, list) and len(value) == 2 and all(isinstance(v, list) for v in value)


def _strings(value: list[Any]) -> bool:
    return all(isinstance(x, str) for x in value)


def _bounded(entries: dict[str, Any], used: set[str]) -> dict[str, Any]:
    """``entries`` cut to :data:`MAX_ENTRIES`: those this run ``used``, then the newest others."""
    if len(entries) <= MAX_ENTRIES:
        return entries
    others = [k for k in entries if k not in used]  # oldest first: new keys are appended
    keep = used.union(others[max(0, len(others) - max(0, MAX_ENTRIES - len(used))) :])
    return {k: v for k, v in entries.items() if k in keep}


MAX_LOCKS = 32  # lock verdicts kept (a few branches of a few projects)


def lock_digest(items: list[tuple[str, str, str, str]]) -> str:
    """The digest of a lock's accepted items: every (server, kind, key, verified content hash)."""
    h = hashlib.sha256()
    for item in sorted(items):
        h.update("\0".join(item).encode() + b"\n")
    return h.hexdigest()


class LockVerdicts(_SignedCache):
    """The critical rules per accepted item of a whole lock, keyed by :func:`lock_digest`: the lint
    of every item and the cross-server pass are functions of the items and their hashes, so a lock
    whose items are all unchanged (the usual pre-commit run) reads one entry, not one per item.
    ``$MCPLOCK_CACHE_DIR/lint/locks-<rules version>.json``; a value that does not parse is ignored."""

    NAME, FIELD = "locks", "locks"

    def get(self, digest: str) -> dict[tuple[str, str, str], list[str]] | None:
        """(server, kind, key) -> the critical rules of that item (items without any left out)."""
        value = self._entries.get(digest)
        if not isinstance(value, dict):
            return None
        out: dict[tuple[str, str, str], list[str]] = {}
        for k, rules in value.items():
            item = _item(k)
            if item is None or not isinstance(rules, list) or not _strings(rules):
                return None
            out[item] = rules
        return out

    def put(self, digest: str, verdict: dict[tuple[str, str, str], list[str]]) -> None:
        """Remember ``verdict`` for ``digest`` and write the file (the oldest entries beyond
        :data:`MAX_LOCKS` dropped; a failure is silent)."""
        if self.path is None:
            return
        self._entries.pop(digest, None)
        self._entries[digest] = {"\0".join(k): v for k, v in verdict.items()}
        keep = list(self._entries)[-MAX_LOCKS:]
        _write(self.path, self._dumped({k: self._entries[k] for k in keep}))


def _item(key: Any) -> tuple[str, str, str] | None:
    """The (server, kind, key) a verdict's key joins with NULs; None when it is not three parts."""
    parts = key.split("\0") if isinstance(key, str) else []
    return (parts[0], parts[1], parts[2]) if len(parts) == 3 else None
