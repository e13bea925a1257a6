"""The review workflows, offline: `accept` (in bulk, or walked one item at a time), `reject`,
`enable`, `disable`, `approval` and `remove`, each one transaction on the lock.

Every target is resolved before anything changes, and a function returns what it changed
only once the lock is written: a bad target or a failed write fails the whole command, with
nothing changed and nothing claimed. What a person is asked (the walk's key per item) comes
through an :data:`Ask` callback; the callers print.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from mcplock.errors import UsageError
from mcplock.lock import targets
from mcplock.lock.model import Entry, Lock, ServerEntry
from mcplock.text.untrusted import shell_word

if TYPE_CHECKING:
    from mcplock.core.add import Findings
    from mcplock.trust.org_policy import Forbidden, OrgPolicy, Violation

Item = tuple[ServerEntry, Entry]
# the walk's question about one item: (server, item, its number, how many, critical, --approval)
# -> (key: "a" accept, "r" reject, "s" skip, "A" accept the rest of the server, "q" quit; the
# approval chosen for an accepted tool, or None)
Ask = Callable[[ServerEntry, Entry, int, int, bool, "str | None"], "tuple[str, str | None]"]


def _tools(lockfile: str, items: list[str], fn: Callable[[ServerEntry, Entry], bool]) -> list[str]:
    """``fn`` on each tool named (a server names all its tools) in one transaction; the targets
    it changed."""
    from mcplock.lock.store import transaction

    if not items:
        raise UsageError("name at least one SERVER/TOOL")
    parsed = [targets.parse(x) for x in items]
    done: list[str] = []
    with transaction(lockfile) as lock:
        resolved = [targets.resolve(lock, t, tool_only=True) for t in parsed]
        for srv, entries in resolved:
            done += _changed_tools(srv, entries, fn)
    return done


def _changed_tools(srv: ServerEntry, entries: list[Entry], fn: Callable[[ServerEntry, Entry], bool]) -> list[str]:
    """The targets of the tools among ``entries`` that ``fn`` changed (it runs on each tool)."""
    return [targets.label(srv, e) for e in entries if e.kind == "tool" and fn(srv, e)]


def set_enabled(lockfile: str, items: list[str], value: bool) -> list[str]:
    """Enable (``value``) or disable the tools named; the targets changed. Only an accepted
    definition the server still offers may be enabled."""

    def apply(srv: ServerEntry, e: Entry) -> bool:
        if value:
            _refuse_enable(srv, e, targets.label(srv, e))
        if e.pending is not None and e.pending.enabled_before is not None:
            e.pending.enabled_before = value
        if e.enabled == value:
            return False
        e.enabled = value
        return True

    return _tools(lockfile, items, apply)


def _refuse_enable(srv: ServerEntry, e: Entry, target: str) -> None:
    if e.pending is not None and e.pending.change == "changed":
        raise UsageError(
            f"`{target}` is quarantined: its server changed it since it was accepted",
            hint=f"review with `mcplock show {shell_word(target)}`, then `mcplock accept "
            f"{shell_word(target)}` or `mcplock reject {shell_word(target)}`",
        )
    if e.definition is None:
        raise UsageError(
            f"`{target}` was never accepted: there is no definition to enable",
            hint=_never_accepted_hint(srv, e, target),
        )
    if e.rejected_hash is not None:
        raise UsageError(
            f"`{target}` was rejected: its server offers a definition you refused, not the accepted one",
            hint=f"it stays disabled until its server offers something else; then `mcplock refresh "
            f"{shell_word(srv.name)}` stages that for review and `mcplock accept {shell_word(target)}` "
            "enables it",
        )
    if e.tampered():
        raise UsageError(
            f"`{target}`: the stored definition does not match its hash (edited by hand or tampered with)",
            hint=f"restore mcp.lock from git, or run `mcplock refresh {shell_word(srv.name)}` and "
            f"`mcplock accept {shell_word(target)}`",
        )


def _never_accepted_hint(srv: ServerEntry, e: Entry, target: str) -> str:
    """How to get a definition to enable: accept the proposal pending, or stage one first."""
    typed = shell_word(target)
    if e.pending is not None:
        return f"review it with `mcplock show {typed}`, then `mcplock accept {typed}`"
    return (
        f"run `mcplock refresh {shell_word(srv.name)}` to stage what the server offers, then "
        f"`mcplock accept {shell_word(target)}`"
    )


def set_approval(lockfile: str, items: list[str], mode: str) -> list[str]:
    """Set the approval of the tools named (and of their pending proposals: `accept` keeps a
    person's choice over the policy); the targets changed."""

    def apply(srv: ServerEntry, e: Entry) -> bool:
        changed = e.approval != mode
        e.approval = mode
        if e.pending is not None and e.pending.change != "removed" and e.pending.approval != mode:
            e.pending.approval = mode
            changed = True
        return changed

    return _tools(lockfile, items, apply)


def pending_targets(lock: Lock, items: list[str], all_: bool) -> list[tuple[ServerEntry, Entry, bool]]:
    """(server, entry, named) of each pending item chosen; ``named``: the item itself was named
    (``SERVER/TOOL``), not picked in bulk (``--all``, ``SERVER``)."""
    if all_:
        return _all_pending(lock)
    chosen: list[tuple[ServerEntry, Entry, bool]] = []
    seen: set[int] = set()
    for item in items:
        srv, with_pending, named = _pending_named(lock, item)
        for e in with_pending:
            if id(e) not in seen:
                seen.add(id(e))
                chosen.append((srv, e, named))
    return chosen


def _all_pending(lock: Lock) -> list[tuple[ServerEntry, Entry, bool]]:
    """Every pending item of the lock, server by server (none of them named)."""
    chosen: list[tuple[ServerEntry, Entry, bool]] = []
    for _, srv in sorted(lock.servers.items()):
        chosen += [(srv, e, False) for e in srv.entries() if e.pending is not None]
    return chosen


def _pending_named(lock: Lock, item: str) -> tuple[ServerEntry, list[Entry], bool]:
    """What one target names that is pending: (server, its items with a proposal, whether the
    target names one item); an item named with nothing pending is refused."""
    t = targets.parse(item)
    srv, entries = targets.resolve(lock, t)
    with_pending = [e for e in entries if e.pending is not None]
    named = t.kind is not None
    if named and not with_pending:
        raise UsageError(f"`{t}` has nothing pending", hint="`mcplock list` shows what awaits review")
    return srv, with_pending, named


def reject(lockfile: str, items: list[str]) -> list[tuple[str, str]]:
    """Record the pending proposals named as seen but refused; (result, target) of each:
    "rejected", or "removal" (a server that no longer offers an item: `accept` drops it)."""
    from mcplock.lock import review
    from mcplock.lock.store import transaction

    done: list[tuple[str, str]] = []
    with transaction(lockfile) as lock:
        for srv, e, _ in pending_targets(lock, items, False):
            r = review.reject(srv, e)
            if r in ("removal", "rejected"):
                done.append((r, targets.label(srv, e)))
    return done


def remove(lockfile: str, names: list[str]) -> list[str]:
    """Drop the servers named (each must be in the lock); the names dropped."""
    from mcplock.lock.store import transaction

    with transaction(lockfile) as lock:
        for name in names:
            targets.server_of(lock, name)
        for name in names:
            del lock.servers[name]
    return names


@dataclass
class Tally:
    """What an accept decided; ``done``: (result, target) per decision, reported once written."""

    accepted: int = 0
    removed: int = 0
    rejected: int = 0
    held: list[str] = field(default_factory=list)  # critical items not accepted in bulk
    interrupted: bool = False
    done: list[tuple[str, str]] = field(default_factory=list)
    left: int = 0  # still pending in the lock afterwards
    high: list[str] = field(default_factory=list)  # accepted items whose worst lint finding is high
    critical: list[str] = field(default_factory=list)  # accepted (by name) with a critical finding

    def record(self, srv: ServerEntry, e: Entry, result: str, findings: Findings | None = None) -> None:
        if result == "accepted":
            self.accepted += 1
            self._note_high(srv, e, findings)
        elif result == "removed":
            self.removed += 1
        elif result == "rejected":
            self.rejected += 1
        else:
            return
        self.done.append((result, targets.label(srv, e)))

    def _note_high(self, srv: ServerEntry, e: Entry, findings: Findings | None) -> None:
        """An accepted item is named by its worst lint finding: in ``critical`` or in ``high``."""
        from mcplock.model import severity

        found = {f.severity for f in (findings or {}).get((srv.name, e.kind, e.key), [])}
        if severity.CRITICAL in found:
            self.critical.append(targets.label(srv, e))
        elif severity.HIGH in found:
            self.high.append(targets.label(srv, e))


def accept(
    lockfile: str,
    items: list[str],
    *,
    all_: bool,
    approval: str | None = None,
    org: OrgPolicy | None = None,
    include_critical: bool = False,
    ask: Ask | None = None,
    note: Callable[[str], None] | None = None,
) -> Tally | None:
    """Accept what ``items`` name (or everything, ``all_``) in one transaction: walked one item
    at a time through ``ask`` when given (the servers named, or everything), else in bulk with
    critical items held unless named or ``include_critical``. ``None``: nothing was pending.

    The organisation's policy ``org``: in bulk anything it forbids refuses the whole command
    (nothing is written); the walk leaves those items out, each ``note``d. Ctrl-C in the walk
    stops it and keeps what was decided (``Tally.interrupted``)."""
    from mcplock.lint.entries import lint_entries
    from mcplock.lock.store import transaction

    tally = Tally()
    with transaction(lockfile) as lock:
        chosen = pending_targets(lock, items, _chooses_all(all_, items, ask))
        if not chosen:
            return None
        findings = lint_entries(lock.servers.values())
        if org is not None:
            chosen = _allowed(org, chosen, findings, approval, ask is not None, note)
        if ask is not None:
            _walk(ask, [(s, e) for s, e, _ in chosen], findings, approval, tally)
        else:
            _accept_bulk(chosen, findings, approval, include_critical, tally)
    tally.left = sum(s.pending_count() for s in lock.servers.values())
    return tally


def _chooses_all(all_: bool, items: list[str], ask: Ask | None) -> bool:
    """Whether an accept takes every pending item: ``--all``, or a walk with no target named."""
    return all_ or (ask is not None and not items)


def _accept_bulk(
    chosen: list[tuple[ServerEntry, Entry, bool]],
    findings: Findings,
    approval: str | None,
    include_critical: bool,
    tally: Tally,
) -> None:
    """Accept each item chosen; a critical one picked in bulk is held (unless ``include_critical``)."""
    from mcplock.core.add import is_critical

    for srv, e, named in chosen:
        held = not named and not include_critical and is_critical(srv.name, e, findings)
        _accept_unless_held(srv, e, held, approval, findings, tally)


def _accept_unless_held(
    srv: ServerEntry, e: Entry, held: bool, approval: str | None, findings: Findings, tally: Tally
) -> None:
    """Accept one item, or name it among those ``held`` back (a critical item in bulk)."""
    if held:
        tally.held.append(targets.label(srv, e))
    else:
        _accept_one(srv, e, approval, findings, tally)


def _walk(ask: Ask, chosen: list[Item], findings: Findings, approval: str | None, tally: Tally) -> None:
    """One item at a time: ``a`` accepts, ``r`` rejects, ``s`` skips, ``A`` accepts the rest of
    this server (never a critical item), ``q`` stops; Ctrl-C stops too, the decisions kept."""
    from mcplock.core.add import is_critical

    bulk: set[str] = set()  # servers whose rest is accepted (`A`)
    try:
        for n, (srv, e) in enumerate(chosen, 1):
            critical = is_critical(srv.name, e, findings)
            if srv.name in bulk:
                _accept_unless_held(srv, e, critical, approval, findings, tally)
                continue
            decision, chosen_approval = ask(srv, e, n, len(chosen), critical, approval)
            if decision == "q":
                break
            if decision == "A":
                bulk.add(srv.name)
                _accept_unless_held(srv, e, critical, chosen_approval, findings, tally)
            else:
                _decide(srv, e, decision, chosen_approval, findings, tally)
    except KeyboardInterrupt:
        tally.interrupted = True


def _decide(srv: ServerEntry, e: Entry, decision: str, approval: str | None, findings: Findings, tally: Tally) -> None:
    """One item's key in the walk: ``a`` accepts it, ``r`` rejects it, any other skips it."""
    from mcplock.lock import review

    if decision == "a":
        _accept_one(srv, e, approval, findings, tally)
    elif decision == "r":
        tally.record(srv, e, review.reject(srv, e))


def _accept_one(srv: ServerEntry, e: Entry, approval: str | None, findings: Findings, tally: Tally) -> None:
    """Accept one item (``approval`` is a tool's only) and tally it."""
    from mcplock.lock import review

    tally.record(srv, e, review.accept(srv, e, approval=approval if e.kind == "tool" else None), findings)


def _allowed(
    org: OrgPolicy,
    chosen: list[tuple[ServerEntry, Entry, bool]],
    findings: Findings,
    approval: str | None,
    walking: bool,
    note: Callable[[str], None] | None,
) -> list[tuple[ServerEntry, Entry, bool]]:
    """The items chosen that the policy lets be accepted. In bulk (not ``walking``) any item it
    forbids refuses the whole command; the walk leaves them out, each ``note``d."""
    out, refused = _policy_split(org, chosen, findings, approval)
    if refused and not walking:
        raise _forbidden(refused)
    if note is not None:
        for v in refused:
            note(f"not offered: {v.message}")
    return out


def _policy_split(
    org: OrgPolicy, chosen: list[tuple[ServerEntry, Entry, bool]], findings: Findings, approval: str | None
) -> tuple[list[tuple[ServerEntry, Entry, bool]], list[Violation]]:
    """The items chosen that the policy lets be accepted, and what it forbids of the others."""
    from mcplock.trust.org_policy import forbids_accept

    out: list[tuple[ServerEntry, Entry, bool]] = []
    refused: list[Violation] = []
    for srv, e, named in chosen:
        found = forbids_accept(org, srv, e, approval, findings.get((srv.name, e.kind, e.key)))
        if found:
            refused += found
        else:
            out.append((srv, e, named))
    return out, refused


def _forbidden(refused: list[Violation]) -> Forbidden:
    """The refusal of an accept in bulk that names what the policy forbids."""
    from mcplock.trust.org_policy import Forbidden

    return Forbidden(
        "the policy forbids accepting " + "; ".join(v.message for v in refused),
        hint=refused[0].hint.replace("disable it: `mcplock disable", "reject it instead: `mcplock reject")
        + "; nothing was accepted — accept the others by name",
    )
