"""``check``'s warning about what was accepted: enabled items whose accepted definition carries
a critical lint finding (accepted by name, or before the lint knew better), read through the
lint cache — the whole lock's verdict at once when every item is accepted and verified. A
warning never fails the gate."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from mcplock.core.check_finding import Finding, item_table
from mcplock.lock.model import Entry, Lock
from mcplock.lock.targets import label
from mcplock.text.untrusted import name_text, shell_word

if TYPE_CHECKING:
    from mcplock.lint.cache import LintCache, LockVerdicts
    from mcplock.lint.finding import LintFinding


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
    hashes = stored_hashes(lock, lambda sname, e: (sname, e.kind, e.key) not in disputed)
    return hashes, not disputed and _all_accepted(lock)


def stored_hashes(lock: Lock, keep: Callable[[str, Entry], bool]) -> dict[tuple[str, str, str], str]:
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
        item_table(sname, e),
    )
