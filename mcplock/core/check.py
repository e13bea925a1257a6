"""``mcplock check``: the offline gate (pure; no network, no MCP SDK).

Findings: a stored hash that no longer matches its stored definition (tampering or a
bad hand edit), a value the reader read as something safer than what was written (an
unknown `approval`), pending proposals awaiting review, and — for servers imported from a
host config — the config and the lock out of sync (or the config gone).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from mcplock.errors import HashError, McplockError
from mcplock.lock.model import Entry, Lock, ServerEntry
from mcplock.lock.targets import format_target, label
from mcplock.text.untrusted import name_text, shell_word

if TYPE_CHECKING:
    from mcplock.core.export import FileChange, Plan
    from mcplock.core.export_record import Record
    from mcplock.hosts.model import HostConfig
    from mcplock.lint.cache import LintCache, LockVerdicts
    from mcplock.lint.finding import LintFinding
    from mcplock.trust.org_policy import OrgPolicy, Violation


@dataclass(frozen=True)
class Finding:
    # "hash-mismatch" | "unknown-value" | "pending" | "config-changed" | "config-missing" | "source-missing"
    # | "not-locked" | "config-error" | "pin-no-integrity" | "pin-not-exact"
    # | "policy/RULE" (the organisation's policy)
    code: str
    server: str
    message: str
    hint: str
    kind: str | None = None  # "tool" | "prompt" | … when it is about one item
    name: str | None = None
    table: tuple[str, ...] = ()  # the lock table it is about (for line numbers)

    def as_json(self) -> dict[str, object]:
        return {
            "code": self.code,
            "server": self.server,
            "kind": self.kind,
            "name": self.name,
            "message": self.message,
            "hint": self.hint,
        }


def _table(server: str, e: Entry) -> tuple[str, ...]:
    if e.kind == "instructions":
        return ("server", server)
    return ("server", server, e.kind, e.key)


def integrity(lock: Lock) -> list[Finding]:
    out: list[Finding] = []
    for sname in sorted(lock.servers):
        for e in lock.servers[sname].entries():
            for pending in (False, True):
                found = _hash_mismatch(lock, sname, e, pending)
                if found is not None:
                    out.append(found)
    return out


def _hash_mismatch(lock: Lock, sname: str, e: Entry, pending: bool) -> Finding | None:
    """An item's stored definition (accepted, or its ``pending`` proposal) against its stored
    hash; None when they match or nothing is stored."""
    stored = _stored_hash(e, pending)
    if stored is None or _actual_hash(e, sname, pending) == stored:
        return None
    what = f"pending {e.kind}" if pending else e.kind
    return Finding(
        "hash-mismatch",
        sname,
        f"{what} `{name_text(label(sname, e))}`: the stored definition does not match its hash "
        "(edited by hand or tampered with)",
        f"restore mcp.lock from git (`git checkout -- {lock.path or 'mcp.lock'}`), "
        f"or run `mcplock refresh {shell_word(sname)}` (it stages what the server offers) and "
        f"`mcplock accept {shell_word(label(sname, e))}`",
        e.kind,
        e.key,
        _table(sname, e),
    )


def _stored_hash(e: Entry, pending: bool) -> str | None:
    """The hash stored for the accepted definition, or for the pending proposal (None: none)."""
    if pending:
        return e.pending.hash if e.pending else None
    return e.hash


def _actual_hash(e: Entry, sname: str, pending: bool) -> str:
    """The hash of the stored definition (or proposal) as it reads now; one that cannot be hashed
    says why (it matches no stored hash)."""
    try:
        return e.compute_hash(pending=pending, server=sname)
    except HashError as err:
        return f"unhashable ({err.message})"


def verified(lock: Lock, lock_path: str) -> Lock:
    """``lock``, once every stored definition matches its hash; else the error (exit 2) that
    names the items and how to restore them. Every command that acts on what the lock holds
    (``diff``, ``export``, ``update``, the guard) reads it through this before anything else: a
    hand-edited definition is never a baseline, never served, never exported."""
    from mcplock.errors import LockfileError

    bad = integrity(lock)
    if not bad:
        return lock
    items = "; ".join(f.message for f in bad[:5]) + (f"; and {len(bad) - 5} more" if len(bad) > 5 else "")
    raise LockfileError(
        f"the lock fails its hashes: {items}",
        path=lock_path,
        hint=f"{bad[0].hint}; `mcplock check` lists every one",
        code="hash-mismatch",
    )


def read_notes(lock: Lock) -> list[Finding]:
    """What the reader read as something safer than what was written (an unknown `approval`)."""
    out: list[Finding] = []
    for table, message in lock.notes:
        server = table[1] if len(table) > 1 else ""
        kind, key = (table[2], table[3]) if len(table) > 3 else (None, None)
        out.append(Finding("unknown-value", server, message, _approval_hint(server, kind, key), kind, key, table))
    return out


def _approval_hint(server: str, kind: str | None, key: str | None) -> str:
    """How to set an approval the reader could not read: for the tool it is about, or in general."""
    if kind == "tool" and key is not None:
        return f"set it with `mcplock approval {shell_word(format_target(server, kind, key))} always|never`"
    return "set it with `mcplock approval SERVER/TOOL always|never`"


def pending(lock: Lock) -> list[Finding]:
    out: list[Finding] = []
    for sname in sorted(lock.servers):
        for e in lock.servers[sname].entries():
            if e.pending is None:
                continue
            target = label(sname, e)
            out.append(
                Finding(
                    "pending",
                    sname,
                    f"{e.kind} `{name_text(target)}`: pending {e.pending.change} awaits review",
                    f"review with `mcplock diff {shell_word(sname)}`, then `mcplock accept {shell_word(target)}` or "
                    f"`mcplock reject {shell_word(target)}`",
                    e.kind,
                    e.key,
                    _table(sname, e),
                )
            )
    return out


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
    from mcplock.core.export import policy_in_step

    return _hosts_sync(lock, lock_path, rec.hosts, org, policy_in_step(lock_path, rec.policy, policy), policy)


def _recorded_policy_sync(lock: Lock, lock_path: str, rec: Record) -> list[Finding]:
    """The export's host settings against the lock under the policy the export recorded (no
    ``--policy`` given): a finding when that policy cannot be read."""
    from mcplock.core.export import recorded_policy
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
    return _hosts_sync(lock, lock_path, rec.hosts, org, rec.policy, rec.policy)


def _hosts_sync(
    lock: Lock, lock_path: str, hosts: list[str], org: OrgPolicy | None, recorded: str | None, shown: str | None
) -> list[Finding]:
    """The host settings exported to ``hosts`` against the plan that would bring them in step
    (``recorded``: the policy that plan records; ``shown``: the one hints name)."""
    from mcplock.core.export import plan, policy_hint

    again = policy_hint(shown)
    try:
        p = plan(lock, lock_path, hosts, org=org, policy=recorded)
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


def pins(lock: Lock) -> list[Finding]:
    """Package pins that vouch for nothing: a version that is no one exact release (an alias, a
    range, a tag, a URL), or no integrity to check the artefact against."""
    out: list[Finding] = []
    for sname, srv in sorted(lock.servers.items()):
        found = _pin_finding(sname, srv)
        if found is not None:
            out.append(found)
    return out


def _pin_finding(sname: str, srv: ServerEntry) -> Finding | None:
    """A server's package pin that names no one exact release, or that carries no integrity."""
    pin = srv.spec.package
    if pin is None:
        return None
    problem = pin.problem()
    if problem is not None:
        return Finding(
            "pin-not-exact",
            sname,
            f"`{name_text(sname)}`'s {pin.registry} pin names no one exact release: {problem}; "
            "nothing of it is started",
            f"restore mcp.lock from git, or run `mcplock update {shell_word(sname)}` to pin an exact release again",
            table=("server", sname, "package"),
        )
    if not pin.integrities():
        return Finding(
            "pin-no-integrity",
            sname,
            f"`{name_text(sname)}` pins {pin.registry} package {pin.label} without "
            "an integrity: what runs cannot be checked",
            f"run `mcplock update {shell_word(sname)}` to resolve the pin again (or restore mcp.lock from git)",
            table=("server", sname, "package"),
        )
    return None


