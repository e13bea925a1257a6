"""``mcplock export``: the lock's per-tool flags written into each host's project settings.

Plain functions (never print or exit). :func:`tool_decisions` is the one flag → rule mapping;
:func:`plan` reads and validates every host file first and computes the new texts; only then
:func:`write` replaces the files (atomically, each) and the record of what mcplock wrote
(``<lock>.exports.json`` beside the lock, see docs/export.md). The merge touches only the
rules in that record: the user's own rules, keys, order and comments are left as they are.
"""

from __future__ import annotations

import difflib
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from mcplock.core import export_guard
from mcplock.core.export_record import FileState, dump_record, record_path
from mcplock.core.export_record import load_record as load_record  # re-exported: core/check reads the record
from mcplock.errors import ConfigError, UsageError
from mcplock.hosts.export import EXPORTERS as EXPORTERS  # re-exported: the CLI names the hosts
from mcplock.hosts.export import Exporter
from mcplock.hosts.export.document import Document
from mcplock.hosts.export.interface import ALLOW, ASK, DENY, Decisions, Item
from mcplock.hosts.export.safety import host_decisions
from mcplock.lock.model import Entry, Lock

if TYPE_CHECKING:
    from mcplock.orgpolicy import OrgPolicy


def tool_decision(server: str, name: str, entry: Entry, org: OrgPolicy | None = None) -> str:
    """What a host should do with one tool, as the guard's policy decides it offline
    (:func:`mcplock.policy.decide_tool` with nothing verified live): ``deny`` what the guard would
    refuse (not accepted, pending, rejected, disabled, quarantined), ``ask`` what asks for approval
    (``approval = "always"``, or an empty or unknown value), ``allow`` the rest (``"never"``).
    ``org``: the organisation's policy — a tool it denies is ``deny``, one it keeps on approval ``ask``."""
    from mcplock.policy import Host, decide_tool

    d = decide_tool(server, name, entry, host=Host(org=org), purpose="call")
    if d.verdict == "refuse":
        return DENY
    return ALLOW if d.verdict == "forward" and d.code == "ok" else ASK


def tool_decisions(lock: Lock, org: OrgPolicy | None = None) -> Decisions:
    return {s: {t: tool_decision(s, t, e, org) for t, e in srv.tools.items()} for s, srv in lock.servers.items()}


@dataclass
class FileChange:
    host: str
    path: str  # relative to the project
    before: str | None  # None: the file does not exist yet
    after: str
    notes: list[str] = field(default_factory=list)
    contradictions: list[str] = field(default_factory=list)  # the user's settings that override the lock

    @property
    def changed(self) -> bool:
        return self.before != self.after

    def diff(self) -> str:
        a = (self.before or "").splitlines(keepends=True)
        b = self.after.splitlines(keepends=True)
        old = f"a/{self.path}" if self.before is not None else "/dev/null"
        return "".join(difflib.unified_diff(a, b, old, f"b/{self.path}"))


@dataclass
class Plan:
    base: str
    record: str  # path of the record file
    changes: list[FileChange]
    states: dict[str, FileState]
    record_before: str | None
    record_after: str

    @property
    def changed(self) -> bool:
        return any(c.changed for c in self.changes) or self.record_before != self.record_after


def _read(root: str, path: str, shown: str, fmt: str) -> str | None:
    from pathlib import Path

    from mcplock.hosts.parse import parse, read_text

    base = os.path.realpath(os.path.dirname(path) or ".")
    if not (base + os.sep).startswith(os.path.realpath(root) + os.sep):
        raise ConfigError(
            f"{shown}: its directory is a link out of the project; mcplock export writes only inside the project",
            hint="replace the linked directory with a real one, or leave this host out with --host",
        )
    if os.path.islink(path):
        raise ConfigError(
            f"{shown}: is a symbolic link; mcplock export does not write through links",
            hint="replace the link with the file itself, or leave this host out with --host",
        )
    if not os.path.exists(path):
        return None
    if not os.access(path, os.W_OK) or not os.access(os.path.dirname(path) or ".", os.W_OK):
        raise ConfigError(f"{shown}: not writable", hint="make the file and its directory writable by this user")
    text = read_text(Path(path), shown)
    data = parse(text, shown, fmt)
    if not isinstance(data, dict):
        raise ConfigError(
            f"{shown}: the top level must be an object", hint="fix the file; the host cannot read it either"
        )
    return text


