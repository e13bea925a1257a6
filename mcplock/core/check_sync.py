"""Whether the files beside the lock still say what it says (``mcplock check``): the host
configs servers were imported from (gone, unreadable, an entry changed, a server not locked),
and the host settings ``mcplock export`` wrote (a flag changed since, a rule edited by hand, a
merge's conflict markers, the user's own settings that override the lock)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from mcplock.core.check_finding import Finding
from mcplock.errors import McplockError
from mcplock.lock.model import Lock, ServerEntry
from mcplock.text.untrusted import name_text, shell_word

if TYPE_CHECKING:
    from mcplock.core.export import FileChange, Plan
    from mcplock.core.export_record import Record
    from mcplock.hosts.model import HostConfig
    from mcplock.trust.org_policy import OrgPolicy


def config_sync(lock: Lock, lock_path: str) -> list[Finding]:
    """Servers imported from host configs against those configs, as they are now."""
    base = os.path.dirname(os.path.abspath(lock_path))
    out: list[Finding] = []
    for source, names in sorted(_by_source(lock).items()):
        out += _source_sync(lock, os.path.join(base, source), source, names)
    return out


def _by_source(lock: Lock) -> dict[str, list[str]]:
    """The servers imported from host configs, by the config they came from."""
    by_source: dict[str, list[str]] = {}
    for sname, srv in sorted(lock.servers.items()):
        if srv.spec.source:
            by_source.setdefault(srv.spec.source, []).append(sname)
    return by_source


def _source_sync(lock: Lock, path: str, source: str, names: list[str]) -> list[Finding]:
    """The servers ``names`` imported from ``source`` (at ``path``) against it: it is gone, it
    cannot be read, an entry drifted, or it holds a server the lock does not."""
    from mcplock.hosts import load_host_config

    if not os.path.lexists(path):
        return [_source_missing(sname, source) for sname in names]
    try:
        cfg = load_host_config(path, source=source)
    except McplockError as err:
        return [_source_unreadable(sname, source, err) for sname in names]
    return _drifted(lock, cfg, source, names) + _not_locked(lock, cfg, source)


def _drifted(lock: Lock, cfg: HostConfig, source: str, names: list[str]) -> list[Finding]:
    """The servers ``names`` whose entry in ``source`` is gone or changed since they were locked."""
    out: list[Finding] = []
    for sname in names:
        drift = _imported_drift(lock.servers[sname], cfg, source)
        if drift is not None:
            out.append(drift)
    return out


def _source_missing(sname: str, source: str) -> Finding:
    return Finding(
        "source-missing",
        sname,
        f"`{name_text(sname)}` was imported from {source}, which no longer exists",
        f"restore {source} (`git checkout -- {source}`), or run `mcplock remove {shell_word(sname)}`",
        table=("server", sname),
    )


def _source_unreadable(sname: str, source: str, err: McplockError) -> Finding:
    return Finding(
        "config-error",
        sname,
        f"`{name_text(sname)}` was imported from {source}, which cannot be read: {err.message}",
        err.hint or f"restore {source}, or `mcplock remove {shell_word(sname)}`",
        table=("server", sname),
    )


def _not_locked(lock: Lock, cfg: HostConfig, source: str) -> list[Finding]:
    """The servers of a host config the lock does not hold."""
    return [
        Finding(
            "not-locked",
            name,
            f"`{name_text(name)}` is in {source} but not in the lock",
            f"run `mcplock add --from {source} {name}`",
        )
        for name in sorted(cfg.servers)
        if name not in lock.servers
    ]


def _imported_drift(srv: ServerEntry, cfg: HostConfig, source: str) -> Finding | None:
    """A locked server against its entry in the host config it was imported from: gone, or
    changed since it was locked (an entry routed through the guard is in step by construction)."""
    from mcplock.core.specs import routed
    from mcplock.hosts import config_hash

    sname = srv.name
    imported = cfg.servers.get(sname)
    if imported is None:
        return Finding(
            "config-missing",
            sname,
            f"`{name_text(sname)}` is locked but no longer in {source}",
            f"run `mcplock remove {shell_word(sname)}` (or put it back in {source})",
            table=("server", sname),
        )
    if routed(imported, sname) or config_hash(imported.spec) == srv.config_hash:
        return None  # unchanged, or routed through the guard (`export --guard`, or by hand): in step by construction
    return Finding(
        "config-changed",
        sname,
        f"`{name_text(sname)}` changed in {source} since it was locked",
        f"run `mcplock refresh {shell_word(sname)}` to re-import and re-probe it",
        table=("server", sname),
    )


def export_sync(lock: Lock, lock_path: str, org: OrgPolicy | None = None, policy: str | None = None) -> list[Finding]:
    """Host settings written by ``mcplock export`` that no longer say what the lock says: a flag
    changed since the last export, or a rule mcplock wrote was edited or removed by hand.
    ``policy``: the ``--policy`` file ``org`` came from; without one, the policy the export
    recorded is what the settings are compared with. Every hint names the policy in effect."""
    from mcplock.core.export_record import record_path

    if not os.path.exists(record_path(lock_path)):  # never exported: skip the exporters' imports
        return []
    from mcplock.core import export_record

    try:
        rec = export_record.load(lock_path)
    except McplockError as err:
        return [Finding("export-error", "", err.message, err.hint or "restore it from git")]
    return _record_sync(lock, lock_path, rec, org, policy) if rec.hosts else []


def _record_sync(lock: Lock, lock_path: str, rec: Record, org: OrgPolicy | None, policy: str | None) -> list[Finding]:
    """The hosts ``rec`` names against the lock, under the policy in effect: ``--policy`` (which
    the plan records as the record keeps a path), else the one the export recorded."""
    if policy is None and rec.policy is not None:
        return _recorded_policy_sync(lock, lock_path, rec)
    from mcplock.core.export_policy import policy_in_step

    return _hosts_sync(lock, lock_path, rec, org, policy_in_step(lock_path, rec.policy, policy), policy)


def _recorded_policy_sync(lock: Lock, lock_path: str, rec: Record) -> list[Finding]:
    """The export's host settings against the lock under the policy the export recorded (no
    ``--policy`` given): a finding when that policy cannot be read."""
    from mcplock.core.export_policy import recorded_policy
    from mcplock.trust import org_policy

    try:
        org = org_policy.resolve(recorded_policy(lock_path, rec.policy))
    except McplockError as err:
        return [
            Finding(
                "export-error",
                "",
                f"the policy the last export used cannot be read: {err.message}",
                "restore the file, or export again without it: `mcplock export`",
            )
        ]
    return _hosts_sync(lock, lock_path, rec, org, rec.policy, rec.policy)


def _hosts_sync(
    lock: Lock, lock_path: str, rec: Record, org: OrgPolicy | None, recorded: str | None, shown: str | None
) -> list[Finding]:
    """The host settings exported to the hosts ``rec`` names against the plan that would bring
    them in step (``recorded``: the policy that plan records; ``shown``: the one hints name)."""
    from mcplock.core.export import plan
    from mcplock.core.export_policy import policy_hint

    again = policy_hint(shown)
    try:
        p = plan(lock, lock_path, rec.hosts, org=org, policy=recorded, record=rec)
    except McplockError as err:
        return [
            Finding(
                "export-error",
                "",
                f"exported host settings cannot be read: {err.message}",
                _regenerate_hint(err, again),
            )
        ]
    return _plan_drift(p, again)


def _plan_drift(p: Plan, again: str) -> list[Finding]:
    """What the plan that would bring the export in step says: a record or host file with a
    merge's conflict markers, a host file that drifted, the user's settings that override the
    lock. ``again``: the ``--policy`` the hints name."""
    out = []
    if p.record_conflicted:
        out.append(
            Finding(
                "export-conflict",
                "",
                f"{os.path.basename(p.record)}: a merge left git's conflict markers in it (both sides were read)",
                f"run `mcplock export{again}`: it writes the record and every host file "
                "again from the merged lock (`mcplock merge-driver install` merges the record as data next time)",
            )
        )
    for c in p.changes:
        out += _change_drift(c, again)
    return out


def _change_drift(c: FileChange, again: str) -> list[Finding]:
    """What one host file of the plan says: conflict markers between mcplock's rules, a drift
    from the lock's flags, and each of the user's settings that overrides the lock."""
    out = []
    if c.conflicted:
        out.append(
            Finding(
                "export-conflict",
                "",
                f"{c.path} ({c.host}): a merge left git's conflict markers in it, between rules mcplock wrote",
                f"run `mcplock export{again}`: it writes mcplock's rules again from the "
                "merged lock and keeps your own settings",
            )
        )
    elif c.changed:
        out.append(
            Finding(
                "export-drift",
                "",
                f"{c.path} ({c.host}) no longer matches the lock's flags "
                "(a flag changed since the last export, or an exported rule was edited by hand)",
                f"run `mcplock export --host {c.host}{again}` (`--dry-run` shows the change)",
            )
        )
    return out + [
        Finding(
            "export-contradicted",
            "",
            f"{c.path} ({c.host}): {text}",
            f"edit {c.path} by hand (mcplock never changes your own settings), then run `mcplock check`",
        )
        for text in c.contradictions
    ]


def _regenerate_hint(err: McplockError, again: str) -> str:
    return err.hint or f"fix the file, then run `mcplock export{again}`"