def critical_accepted(lock: Lock, findings: list[Finding] | None = None) -> list[Finding]:
    """Warnings (they do not fail the gate): accepted, enabled items whose definition carries a
    critical lint finding — accepted by name, or before the lint knew better.

    ``findings``: this run's :func:`run_check` findings. The accepted definitions whose stored hash
    they do not dispute (no ``hash-mismatch``) are linted through the lint cache, keyed by that hash;
    when every item is accepted and verified, the whole lock's verdict is read at once
    (:class:`mcplock.lint.cache.LockVerdicts`, keyed by the digest of every item's hash)."""
    from mcplock.lint.cache import LintCache, LockVerdicts

    if findings is None:
        return _warnings(lock, _critical_rules(lock, None, {}))
    hashes, whole = _verified_hashes(lock, findings)
    verdicts = LockVerdicts.open() if whole else None
    if verdicts is None:
        return _warnings(lock, _critical_rules(lock, LintCache.open(), hashes))
    # every item accepted and verified: the whole lock's verdict, at once
    return _warnings(lock, _lock_verdict(lock, verdicts, hashes))


def _lock_verdict(
    lock: Lock, verdicts: LockVerdicts, hashes: dict[tuple[str, str, str], str]
) -> dict[tuple[str, str, str], list[str]]:
    """The critical rules of a lock whose every item is accepted and verified: its verdict as
    stored (keyed by the digest of every item's hash), else linted now and stored."""
    from mcplock.lint.cache import LintCache, lock_digest

    digest = lock_digest([(*k, h) for k, h in hashes.items()])
    critical = verdicts.get(digest)
    if critical is None:
        critical = _critical_rules(lock, LintCache.open(), hashes)
        verdicts.put(digest, critical)
    return critical


