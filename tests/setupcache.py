"""Set-up commands run once per test process: a test whose subject is not `mcplock add` (a guard
test, say) locks its server with :func:`locked`, which runs the commands for real the first time
and, for every later test that runs the same commands on the same inputs, writes the lock they
made and trusts its launches in the test's project, as `mcplock trust` does (no probe, no process).

What the commands write is the project's lock (``mcp.lock``) and this user's trust record
(``trust.json``); ``add`` writes nothing else (tests/test_setupcache.py). A set-up is reused only
when the commands wrote no other file of the test's directory (a flag command that keeps a host's
export in step writes one) and the record they left is exactly the launches of the lock they made
(the trust `mcplock trust` gives; a launch hash names the project's directory, so it is made
afresh in each test's), those launches and the commands as typed before their packages were
pinned (what `add` of a package pin trusts) or nothing (a flag command trusts nothing). The key is everything that
decides the lock: the commands, the inputs they read (files of the test's directory, the lock and
its export record before them) and the MCPLOCK_* settings. A command that fails fails the test, as
it would have.

A test that gives the commands settings of its own (``env``: a local package index's URL, a cache
directory in its tmp directory) names those that only point at a per-test copy of the same thing
(``alike``) and passes what they point at as ``salt`` (the index's releases): they key by that.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from mcplock.core.refresh import launch_specs
from mcplock.core.trust import TrustStore, launch_hash, needs_trust, project_key, trust
from mcplock.lock.read import load

from conftest import run_cli

LOCK = "mcp.lock"
RECORD = "mcp.lock.exports.json"  # what a flag command keeps in step when it is there
# key → the lock the commands made, whether they trusted its launches, and its commands as typed too
_made: dict[tuple, tuple[bytes, bool, bool]] = {}


def _key(
    steps: Sequence[Sequence[str]], inputs: Sequence[str], given: Mapping[str, str], alike: Sequence[str], salt: str
) -> tuple:
    files = tuple((p, Path(p).read_bytes() if Path(p).exists() else None) for p in (LOCK, RECORD, *inputs))
    settings = {**os.environ, **given}
    env = tuple(
        sorted((k, v) for k, v in settings.items() if (k.startswith("MCPLOCK_") or k == "CI") and k not in alike)
    )
    return tuple(tuple(s) for s in steps), files, env, tuple(sorted(alike)), salt


def _files_here() -> dict[str, bytes]:
    return {str(f): f.read_bytes() for f in Path().rglob("*") if f.is_file()}


def _trusted_here() -> set[str]:
    return set(TrustStore()._read().get(project_key(os.getcwd()), {}))


def _launches() -> list:
    """What `mcplock trust` trusts for every server of the lock here."""
    here = os.getcwd()
    return [s for s in launch_specs(load(LOCK).servers.values(), here) if needs_trust(s)]


def _typed() -> list:
    """The commands as typed before their packages were pinned: what `add` trusts first (the
    launches of the lock here without their pins)."""
    return [replace(s, package=None) for s in _launches() if s.package is not None]


def locked(
    *steps: Sequence[str],
    inputs: Sequence[str] = ("surface.json",),
    timeout: float = 120,
    env: Mapping[str, str] | None = None,
    alike: Sequence[str] = (),
    salt: object = None,
) -> bool:
    """Run each of ``steps`` (the arguments of one `mcplock` command, each asserted to exit 0) in
    the test's directory, or write what they wrote the last time this process ran them on the
    same ``inputs``. True when they ran. ``env``, ``alike``, ``salt``: see the module docstring."""
    key = _key(steps, inputs, env or {}, alike, json.dumps(salt, sort_keys=True, default=repr))
    made = _made.get(key)
    if made is not None:
        Path(LOCK).write_bytes(made[0])
        if made[1]:
            trust(_launches(), os.getcwd())
        if made[2]:
            trust(_typed(), os.getcwd())
        return False
    trusted, files = _trusted_here(), _files_here()
    for args in steps:
        r = run_cli(*args, timeout=timeout, env=dict(env or {}))
        assert r.returncode == 0, f"mcplock {' '.join(args)}\n{r.stdout}{r.stderr}"
    wrote = {f for f, data in _files_here().items() if files.get(f) != data}
    recorded = _trusted_here() - trusted
    launches = {launch_hash(s) for s in _launches()}
    typed = {launch_hash(s) for s in _typed()}
    if wrote <= {LOCK} and recorded in (set(), launches, launches | typed):
        _made[key] = (Path(LOCK).read_bytes(), bool(recorded), bool(recorded) and recorded != launches)
    # else (a host's file written beside the lock, or a trust the lock does not name): the
    # commands run each time
    return True
