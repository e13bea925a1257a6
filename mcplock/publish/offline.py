"""``mcplock diff OLD NEW``: two locks, two surface statements, or one of each, compared with no
server contacted — as ``diff`` compares a lock with live servers (docs/publishers.md).

OLD stands where the lock stands in ``diff``: each of its servers as it is locked (a statement:
a lock that accepted everything the statement shows). NEW stands where the live servers stand:
each server as NEW shows it (a lock: the definitions it accepted — what its hosts are allowed to
see; a statement: what the author says the server shows). The comparison, the severities, the
findings, the report and the exit code are ``diff``'s own (:mod:`mcplock.lint.compare`).

Servers are matched by name. A server only OLD has is compared with an empty answer (everything
removed), one only NEW has with an empty lock entry (everything added). A statement compared
with a lock is matched by its ``name``, or stands for the lock's only server.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mcplock.errors import UsageError
from mcplock.lock.model import Entry, Lock, ServerEntry
from mcplock.lock.spec import ServerSpec, Transport
from mcplock.model.snapshot import Snapshot
from mcplock.publish.statement import LISTS, Statement, looks_like


@dataclass
class Side:
    """One argument of ``diff OLD NEW``, read: a lock, or a statement."""

    path: str
    lock: Lock | None = None
    statement: Statement | None = None

    @property
    def kind(self) -> str:
        return "lock" if self.lock is not None else "surface statement"


@dataclass
class Compared:
    """What ``diff OLD NEW`` compares: OLD as a lock, NEW as each server's answer, and the
    pending proposals NEW itself holds (a lock's items awaiting review there)."""

    lock: Lock
    selected: list[ServerEntry]
    answers: dict[str, Snapshot]
    new_pending: dict[str, list[tuple[str, str, str]]] = field(default_factory=dict)


def read_side(path: str) -> Side:
    """``path`` as a lock or a statement, by what it holds (a JSON statement names its schema);
    an unreadable one is the reader's own error (exit 2)."""
    from mcplock.publish.statement import read

    try:
        with open(path, "rb") as fh:
            head = fh.read(4096)
    except OSError as e:
        raise UsageError(f"cannot read {path}: {e.strerror or e}", hint="check the path") from None
    if looks_like(head) or head.lstrip().startswith(b"{"):
        return Side(path, statement=read(path))
    from mcplock.lock.read import load

    return Side(path, lock=load(path))


def statement_entry(st: Statement, name: str) -> ServerEntry:
    """A lock entry that accepted everything ``st`` shows (what a pinned client of that
    release holds)."""
    from mcplock.lock import review

    snap = st.snapshot()
    entry = _empty(name, pin_resources=snap.resources is not None)
    review.stage(entry, snap)
    for e in list(entry.entries()):
        review.accept(entry, e)
    return entry


def _empty(name: str, *, pin_resources: bool) -> ServerEntry:
    spec = ServerSpec(name=name, transport=Transport.STDIO, command="mcp-surface.json", pin_resources=pin_resources)
    return ServerEntry(name=name, spec=spec)


def lock_snapshot(srv: ServerEntry) -> Snapshot:
    """What a lock entry last saw its server offer, as an answer: each item's pending proposal
    where it has one (a staged removal: not offered), else its accepted definition."""
    snap = Snapshot(
        server_info=srv.server_info,
        protocol_version=srv.protocol_version,
        instructions=_offered(srv.instructions) if srv.instructions is not None else None,
        resources=[] if srv.spec.pin_resources else None,
    )
    for kind, _member, attr in LISTS:
        if kind == "resource" and not srv.spec.pin_resources:
            continue
        setattr(snap, attr, [d for d in map(_offered, srv.items[kind].values()) if d is not None])
    return snap


def _offered(e: Entry) -> Any:
    """An entry's definition as its server last offered it (None: not offered)."""
    if e.pending is not None:
        return e.pending.definition if e.pending.change != "removed" else None
    return e.definition


def _statement_name(st: Statement, lock: Lock, where: str) -> str:
    """The lock's server a statement stands for: the one of its name, else the lock's only one."""
    if st.name in lock.servers:
        return st.name
    if len(lock.servers) == 1:
        return next(iter(lock.servers))
    names = ", ".join(sorted(lock.servers)) or "none"
    raise UsageError(
        f"{where} is the surface of `{st.name}`, and the lock has no server of that name (it has: {names})",
        hint="write the statement under the lock's name: `mcplock surface --name NAME …`",
    )


def compared(old: Side, new: Side) -> Compared:
    """OLD as a lock, NEW as answers, servers matched by name."""
    if old.lock is not None:
        lock = old.lock
    else:
        assert old.statement is not None
        name = new.statement.name if new.statement is not None else old.statement.name
        if new.lock is not None:
            name = _statement_name(old.statement, new.lock, old.path)
        lock = Lock({name: statement_entry(old.statement, name)}, path=old.path)
    answers: dict[str, Snapshot] = {}
    pending: dict[str, list[tuple[str, str, str]]] = {}
    if new.lock is not None:
        for name, srv in new.lock.servers.items():
            answers[name] = lock_snapshot(srv)
            pending[name] = [(e.kind, e.key, e.pending.change) for e in srv.entries() if e.pending is not None]
    else:
        assert new.statement is not None
        name = new.statement.name if old.statement is not None else _statement_name(new.statement, lock, new.path)
        answers[name] = new.statement.snapshot()
    return _with_unmatched(lock, answers, pending)


def _with_unmatched(lock: Lock, answers: dict[str, Snapshot], pending: dict[str, Any]) -> Compared:
    """Every server either side has: OLD's missing from NEW answer nothing; NEW's missing from
    OLD are compared with an empty entry."""
    servers = dict(lock.servers)
    for name, snap in answers.items():
        if name not in servers:
            servers[name] = _empty(name, pin_resources=snap.resources is not None)
    for name, srv in servers.items():
        if name not in answers:
            answers[name] = Snapshot(resources=[] if srv.spec.pin_resources else None)
    full = Lock(servers, path=lock.path)
    return Compared(full, list(servers.values()), answers, pending)


def diff_sides(old: Side, new: Side, fail_on: str | None = None) -> tuple[list[Any], int]:
    """The ServerDiffs of OLD against NEW and their exit code, as ``diff`` reports them. NEW's own
    pending proposals are pending review (with the change they make against OLD, as ``diff``
    shows a staged change); OLD's are not compared (NEW answers for the server)."""
    from mcplock.lint.compare import exit_code

    c = compared(old, new)
    for srv in c.selected:
        for e in srv.entries():
            e.pending = None
    diffs = _compare_all(c)
    for d in diffs:
        _pending_of_new(d, c.new_pending.get(d.name, []))
    return diffs, exit_code(diffs, fail_on)


def _compare_all(c: Compared) -> list[Any]:
    """Each server compared (one whose definitions cannot be hashed fails alone, as in ``diff``),
    then the cross-server findings (:func:`mcplock.core.diff.diff_servers`' steps, without a probe)."""
    from mcplock.errors import HashError, ProbeError
    from mcplock.lint import compare, cross_server

    diffs: list[Any] = []
    for srv in c.selected:
        try:
            diffs.append(compare.compare(srv, c.answers[srv.name]))
        except HashError as e:
            diffs.append(compare.unreachable(srv, ProbeError("unhashable", e.message, hint=e.hint)))
    answers: dict[str, Any] = dict(c.answers)
    cross_server.cross_server(
        diffs, cross_server.tools_in_view(c.lock, answers), cross_server.prompts_in_view(c.lock, answers)
    )
    return diffs


def _pending_of_new(d: Any, pending: list[tuple[str, str, str]]) -> None:
    """NEW's proposals as ``d``'s pending items; a change that is one of them leaves the changes."""
    from mcplock.lint.compare import PendingItem

    changes = {(ch.kind, ch.name): ch for ch in d.changes}
    d.pending = [PendingItem(kind, key, change, detail=changes.pop((kind, key), None)) for kind, key, change in pending]
    d.changes = [ch for ch in d.changes if (ch.kind, ch.name) in changes]
    if d.status == "drift" and not d.changes:
        d.status = "ok"
