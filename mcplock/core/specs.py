"""Lock entries ↔ ServerSpecs: what to probe a locked server with, what to lock for a
probed spec, and the server's current entry in its host config.

Paths in the lock (``cwd``, ``source``) are relative to the lock's directory, ``lock_dir``.
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Any

from mcplock.errors import McplockError, UsageError
from mcplock.lock.auth_spec import AuthSpec
from mcplock.lock.model import ServerEntry
from mcplock.lock.spec import ClientIdentity, ServerSpec


def lock_dir(lockfile: str) -> str:
    return os.path.dirname(os.path.abspath(lockfile)) or "."


def client_identity(client_name: str | None, client_version: str | None) -> ClientIdentity | None:
    """The client identity given for a run, as stored in the lock's `client`."""
    if not client_name:
        if client_version:
            raise UsageError("--client-version needs --client-name")
        return None
    return ClientIdentity(client_name, client_version or None)


def entry_from_spec(spec: ServerSpec, policy: str, config_hash: str | None, *, auth: AuthSpec | None) -> ServerEntry:
    """A new lock entry (nothing accepted yet) for a spec that probed successfully: the spec as
    locked (no secrets, no client identity: the entry records those) and ``auth``, the auth it
    used (:func:`mcplock.core.oauth.read_lock_auths`)."""
    locked = replace(spec, client=None, client_capabilities=None, pass_env=tuple(sorted(set(spec.pass_env))), auth=auth)
    return ServerEntry(spec.name, locked, config_hash=config_hash, policy=policy)


def probe_spec(spec: ServerSpec, base: str) -> ServerSpec:
    """A spec as written to the lock, made ready to probe (a stdio cwd resolved against ``base``,
    the rule :meth:`~mcplock.lock.model.ServerEntry.as_launched` follows too)."""
    return replace(spec, cwd=spec.launch_cwd(base)) if spec.stdio else spec


def source_path(path: str, base: str) -> str:
    """A host config path as stored in `source`: relative to the lock's directory."""
    ap = os.path.abspath(path)
    try:
        rel = os.path.relpath(ap, base)
    except ValueError:  # pragma: no cover - other drive on Windows
        return ap
    return rel if not rel.startswith("..") else ap


def imported(sources: dict[str, Any], srv: ServerEntry, base: str) -> Any:
    """The server's current entry in its host config (None when it has no source).
    ``sources`` caches the configs read so far."""
    if not srv.spec.source:
        return None  # (before the import: the guard's start of a server added by command)
    from mcplock.hosts import load_host_config

    source = srv.spec.source
    if source not in sources:
        sources[source] = load_host_config(os.path.join(base, source), source=source, project_dir=base)
    return sources[source].servers.get(srv.name)


def routed(imp: Any, name: str) -> bool:
    """Whether a host config's entry ``imp`` launches the guard for the locked server ``name``
    (``mcplock export --guard``, or by hand): then what runs is the lock's own spec, and the entry
    is in sync by construction (``check``, ``refresh``, ``trust`` and the imports all read it so)."""
    from mcplock.model.guard_argv import guard_target

    return imp is not None and guard_target(imp.spec.command, list(imp.spec.args)) == name


def runs_guard(imp: Any) -> bool:
    """Whether a host config's entry launches the guard (``mcplock run NAME``) for any server:
    never itself a server to lock."""
    from mcplock.model.guard_argv import guard_target

    return guard_target(imp.spec.command, list(imp.spec.args)) is not None


def locked_specs(selected: list[ServerEntry], base: str, *, use_stored_client: bool = True) -> list[ServerSpec]:
    """The specs to probe locked servers with, secrets taken from their host configs where
    those still read (a config problem is `check`'s to report; the lock's spec still probes)."""
    sources: dict[str, Any] = {}
    specs: list[ServerSpec] = []
    for srv in selected:
        secrets: dict[str, str] = {}
        try:
            imp = imported(sources, srv, base)
            if imp is not None and not routed(imp, srv.name):
                secrets = dict(imp.spec.secrets)
        except McplockError:
            pass
        specs.append(srv.as_launched(base, secrets, use_stored_client=use_stored_client))
    return specs
