"""Refreshing locked servers: re-import those that came from a host config, probe, and
stage what changed as pending (changed items are quarantined by the review rules)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from mcplock.core import oauth
from mcplock.core.probing import result_of, unpinnable
from mcplock.core.specs import imported, probe_spec, routed
from mcplock.errors import ConfigError, HashError, McplockError, ProbeError
from mcplock.lock.model import ServerEntry
from mcplock.lock.spec import ClientIdentity, ServerSpec
from mcplock.text.untrusted import shell_word


@dataclass
class Plan:
    """What to probe, and the host-config entries to write back (name → (spec, config hash))."""

    specs: list[ServerSpec]
    reimported: dict[str, tuple[ServerSpec, str]]


def plan(selected: list[ServerEntry], base: str, *, use_stored_client: bool = True) -> Plan:
    """The specs to refresh ``selected`` with: a server imported from a host config as the
    config has it now (it must still be there), any other as locked, and so is one whose host
    entry now launches the guard for it (``export --guard``: the lock's spec is what runs)."""
    from mcplock.hosts import config_hash

    sources: dict[str, Any] = {}
    out = Plan([], {})
    for srv in selected:
        imp = _imported_now(sources, srv, base)
        if imp is not None and not routed(imp, srv.name):
            out.reimported[srv.name] = (imp.spec, config_hash(imp.spec))
            locked = srv.as_launched(base, use_stored_client=use_stored_client)
            out.specs.append(
                replace(probe_spec(imp.spec, base), auth=locked.auth, client=locked.client, package=srv.spec.package)
            )
        else:
            out.specs.append(srv.as_launched(base, use_stored_client=use_stored_client))
    return out


def launch_specs(selected: Iterable[ServerEntry], lock_dir: str) -> list[ServerSpec]:
    """What `diff` and `refresh` would launch for locked servers: each as locked, and a server
    imported from a host config also as the config has it now, where that differs."""
    from mcplock.core.trust import launch_hash

    out: list[ServerSpec] = []
    for srv in selected:
        locked = srv.as_launched(lock_dir)
        out.append(locked)
        if srv.spec.source:
            try:
                fresh = plan([srv], lock_dir).specs[0]
            except McplockError:
                continue  # the config no longer reads: refresh refuses it anyway
            if launch_hash(fresh) != launch_hash(locked):
                out.append(fresh)
    return out


def _imported_now(sources: dict[str, Any], srv: ServerEntry, base: str) -> Any:
    """A server's entry in the host config it was imported from, as that is now (None: not
    imported); an unreadable config, or one that no longer holds it, is an error."""
    try:
        imp = imported(sources, srv, base)
    except McplockError as e:
        raise ConfigError(f"`{srv.name}` was imported from {srv.spec.source}: {e.message}", hint=e.hint) from None
    if srv.spec.source and imp is None:
        raise ConfigError(
            f"`{srv.name}` is no longer in {srv.spec.source}",
            hint=f"run `mcplock remove {shell_word(srv.name)}`, or put it back in {srv.spec.source}",
        )
    return imp


def _completes(locked: Any, ran: Any) -> bool:
    """Whether ``ran`` is ``locked`` with the tree-integrity it lacked."""
    return (
        locked is not None
        and ran is not None
        and locked.tree_integrity is None
        and replace(ran, tree_integrity=None) == locked
    )


def apply(
    lockfile: str,
    base: str,
    selected: list[ServerEntry],
    results: dict[str, Any],
    the_plan: Plan,
    client: ClientIdentity | None,
    pins: dict[str, Any] | None = None,
    vouched: dict[str, Any] | None = None,
) -> tuple[list[tuple[str, Any]], dict[str, ProbeError]]:
    """Stage the probe results in the lock (one transaction). Returns each refreshed
    server's StageResult, and the servers that failed (one whose answer cannot be hashed
    among them, left as it was). ``pins``: package pins to move (`update`), written only for
    servers whose probe succeeded; ``vouched``: server -> the publisher key that vouched for
    what it answered, or None (mcplock.publish.vouch; a server not named keeps its record)."""
    from mcplock.lock import review
    from mcplock.lock.store import transaction

    failed: dict[str, ProbeError] = {}
    summary: list[tuple[str, Any]] = []
    with transaction(lockfile) as fresh:
        for srv in selected:
            r = result_of(results, srv.name)
            if isinstance(r, ProbeError):
                failed[srv.name] = r
                continue
            cur = fresh.servers.get(srv.name)
            if cur is None:
                continue  # removed meanwhile
            try:
                staged = review.stage(cur, r)  # changes nothing when it raises
            except HashError as e:
                failed[srv.name] = unpinnable(e)
                continue
            _update_spec(cur, srv.name, r, the_plan.reimported.get(srv.name), pins or {}, client, base)
            if vouched is not None and srv.name in vouched:
                cur.publisher = vouched[srv.name]
            summary.append((srv.name, staged))
    return summary, failed


def _update_spec(
    cur: ServerEntry,
    name: str,
    r: Any,
    reimported: tuple[ServerSpec, str] | None,
    pins: dict[str, Any],
    client: ClientIdentity | None,
    base: str,
) -> None:
    """A refreshed server's lock entry beside its items: the launch re-imported from its host
    config, the package pin moved or completed, the client identity re-pinned, the auth method
    a stored OAuth login shows."""
    if reimported is not None:
        _reimport(cur, *reimported)
    _repin(cur, name, r, pins)
    if client is not None:
        cur.client = client  # a run with --client-name re-pins the identity
    oauth.record_oauth(cur, base)  # a server that started asking for an OAuth login: auth = "oauth"


def _reimport(cur: ServerEntry, sp: ServerSpec, chash: str) -> None:
    """The launch of a server imported from a host config, as the config has it now."""
    cur.spec = replace(
        cur.spec,
        transport=sp.transport,
        command=sp.command,
        args=sp.args,
        env=dict(sp.env),
        pass_env=tuple(sorted(set(sp.pass_env))),
        cwd=sp.cwd,
        url=sp.url,
        headers=dict(sp.headers),
    )
    cur.config_hash = chash


def _repin(cur: ServerEntry, name: str, r: Any, pins: dict[str, Any]) -> None:
    """The package pin ``update`` moves (``pins``), or a hand-written pin completed with the
    tree-integrity of the install the probe ran."""
    if name in pins:
        cur.spec = replace(cur.spec, package=pins[name])
    elif _completes(cur.spec.package, getattr(r, "package", None)):
        # a hand-written pin gains the tree-integrity of its install
        cur.spec = replace(cur.spec, package=r.package)
