"""``mcplock check``: the offline gate (pure; no network, no MCP SDK).

Findings: a stored hash that no longer matches its stored definition (tampering or a
bad hand edit), a value the reader read as something safer than what was written (an
unknown `approval`), pending proposals awaiting review, and — for servers imported from a
host config — the config and the lock out of sync (or the config gone).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mcplock.core.check_critical import critical_accepted as critical_accepted  # the CLI's warning, as before
from mcplock.core.check_critical import stored_hashes
from mcplock.core.check_finding import Finding as Finding  # every finding's type, imported from here as before
from mcplock.core.check_finding import item_table
from mcplock.core.check_sync import config_sync as config_sync
from mcplock.core.check_sync import export_sync as export_sync
from mcplock.errors import HashError
from mcplock.lock.model import Entry, Lock, ServerEntry
from mcplock.lock.targets import format_target, label
from mcplock.text.untrusted import name_text, shell_word

if TYPE_CHECKING:
    from mcplock.lint.finding import LintFinding
    from mcplock.trust.org_policy import OrgPolicy, Violation


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
        item_table(sname, e),
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


def repair_first(lock: Lock, exported: list[Finding], findings: list[Finding]) -> list[Finding]:
    """The export findings, their hints naming the lock's repair first while it fails its hashes
    (``findings`` holds a ``hash-mismatch``): ``mcplock export`` refuses such a lock, so a hint
    that names only the export cannot work until the lock is restored."""
    bad = next((f for f in findings if f.code == "hash-mismatch"), None)
    if bad is None:
        return exported
    from dataclasses import replace

    first = (
        f"first restore the lock from git ({repair_hint(lock)}, then `mcplock check`): "
        "`mcplock export` refuses a lock that fails its hashes; then "
    )
    return [replace(f, hint=first + f.hint) if "mcplock export" in f.hint else f for f in exported]


def repair_hint(lock: Lock) -> str:
    """The command that repairs a lock that fails its hashes: the committed lock restored."""
    return f"`git checkout -- {shell_word(lock.path or 'mcp.lock')}`"


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
                    item_table(sname, e),
                )
            )
    return out


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
    exported = export_sync(lock, lock_path, org, policy)
    exported += [Finding(code, "", m, h) for code, m, h in interop_stale(lock, lock_path)]  # mcp-lock.json
    findings += repair_first(lock, exported, findings)
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

    hashes = stored_hashes(lock, lambda _sname, e: not e.tampered())
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