def _defined(doc: Document, exp: Exporter) -> set[str]:
    servers = doc.get(exp.servers_keys)
    if isinstance(servers, dict) and "servers" in servers and exp.host == "opencode":
        servers = servers["servers"]
    return set(servers) if isinstance(servers, dict) else set()


def _check_shape(doc: Document, it: Item, shown: str) -> None:
    """Every container on the way to a rule must be an object (and a member's list a list)."""
    from mcplock.hosts.parse import Where

    for i in range(1, len(it.path) + (1 if it.kind == "member" else 0)):
        value = doc.get(it.path[:i])
        want, ok = ("a list", isinstance(value, list)) if i == len(it.path) else ("an object", isinstance(value, dict))
        if value is not None and not ok:
            where = Where(shown, doc.original, doc.fmt).prefix(it.path[:i])
            raise ConfigError(f"{where}`{'.'.join(it.path[:i])}` must be {want} for mcplock's rules",
                              hint="fix it by hand (the host expects that shape too), then run `mcplock export`")


def _merge(doc: Document, want: list[Item], old: FileState, new: FileState, shown: str,
           exp: Exporter | None = None) -> list[str]:
    """Bring the rules mcplock owns in ``doc`` from ``old`` to ``want``; ``new`` gets what it owns now."""
    notes: list[str] = []
    for it in want:
        _check_shape(doc, it, shown)
    _drop_unwanted(doc, want, old)
    owned_keys = {i.path for i in old.items if i.kind == "key"}
    for it in want:
        if it.kind == "list":
            _want_list(doc, it, old, new)
        elif it.kind == "member":
            _want_member(doc, it, old, new)
        else:
            note = _want_key(doc, it, owned_keys, new, shown, exp)
            if note is not None:
                notes.append(note)
    _tidy_created(doc, old, new)
    return notes


def _drop_unwanted(doc: Document, want: list[Item], old: FileState) -> None:
    """What mcplock wrote before and the lock no longer says, unless a person changed it since."""
    wanted = set(want)
    wanted_paths = {w.path for w in want}
    for it in sorted(old.items - wanted):
        if it.kind == "member":
            doc.remove_member(it.path, it.value)
        elif it.kind == "key" and doc.get(it.path) == it.value and it.path not in wanted_paths:
            doc.delete(it.path)
        # a "list" mcplock created goes with the containers below, once empty


def _want_list(doc: Document, it: Item, old: FileState, new: FileState) -> None:
    if doc.get(it.path) is None:
        new.created |= set(doc.set_key(it.path, [])) | {it.path}
        new.items.add(it)
    elif it in old.items:
        new.items.add(it)


def _want_member(doc: Document, it: Item, old: FileState, new: FileState) -> None:
    current = doc.get(it.path)
    if isinstance(current, list) and it.value in current:
        if it in old.items:
            new.items.add(it)
        return
    new.created |= set(doc.add_member(it.path, it.value))
    new.items.add(it)


def _want_key(doc: Document, it: Item, owned_keys: set[tuple[str, ...]], new: FileState, shown: str,
              exp: Exporter | None) -> str | None:
    """One key the lock sets; a note when a person set it otherwise (left as it is)."""
    current = doc.get(it.path)
    if current == it.value:
        if it.path in owned_keys:
            new.items.add(it)
        return None
    if current is not None and it.path not in owned_keys:
        return (f"{shown}: `{'.'.join(it.path)}` was set by hand to {current!r}; the lock says "
                f"{it.value!r}; left as it is (remove it to let mcplock manage it)")
    siblings = doc.get(it.path[:-1])
    before = exp.place_before(it, list(siblings)) if exp and isinstance(siblings, dict) else None
    new.created |= set(doc.set_key(it.path, it.value, before))
    new.items.add(it)
    return None