def _verified_hashes(lock: Lock, findings: list[Finding]) -> tuple[dict[tuple[str, str, str], str], bool]:
    """The stored hash of each item (server, kind, key) that ``findings`` do not dispute (no
    ``hash-mismatch``), and whether every item of the lock is accepted and verified so."""
    disputed = {(f.server, f.kind, f.name) for f in findings if f.code == "hash-mismatch"}
    hashes = _stored_hashes(lock, lambda sname, e: (sname, e.kind, e.key) not in disputed)
    return hashes, not disputed and _all_accepted(lock)


def _stored_hashes(lock: Lock, keep: Callable[[str, Entry], bool]) -> dict[tuple[str, str, str], str]:
    """The stored hash of each item (server, kind, key) that has one and that ``keep`` keeps."""
    return {
        (sname, e.kind, e.key): e.hash
        for sname, srv in lock.servers.items()
        for e in srv.entries()
        if e.hash and keep(sname, e)
    }


def _all_accepted(lock: Lock) -> bool:
    """Whether every item of the lock is accepted (nothing pending), each definition with its hash."""
    return all(
        e.pending is None and (e.hash or e.definition is None) for srv in lock.servers.values() for e in srv.entries()
    )


def _critical_rules(
    lock: Lock, cache: LintCache | None, hashes: dict[tuple[str, str, str], str]
) -> dict[tuple[str, str, str], list[str]]:
    """The critical rules of each item with any, linted now (through ``cache``, keyed by ``hashes``)."""
    from mcplock.lint.entries import lint_entries  # the rules: only when the lock's verdict is not known

    found = lint_entries(lock.servers.values(), cache=cache, hashes=hashes)
    if cache is not None:
        cache.save()
    rules = {k: _critical_of(v) for k, v in found.items()}
    return {k: v for k, v in rules.items() if v}


def _critical_of(findings: list[LintFinding]) -> list[str]:
    """The rules of an item's critical findings, sorted, each once."""
    from mcplock.model.severity import CRITICAL

    return sorted({f.rule for f in findings if f.severity == CRITICAL})


def _warnings(lock: Lock, critical: dict[tuple[str, str, str], list[str]]) -> list[Finding]:
    """``critical-accepted`` warnings: accepted, enabled items with critical rules in ``critical``."""
    out: list[Finding] = []
    for sname in sorted(lock.servers):
        for e in lock.servers[sname].entries():
            rules = critical.get((sname, e.kind, e.key)) if _in_use(e) else None
            if rules:
                out.append(_critical_warning(sname, e, rules))
    return out


def _in_use(e: Entry) -> bool:
    """Whether an item is accepted (nothing pending), with a definition, and enabled."""
    return e.pending is None and e.definition is not None and e.enabled


def _critical_warning(sname: str, e: Entry, rules: list[str]) -> Finding:
    """An accepted, enabled item with critical ``rules``: how to review it (and hide a tool)."""
    target = label(sname, e)
    typed = shell_word(target)  # `echo ` (a space at its end) must reach that item, not `echo`
    hint = f"review it with `mcplock show {typed}`"
    if e.kind == "tool":
        hint += f"; `mcplock disable {typed}` hides it from hosts"
    return Finding(
        "critical-accepted",
        sname,
        f"{e.kind} `{name_text(target)}` is accepted and enabled but has critical findings ({', '.join(rules)})",
        hint,
        e.kind,
        e.key,
        _table(sname, e),
    )


