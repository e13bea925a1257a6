"""Pure comparison: a locked server × a live snapshot → changes, each with a severity, the
one-line reason for it (:mod:`mcplock.lint.triage`) and the security lint's findings on its new text.

Drift is a result, not an error. A live definition is compared with the accepted
one by hash; one whose hash is the rejected one counts as reviewed. Server identity
(serverInfo, protocol version) is reported apart and never counts as drift.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mcplock.errors import ProbeError
from mcplock.lint import (
    LintFinding,
    lint_definition,
    rename_finding,
    triage,
)
from mcplock.lint.cloaking import Cloaked as Cloaked  # the reports name it from here
from mcplock.lint.cloaking import cloaking as cloaking  # core/diff calls it from here
from mcplock.lint.skills import unbound_documents
from mcplock.lock.model import ITEM_KINDS, Entry, ServerEntry
from mcplock.lock.review import live_items
from mcplock.model.documents import is_dynamic
from mcplock.model.severity import at_least
from mcplock.model.snapshot import KEY_FIELD, Snapshot


@dataclass
class Change:
    kind: str  # "tool" | "prompt" | "resource-template" | "resource" | "instructions"
    name: str
    change: str  # "added" | "removed" | "changed"
    fields: list[str]
    severity: str  # one of mcplock.model.severity.SEVERITIES
    locked_hash: str | None
    live_hash: str | None
    locked: Any = None  # accepted definition
    live: Any = None  # live definition
    findings: list[Any] = field(default_factory=list)
    reason: str = ""  # one line: why it got its severity

    def as_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "name": self.name,
            "change": self.change,
            "fields": self.fields,
            "severity": self.severity,
            "reason": self.reason,
            "locked_hash": self.locked_hash,
            "live_hash": self.live_hash,
            "findings": [f.as_json() if hasattr(f, "as_json") else f for f in self.findings],
            **({"dynamic": self.dynamic} if self.kind == "skill" else {}),
        }

    @property
    def dynamic(self) -> bool:
        """A skill whose live (else locked) entry says ``resources: "dynamic"``: not content-bound."""
        return is_dynamic(self.live if self.live is not None else self.locked)


@dataclass
class PendingItem:
    """A proposal staged in the lock, awaiting review (not drift). ``detail``: the staged
    difference from the accepted definition when the server still offers exactly what was staged."""

    kind: str
    name: str
    change: str  # "new" | "changed" | "removed"
    detail: Change | None = None

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "name": self.name, "change": self.change}
        if self.detail is not None:
            out.update(
                severity=self.detail.severity,
                reason=self.detail.reason,
                fields=self.detail.fields,
                findings=self.detail.as_json()["findings"],
            )
        return out


@dataclass
class ServerDiff:
    name: str
    status: str  # "ok" | "drift" | "unreachable"
    error: ProbeError | None = None
    changes: list[Change] = field(default_factory=list)
    pending: list[PendingItem] = field(default_factory=list)
    identity: dict[str, Any] | None = None
    cloaked: list[Cloaked] | None = None  # with --cloak: what other identities saw (None: not asked)

    @property
    def findings(self) -> bool:
        return bool(self.changes or self.pending)

    @property
    def critical_cloaks(self) -> int:
        """How many of its items (``diff --cloak``) another host is answered otherwise."""
        return sum(k.severity == "critical" for k in self.cloaked or ())

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "status": self.status,
            "error": None
            if self.error is None
            else {"kind": self.error.kind, "message": self.error.message, "hint": self.error.hint},
            "changes": [c.as_json() for c in self.changes],
            "pending": [p.as_json() for p in self.pending],
            "identity": self.identity,
            **({"cloaking": [c.as_json() for c in self.cloaked]} if self.cloaked is not None else {}),
        }


def changed_fields(old: Any, new: Any) -> list[str]:
    if not isinstance(old, dict) or not isinstance(new, dict):
        return [] if old == new else ["text"]
    return sorted(k for k in set(old) | set(new) if old.get(k, _MISSING) != new.get(k, _MISSING))


_MISSING = object()


def _change(
    kind: str,
    key: str,
    change: str,
    fields: list[str],
    locked_hash: str | None,
    live_hash: str | None,
    locked: Any,
    live: Any,
) -> Change:
    sev, reason = triage.baseline(kind, change, fields, locked, live)
    return Change(kind, key, change, fields, sev, locked_hash, live_hash, locked, live, reason=reason)


# what a new App document is judged against on a server the lock already vouches for: nothing (a
# tool repointed at a new `ui://` document must not pass as news where a swapped one alarms)
_NO_DOCUMENT = {"text": ""}


def _lint(c: Change, known: bool = False, own: frozenset[str] = frozenset()) -> None:
    """Put the security lint's findings for ``c`` on it and raise its severity to match.
    ``known``: the lock already vouches for this server (it has accepted tools); ``own``: the
    names of the server's tools."""
    if c.change == "removed":
        return
    old = c.locked if c.change == "changed" else (_NO_DOCUMENT if c.kind == "ui" and known else None)
    c.findings.extend(lint_definition(c.kind, c.live, old=old, name=c.name, own=own))
    rejudge(c)


