"""Drift evidence: a call that passed the locked schema and then failed upstream with
"invalid params" or "unknown tool" says the lock and the live server differ.

It is recorded outside the lock, per user, in one small JSON file per project (the lock's
directory) under the user state directory (``MCPLOCK_STATE_DIR`` overrides it), so a run
never writes to the repository. A record names the accepted hash it was seen against; once
that tool is accepted again (another hash) the record no longer applies. Light: nothing
third-party (:mod:`mcplock.model.paths` says where).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from typing import Any

from mcplock.lock.model import Lock
from mcplock.model import paths

MAX_RECORDS = 200


def path_for(lockfile: str) -> str:
    project = os.path.dirname(os.path.abspath(lockfile)) or "."
    key = hashlib.sha256(project.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return os.path.join(paths.state_dir(), f"drift-{key}.json")


def read(lockfile: str) -> list[dict[str, Any]]:
    try:
        with open(path_for(lockfile), encoding="utf-8") as fh:
            doc = json.load(fh)
    except (OSError, ValueError):
        return []
    records = doc.get("records") if isinstance(doc, dict) else None
    return [r for r in records or [] if isinstance(r, dict)]


def record(lockfile: str, server: str, tool: str, accepted_hash: str | None, code: Any, message: str) -> None:
    """Add one record (deduplicated by server, tool, hash and error code). Never raises."""
    entry = {"server": server, "tool": tool, "hash": accepted_hash, "code": code, "message": message[:500]}
    records = [
        r
        for r in read(lockfile)
        if (r.get("server"), r.get("tool"), r.get("hash"), r.get("code")) != (server, tool, accepted_hash, code)
    ]
    records.append(entry)
    path = path_for(lockfile)
    doc = {"version": 1, "project": os.path.dirname(os.path.abspath(lockfile)), "records": records[-MAX_RECORDS:]}
    with contextlib.suppress(OSError):
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".drift-", dir=os.path.dirname(path))
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(doc, fh, indent=2, ensure_ascii=False)
        os.replace(tmp, path)


def current(lockfile: str, lock: Lock) -> list[dict[str, Any]]:
    """The records that still apply: the tool is locked with the hash the call was checked against."""
    out = []
    for r in read(lockfile):
        srv = lock.servers.get(str(r.get("server")))
        e = srv.tools.get(str(r.get("tool"))) if srv is not None else None
        if e is not None and e.hash is not None and e.hash == r.get("hash"):
            out.append(r)
    return out