def code_env(lock: Lock) -> list[Finding]:
    """``env-loads-code`` (critical) warnings: servers whose launch sets or passes on a variable
    that makes the launcher load other code (``NODE_OPTIONS``, ``LD_PRELOAD``, ``PYTHONPATH`` …,
    :mod:`mcplock.packages.envcode`): code outside the package pin. Said in every run and format, like
    ``critical-accepted``; an organisation's ``review.max-accepted-severity`` below critical
    makes it fail the gate (docs/pins.md, "Variables that load code")."""
    from mcplock.packages.envcode import of_spec

    out: list[Finding] = []
    for sname in sorted(lock.servers):
        names = of_spec(lock.servers[sname].spec)
        if names:
            out.append(
                Finding(
                    "env-loads-code",
                    sname,
                    f"`{sname}` sets {', '.join(names)}, which make{'s' if len(names) == 1 else ''} its "
                    "launcher load other code: that code runs outside the package pin (critical)",
                    f"remove the variable from the server's entry unless a person reviewed what it loads "
                    f"(`mcplock show {shell_word(sname)}` shows the launch)",
                    table=("server", sname),
                )
            )
    return out


def run_check(lock: Lock, lock_path: str, org: OrgPolicy | None = None, policy: str | None = None) -> list[Finding]:
    """``policy``: the ``--policy`` file ``org`` came from (named again in hints)."""
    from mcplock.interop.stale import stale as interop_stale

    findings = integrity(lock) + read_notes(lock) + pending(lock) + pins(lock)
    if any(s.spec.source for s in lock.servers.values()):
        findings += config_sync(lock, lock_path)
    findings += export_sync(lock, lock_path, org, policy)
    findings += [Finding(code, "", m, h) for code, m, h in interop_stale(lock, lock_path)]  # mcp-lock.json
    if org is not None:
        findings += policy_findings(org, lock)
        findings += signature_findings(org, lock_path)
    return findings


def signature_findings(org: OrgPolicy, lock_path: str) -> list[Finding]:
    """``[signing] require = true``: the lock's signature (docs/signing.md) as a finding when it is
    missing, by a key the policy does not list, or over another lock or policy. A malformed
    envelope or key is an error (exit 2), raised."""
    if not org.signing_required:
        return []
    from mcplock.trust.signing import SignatureError, enforce

    try:
        enforce(org, lock_path)
    except SignatureError as e:
        return [Finding("signature", "", e.message, e.hint or "")]
    return []


def _lint_untampered(lock: Lock) -> dict[tuple[str, str, str], list[LintFinding]]:
    """The lint findings of every item, the definitions that match their stored hash read
    through the lint cache (keyed by that hash)."""
    from mcplock.lint.cache import LintCache
    from mcplock.lint.entries import lint_entries

    hashes = _stored_hashes(lock, lambda _sname, e: not e.tampered())
    cache = LintCache.open()
    found = lint_entries(lock.servers.values(), cache=cache, hashes=hashes)
    if cache is not None:  # None: the lint cache is off (MCPLOCK_LINT_CACHE=0)
        cache.save()
    return found


def policy_findings(org: OrgPolicy, lock: Lock) -> list[Finding]:
    """What the organisation's policy forbids in the lock (docs/policy.md), as findings that name
    the rule and the policy file."""
    from mcplock.trust.org_policy import violations

    found = _lint_untampered(lock) if org.strictest_severity is not None else None
    out = _severity_findings(org, lock)
    for v in violations(org, lock, found):
        out.append(Finding(f"policy/{v.rule}", v.server, v.message, v.hint, v.kind, v.key, _violation_table(v)))
    return out


def _severity_findings(org: OrgPolicy, lock: Lock) -> list[Finding]:
    """Under a policy that accepts nothing above a severity below critical: each variable that
    loads code (``env-loads-code``) as a breach of ``review.max-accepted-severity``."""
    limit = org.strictest_severity
    if limit is None or limit == "critical":
        return []
    return [
        Finding(
            "policy/review.max-accepted-severity",
            w.server,
            f"{w.message}; the policy accepts nothing above {limit} ({org.rule('review.max-accepted-severity')})",
            w.hint,
            table=w.table,
        )
        for w in code_env(lock)
    ]


def _violation_table(v: Violation) -> tuple[str, ...]:
    """The lock table a policy violation is about: its server's, or its item's."""
    if v.kind in (None, "instructions"):
        return ("server", v.server)
    return ("server", v.server, v.kind, v.key or "")