def _covered_by_instructions(changes: list[Change]) -> None:
    """An act in one item, its concealment or authority in the server's changed instructions: critical.
    A destination the new instructions name ("the auditor is audit@…") that an item's new text moves
    something to ("must also reach the auditor"): the act split in two (:mod:`mcplock.lint.aliases`)."""
    from mcplock.lint.aliases import aliased_acts, aliases
    from mcplock.lint.novelty import beside_instructions

    said = next((c for c in changes if c.kind == "instructions" and c.change == "changed"), None)
    if said is None:
        return
    names = aliases(said.locked, said.live)
    for c in changes:
        if c is said or c.change == "removed":
            continue
        found = aliased_acts(names, c.kind, c.locked if c.change == "changed" else None, c.live)
        if found:
            c.findings.extend(found)
            rejudge(c)
        covered = beside_instructions(said.locked, said.live, c.findings)
        if covered is not None:
            c.findings.append(covered)
            rejudge(c)


def rejudge(c: Change) -> None:
    """``c``'s severity and reason again, after findings were added to it."""
    c.severity, c.reason = triage.judge(c.severity, c.reason, [f for f in c.findings if isinstance(f, LintFinding)])


def _without_key(kind: str, definition: Any) -> Any:
    key = KEY_FIELD.get(kind)
    if not isinstance(definition, dict) or key is None:
        return definition
    return {k: v for k, v in definition.items() if k != key}


def _of(changes: list[Change], kind: str, change: str) -> list[Change]:
    return [c for c in changes if c.kind == kind and c.change == change]


def _renames(changes: list[Change]) -> None:
    """A removed and an added item of one kind whose definitions differ only in the key: a rename."""
    for kind in ("tool", "prompt"):
        removed = _of(changes, kind, "removed")
        if not removed:
            continue
        for c in _of(changes, kind, "added"):
            _match_rename(kind, c, removed)


def _match_rename(kind: str, added: Change, removed: list[Change]) -> None:
    """Mark ``added`` a rename of the first of ``removed`` whose definition is its own but for the
    key; that one is used up (it renames no other)."""
    body = _without_key(kind, added.live)
    for r in removed:
        if _without_key(kind, r.locked) == body:
            added.findings.append(rename_finding(r.name))
            removed.remove(r)
            return


def _all_fields(definition: Any) -> list[str]:
    """The fields of a definition added or removed whole (a text is one field, ``text``)."""
    return sorted(definition) if isinstance(definition, dict) else ["text"]


def _reviewed(e: Entry | None, h: str) -> bool:
    """``h`` is the hash of what ``e`` accepted or rejected: nothing to review."""
    return e is not None and (e.rejected_hash == h or (e.definition is not None and e.hash == h))


def _offered(kind: str, key: str, e: Entry | None, definition: Any, h: str) -> Change | None:
    """What one item the server offers is against its entry: changed from the accepted
    definition, or added; None when its hash is the accepted or the rejected one (reviewed)."""
    if _reviewed(e, h):
        return None
    if e is not None and e.definition is not None:
        fields = changed_fields(e.definition, definition)
        return _change(kind, key, "changed", fields, e.hash, h, e.definition, definition)
    return _change(kind, key, "added", _all_fields(definition), None, h, None, definition)


def _withdrawn(kind: str, existing: dict[str, Entry], offered: dict[str, tuple[Any, str]]) -> list[Change]:
    """Each accepted item of one kind the server no longer offers, in key order."""
    out: list[Change] = []
    for key in sorted(existing):
        e = existing[key]
        if key not in offered and e.definition is not None:
            out.append(_change(kind, key, "removed", _all_fields(e.definition), e.hash, None, e.definition, None))
    return out