def _tidy_created(doc: Document, old: FileState, new: FileState) -> None:
    """Containers mcplock created: an empty one no rule needs goes, the rest stay its own."""
    for path in sorted(old.created | new.created, key=len, reverse=True):
        value = doc.get(path)
        if value is None:
            continue
        if value in ({}, []) and not any(i.path[: len(path)] == path for i in new.items):
            doc.delete(path)
        else:
            new.created.add(path)
    new.created = {p for p in new.created if doc.get(p) is not None}


def selected_hosts(base: str, hosts: list[str]) -> list[Exporter]:
    if hosts:
        unknown = [h for h in hosts if h not in EXPORTERS]
        if unknown:
            raise UsageError(f"unknown host {unknown[0]!r} for export", hint="use --host " + "|".join(EXPORTERS))
        chosen = [EXPORTERS[h] for h in dict.fromkeys(hosts)]
    else:
        chosen = [e for e in EXPORTERS.values() if e.detect(lambda rel: os.path.lexists(os.path.join(base, rel)))]
    return [x for e in chosen for x in (e, *e.also)]


class _Files:
    """The host files of one plan: read (and validated) once, edited in memory."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.docs: dict[str, tuple[Document, str | None, str]] = {}

    def exists(self, rel: str) -> bool:
        return rel in self.docs or os.path.lexists(os.path.join(self.base, rel))

    def open(self, rel: str, fmt: str) -> Document:
        if rel not in self.docs:
            before = _read(self.base, os.path.join(self.base, rel), rel, fmt)
            self.docs[rel] = (Document(before or "", fmt), before, fmt)
        return self.docs[rel][0]

    def replace(self, rel: str, text: str) -> Document:
        _, before, fmt = self.docs[rel]
        doc = Document(text, fmt)
        doc.original = before or ""
        self.docs[rel] = (doc, before, fmt)
        return doc


def plan(lock: Lock, lock_path: str, hosts: list[str], *, guard: bool | None = None,
         command: str = "mcplock", org: OrgPolicy | None = None) -> Plan:
    """Read and validate every host file and compute what each becomes. Nothing is written.
    ``command``: what a guard entry launches (:func:`export_guard.guard_command`)."""
    base = os.path.dirname(os.path.abspath(lock_path))
    record = load_record(lock_path)
    decisions = tool_decisions(lock, org)
    rel_lock = os.path.relpath(os.path.abspath(lock_path), base)
    lock_args = [] if rel_lock == "mcp.lock" else ["--lockfile", rel_lock]
    files = _Files(base)
    states = dict(record)
    notes: dict[str, list[str]] = {}
    exporters = selected_hosts(base, hosts)
    warned: set[str] = set()
    for exp in exporters:
        rel = next((f for f in exp.files if files.exists(f)), exp.new_file)
        srel = exp.servers_file or rel
        doc = files.open(rel, exp.fmt)
        empty = FileState(exp.host)
        old = record.get(rel, empty)
        new = FileState(exp.host, guarded=dict(old.guarded))
        sstate = new if srel == rel else FileState(exp.host, guarded=dict(record.get(srel, empty).guarded))
        if guard is not None and files.exists(srel):
            if exp.fmt == "toml":
                text = export_guard.apply_toml(doc.text, lock, lock_args, guard, sstate, srel, command)
                doc = files.replace(rel, text)
            else:
                sdoc = files.open(srel, "json")
                export_guard.apply_json(sdoc, exp, lock, rel_lock, guard, sstate, srel, command)
        if srel != rel:
            states.pop(srel, None)
            if sstate:
                states[srel] = sstate
        told, told_notes = host_decisions(exp, decisions)  # no pattern names; colliding ids: deny wins
        notes.setdefault(rel, []).extend(n for n in told_notes if n not in notes[rel])
        want = exp.rules(told)
        if exp.per_server_in_file:
            defined = _defined(doc, exp)
            per_server = [i for i in want if i.path[0] == exp.servers_keys[0]]
            missing = sorted({i.path[1] for i in per_server} - defined)
            want = [i for i in want if i not in per_server or i.path[1] in defined]
            if missing:
                notes.setdefault(rel, []).append(
                    f"{rel}: no server entry for {', '.join(missing)}: its rules need the server defined in this file")
        notes.setdefault(rel, []).extend(_merge(doc, want, old, new, rel, exp))
        if not exp.default_deny and guard is not True and exp.host not in warned:
            warned.add(exp.host)
            note = _no_default_deny(exp, lock, files, srel)
            if note:
                notes[rel].append(note)
        states[rel] = new  # even with no rules: `check` keeps watching a file once exported to
    changes = [FileChange(_host_of(rel, exporters), rel, before, doc.text, notes.get(rel, []),
                          _contradictions(rel, doc, exporters, decisions))
               for rel, (doc, before, _fmt) in files.docs.items()]
    rpath = record_path(lock_path)
    try:
        with open(rpath, encoding="utf-8") as fh:
            record_before: str | None = fh.read()
    except FileNotFoundError:
        record_before = None
    after = dump_record(states) if states or record_before is not None else ""
    return Plan(base, rpath, changes, states, record_before, after)


def _no_default_deny(exp: Exporter, lock: Lock, files: _Files, srel: str) -> str | None:
    """For a host whose settings cannot deny what the lock does not know: which servers it
    launches directly (not through ``mcplock run``), and the fix."""
    if srel in files.docs:
        entries = files.docs[srel][0].get(exp.servers_keys)
    else:  # read, not opened for editing: an export without --guard leaves the servers' file alone
        from pathlib import Path

        from mcplock.hosts.parse import parse, read_text

        path = Path(files.base, srel)
        entries = None
        if path.is_file():
            data = parse(read_text(path, srel), srel, exp.fmt)
            entries = data
            for k in exp.servers_keys:
                entries = entries.get(k) if isinstance(entries, dict) else None
    direct = sorted(s for s in lock.servers
                    if not (isinstance(entries, dict) and exp.is_guard(entries.get(s))))
    if not direct:
        return None
    return (f"{exp.host} cannot deny a tool the lock does not know (one a server starts offering after this "
            f"export): it {exp.unknown_tools}. Route {', '.join(direct)} through the guard "
            "(`mcplock export --guard`), which serves only what the lock accepted")


def _contradictions(rel: str, doc: Document, exporters: list[Exporter], decisions: Decisions) -> list[str]:
    from mcplock.hosts.parse import parse

    exp = next((e for e in exporters if rel in e.files), None)
    if exp is None:
        return []
    data = parse(doc.text, rel, doc.fmt) if doc.text.strip() else {}
    return exp.contradictions(data, host_decisions(exp, decisions)[0]) if isinstance(data, dict) else []


def _host_of(rel: str, exporters: list[Exporter]) -> str:
    return next((e.host for e in exporters if rel in e.files or rel == e.servers_file), "?")


def _bom(path: str) -> bytes:
    """The UTF-8 byte-order mark the file starts with, to keep (the edit reads past it)."""
    try:
        with open(path, "rb") as fh:
            return b"\xef\xbb\xbf" if fh.read(3) == b"\xef\xbb\xbf" else b""
    except OSError:
        return b""


def write(p: Plan) -> list[str]:
    """Write the changed files (each atomically) and the record; returns the paths written."""
    from mcplock.lock.store import write_atomic

    written = []
    for c in p.changes:
        if not c.changed:
            continue
        path = os.path.join(p.base, c.path)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        write_atomic(path, _bom(path) + c.after.encode("utf-8"))
        written.append(c.path)
    if p.record_after and p.record_before != p.record_after:
        write_atomic(p.record, p.record_after.encode("utf-8"))
        written.append(os.path.relpath(p.record, p.base))
    return written