def _kind_changes(kind: str, existing: dict[str, Entry], offered: dict[str, tuple[Any, str]]) -> list[Change]:
    """The changes of one kind: each offered item against its entry, then each accepted one no longer offered."""
    out: list[Change] = []
    for key in sorted(offered):
        definition, h = offered[key]
        c = _offered(kind, key, existing.get(key), definition, h)
        if c is not None:
            out.append(c)
    return out + _withdrawn(kind, existing, offered)


def _said(info: Any) -> dict[str, Any] | None:
    """The string fields of the server info a live server sent (None when there are none)."""
    if not isinstance(info, dict):
        return None
    return {k: v for k, v in info.items() if isinstance(v, str)} or None


def _identity(server: ServerEntry, snap: Snapshot) -> dict[str, Any] | None:
    """The server's identity (server info, protocol version) locked and live, when they differ."""
    locked_id = {"server_info": server.server_info, "protocol_version": server.protocol_version}
    live_id = {"server_info": _said(snap.server_info), "protocol_version": snap.protocol_version}
    return {"locked": locked_id, "live": live_id} if locked_id != live_id else None


def compare(server: ServerEntry, snap: Snapshot) -> ServerDiff:
    result = ServerDiff(name=server.name, status="ok")
    live = live_items(server, snap)
    for kind in ("instructions", *ITEM_KINDS):
        result.changes += _kind_changes(kind, server.pinned(kind), live[kind])
    known = any(e.accepted for e in server.tools.values())
    own = frozenset(str(k).lower() for k in (*live["tool"], *server.tools))  # lower case, once per diff
    for c in result.changes:
        _lint(c, known, own)
    _covered_by_instructions(result.changes)
    for d, found in unbound_documents(result.changes):
        d.findings.append(found)
        rejudge(d)
    _renames(result.changes)
    _split_staged(server, result)
    result.identity = _identity(server, snap)
    if result.changes:
        result.status = "drift"
    return result


def _staged(e: Entry, c: Change) -> bool:
    """``c`` is exactly what ``e``'s pending proposal stages (what `refresh` recorded)."""
    p = e.pending
    if p is None:
        return False
    if c.change == "removed":
        return p.change == "removed"
    return p.change != "removed" and p.hash == c.live_hash


def _split_staged(server: ServerEntry, result: ServerDiff) -> None:
    """A difference already staged in the lock is pending review, not drift: it leaves
    ``changes`` for ``pending`` (with its detail). Each item appears once: one that drifted
    again past its proposal stays a change (refresh re-stages it)."""
    by_key = {(c.kind, c.name): c for c in result.changes}
    staged: set[tuple[str, str]] = set()
    result.pending = []
    for e in server.entries():
        if e.pending is None:
            continue
        c = by_key.get((e.kind, e.key))
        if c is None:
            result.pending.append(PendingItem(e.kind, e.key, e.pending.change))
        elif _staged(e, c):
            staged.add((e.kind, e.key))
            result.pending.append(PendingItem(e.kind, e.key, e.pending.change, detail=c))
    result.changes = [c for c in result.changes if (c.kind, c.name) not in staged]


def unreachable(server: ServerEntry, error: ProbeError) -> ServerDiff:
    d = ServerDiff(name=server.name, status="unreachable", error=error)
    d.pending = [PendingItem(e.kind, e.key, e.pending.change) for e in server.entries() if e.pending is not None]
    return d


def _fails(d: ServerDiff, fail_on: str | None) -> bool:
    """Something of the server is pending review, or a change counts as drift (with ``fail_on``,
    one of that severity or worse)."""
    return bool(d.pending) or any(fail_on is None or at_least(c.severity, fail_on) for c in d.changes)


def exit_code(diffs: list[ServerDiff], fail_on: str | None = None) -> int:
    """1 on drift or pending review, else 2 if a server's command, script or working directory
    is not on this machine, else 3 if a server was unreachable, else 0. With ``fail_on``
    (a severity) only a change of that severity or worse counts as drift; pending items always do."""
    if any(_fails(d, fail_on) for d in diffs):
        return 1
    if any(d.critical_cloaks for d in diffs):
        return 1  # a server that answers a host otherwise than the probe (diff --cloak)
    unreachable = [d for d in diffs if d.status == "unreachable"]
    if any(d.error is not None and d.error.exit_code == 2 for d in unreachable):
        return 2  # what it runs is not on this machine: an input error, not an outage
    return 3 if unreachable else 0
