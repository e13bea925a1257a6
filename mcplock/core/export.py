"""``mcplock export``: the lock's per-tool flags written into each host's project settings.

Plain functions (never print or exit). :func:`tool_decisions` is the one flag → rule mapping;
:func:`plan` reads and validates every host file first and computes the new texts; only then
:func:`write` replaces the files (atomically, each) and the record of what mcplock wrote
(``<lock>.exports.json`` beside the lock, see docs/export.md). The merge touches only the
rules in that record: the user's own rules, keys, order and comments are left as they are.
"""

from __future__ import annotations

import difflib
import functools
import os
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mcplock.core import export_guard, export_launched, export_record
from mcplock.core.export_files import HostFiles, bom, text_if_any
from mcplock.core.export_merge import merge
from mcplock.core.export_policy import policy_in_step, recorded_policy
from mcplock.core.export_record import FileState, dump_record, record_path
from mcplock.core.export_record import load_record as load_record  # re-exported: core/check reads the record
from mcplock.errors import UsageError
from mcplock.hosts.export import EXPORTERS as EXPORTERS  # re-exported: the CLI names the hosts
from mcplock.hosts.export import Exporter
from mcplock.hosts.export.document import Document
from mcplock.hosts.export.interface import ALLOW, ASK, DENY, Decisions, Item
from mcplock.hosts.export.safety import host_decisions
from mcplock.lock.model import Entry, Lock

if TYPE_CHECKING:
    from mcplock.trust.org_policy import OrgPolicy


def tool_decision(server: str, name: str, entry: Entry, org: OrgPolicy | None = None) -> str:
    """What a host should do with one tool, as the guard's policy decides it offline
    (:func:`mcplock.trust.decide.decide_tool` with nothing verified live): ``deny`` what the guard would
    refuse (not accepted, pending, rejected, disabled, quarantined), ``ask`` what asks for approval
    (``approval = "always"``, or an empty or unknown value), ``allow`` the rest (``"never"``).
    ``org``: the organisation's policy — a tool it denies is ``deny``, one it keeps on approval ``ask``."""
    from mcplock.trust.decide import Host, decide_tool

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
    remove: bool = False  # an empty file an older export left, with nothing to say: removed
    conflicted: bool = False  # a merge left git's conflict markers in it (mcplock's rules regenerated)

    @property
    def absent(self) -> bool:
        """Nothing to say and no file: none is written (a host reads an empty file as invalid)."""
        return self.before is None and not self.after.strip()

    @property
    def changed(self) -> bool:
        return self.remove or (self.before != self.after and not self.absent)

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
    hosts: list[str] = field(default_factory=list)  # every host exported to, as recorded
    policy: str | None = None  # the --policy file recorded
    record_conflicted: bool = False  # the record had git's conflict markers (both sides were read)
    exported: bool = False  # this export names a host, or a record exists

    @functools.cached_property
    def record_after(self) -> str:
        """The record's new text, written only when asked for (``check`` compares host files
        only); none when there is nothing to record and never was."""
        return dump_record(self.states, self.hosts, self.policy) if self.states or self.exported else ""

    @property
    def changed(self) -> bool:
        return any(c.changed for c in self.changes) or self.record_before != self.record_after

        # a "list" mcplock created goes with the containers below, once empty


def selected_hosts(base: str, hosts: list[str]) -> list[Exporter]:
    chosen = _named_exporters(hosts) if hosts else _detected_exporters(base)
    return [x for e in chosen for x in (e, *e.also)]


def _named_exporters(hosts: list[str]) -> list[Exporter]:
    """The exporters of the hosts named (``--host``), each once; an unknown name is refused."""
    unknown = [h for h in hosts if h not in EXPORTERS]
    if unknown:
        raise UsageError(f"unknown host {unknown[0]!r} for export", hint="use --host " + "|".join(EXPORTERS))
    return [EXPORTERS[h] for h in dict.fromkeys(hosts)]


def _detected_exporters(base: str) -> list[Exporter]:
    """The exporters of the hosts whose files the project at ``base`` has."""
    return [e for e in EXPORTERS.values() if e.detect(lambda rel: os.path.lexists(os.path.join(base, rel)))]


@dataclass
class _Run:
    """One export as it goes host by host: what it reads (the lock, the record, the decisions),
    how entries are routed (``guard``), and what it builds up (each file's new state, its notes)."""

    lock: Lock
    rel_lock: str  # the lock, relative to the project (what a guard entry names)
    files: HostFiles
    decisions: Decisions
    guard: bool | None
    command: str
    policy: str | None
    states: dict[str, FileState]
    notes: dict[str, list[str]] = field(default_factory=dict)
    warned: set[str] = field(default_factory=set)  # hosts already told they cannot deny by default
    _told: dict[tuple[int, tuple[str, ...]], tuple[Decisions, list[str]]] = field(default_factory=dict)

    @property
    def record(self) -> dict[str, FileState]:
        return self.files.record

    def told(self, exp: Exporter, decisions: Decisions) -> tuple[Decisions, list[str]]:
        """What the host can be told of ``decisions`` (:func:`host_decisions`), worked out once
        per host and set of servers in a run."""
        key = (id(exp), tuple(decisions))
        if key not in self._told:
            self._told[key] = host_decisions(exp, decisions)
        return self._told[key]

    def recorded(self, rel: str, host: str) -> FileState:
        """What the record says mcplock wrote into ``rel`` (nothing, when it never did)."""
        return self.record.get(rel, FileState(host))


def plan(
    lock: Lock,
    lock_path: str,
    hosts: list[str],
    *,
    guard: bool | None = None,
    command: str = "mcplock",
    org: OrgPolicy | None = None,
    policy: str | None = None,
    record: export_record.Record | None = None,
) -> Plan:
    """Read and validate every host file and compute what each becomes. Nothing is written.
    ``command``: what a guard entry launches (:func:`export_guard.guard_command`). ``policy``:
    the ``--policy`` file ``org`` came from, recorded for the commands that keep the export in
    step (None: none recorded). ``record``: the export record, where the caller read it already."""
    base = os.path.dirname(os.path.abspath(lock_path))
    full = record if record is not None else export_record.load(lock_path)
    rel_lock = os.path.relpath(os.path.abspath(lock_path), base)
    files = HostFiles(base, full.files)
    run = _Run(lock, rel_lock, files, tool_decisions(lock, org), guard, command, policy, dict(full.files))
    exporters = selected_hosts(base, hosts)
    for exp in exporters:
        _export_host(run, exp)
    changes = [_change(run, rel, exporters) for rel in files.docs]
    rpath = record_path(lock_path)
    record_before = text_if_any(rpath)
    done = sorted(set(full.hosts) | {e.host for e in exporters})
    exported = bool(exporters) or record_before is not None
    return Plan(base, rpath, changes, run.states, record_before, done, policy, full.conflicted, exported)


def _export_host(run: _Run, exp: Exporter) -> None:
    """One host: its server entries routed (``--guard``/``--no-guard``), its rules merged into
    its settings file, and the notes on what it cannot be told."""
    files = run.files
    rel = _settings_file(exp, files)
    srel = exp.servers_file or rel
    old = run.recorded(rel, exp.host)
    new = FileState(exp.host, guarded=dict(old.guarded))
    doc = _route_entries(run, exp, (rel, files.open(rel, exp.fmt)), srel, new)
    # rules (and notes) only for the servers this host's config launches and starts
    entries = export_launched.entries(exp, files, exp.launches_file or srel)
    launched = export_launched.launched(exp, entries, files, rel)
    told, told_notes = run.told(exp, export_launched.launched_decisions(run.decisions, launched))
    # no pattern names; colliding ids: deny wins
    notes = run.notes.setdefault(rel, [])
    notes.extend(n for n in told_notes if n not in notes)
    want = exp.rules(told)
    notes.extend(merge(doc, want, old, new, rel, exp, _stale(exp, told) - set(want)))
    note = _default_deny_note(run, exp, entries, launched)
    if note:
        notes.append(note)
    run.states[rel] = new  # even with no rules: `check` keeps watching a file once exported to


def _stale(exp: Exporter, told: Decisions) -> set[Item]:
    """Every rule the host would be given for the tools of ``told`` under any decision: the ones
    the lock does not want now say otherwise than the lock (docs/export.md, "What mcplock owns")."""
    return {
        it
        for d in (ALLOW, ASK, DENY)
        for it in exp.rules({s: dict.fromkeys(tools, d) for s, tools in told.items()})
        if it.kind in ("member", "key")
    }


def _settings_file(exp: Exporter, files: HostFiles) -> str:
    """The host's settings file: the first of its files the project has, else the one to create."""
    return next((f for f in exp.files if files.exists(f)), exp.new_file)


def _route_entries(run: _Run, exp: Exporter, settings: tuple[str, Document], srel: str, new: FileState) -> Document:
    """The host's server entries in ``srel`` routed through the guard (``--guard``) or back to
    their originals (``--no-guard``), the originals kept in the state of ``srel`` (``new`` when
    the entries live in the settings file). Returns the settings document (``settings``: its
    path and document), which a TOML host (one file for both) has rewritten."""
    rel, doc = settings
    sstate = new if srel == rel else FileState(exp.host, guarded=dict(run.recorded(srel, exp.host).guarded))
    if run.guard is not None and run.files.exists(srel):
        doc = _apply_guard(run, exp, settings, srel, sstate, run.guard)
    if srel != rel:
        run.states.pop(srel, None)
        if sstate:
            run.states[srel] = sstate
    return doc


def _apply_guard(
    run: _Run, exp: Exporter, settings: tuple[str, Document], srel: str, sstate: FileState, guard: bool
) -> Document:
    """Route the entries of ``srel`` through the guard or back, by the host's format: a TOML
    host's one file rewritten (the settings document returned anew), a JSON one's edited."""
    rel, doc = settings
    if exp.fmt == "toml":
        lock_args = [] if run.rel_lock == "mcp.lock" else ["--lockfile", run.rel_lock]
        text = export_guard.apply_toml(doc.text, run.lock, lock_args, guard, sstate, srel, run.command)
        return run.files.replace(rel, text)
    sdoc = run.files.open(srel, "json")
    export_guard.apply_json(sdoc, exp, run.lock, run.rel_lock, guard, sstate, srel, run.command)
    return doc


def _default_deny_note(run: _Run, exp: Exporter, entries: Any, launched: set[str] | None) -> str | None:
    """Once per host that cannot deny by default (unless every entry goes through the guard):
    which servers it launches directly, and the fix."""
    if exp.default_deny or run.guard is True or exp.host in run.warned:
        return None
    run.warned.add(exp.host)
    return export_launched.no_default_deny(exp, run.lock, entries, launched, run.policy)


def _change(run: _Run, rel: str, exporters: list[Exporter]) -> FileChange:
    """What becomes of one host file the plan read; a file left holding nothing that mcplock
    exported to is removed (and forgotten by the record)."""
    doc, before, fmt = run.files.docs[rel]
    c = FileChange(
        _host_of(rel, exporters),
        rel,
        before,
        doc.text,
        run.notes.get(rel, []),
        _contradictions(run, rel, doc, exporters),
        conflicted=rel in run.files.conflicted,
    )
    if _holds_nothing(c.after, fmt) and not run.states.get(rel) and (before is None or rel in run.record):
        # nothing to say: no file (a host reads an empty file as invalid JSON); one mcplock
        # exported to that holds nothing any more (an empty one an older export left, or `{}`
        # once its rules left) is removed
        c.remove = before is not None
        run.states.pop(rel, None)
    return c


def _holds_nothing(text: str, fmt: str) -> bool:
    """A settings text with nothing in it: blank, or a JSON file's ``{}``."""
    return not text.strip() or (fmt == "json" and re.fullmatch(r"\s*\{\s*\}\s*", text) is not None)


def _contradictions(run: _Run, rel: str, doc: Document, exporters: list[Exporter]) -> list[str]:
    exp = next((e for e in exporters if rel in e.files), None)
    if exp is None:
        return []
    data = doc.get(())  # parsed once: the plan's own reading of the file
    return exp.contradictions(data, run.told(exp, run.decisions)[0]) if isinstance(data, dict) else []


def _host_of(rel: str, exporters: list[Exporter]) -> str:
    return next((e.host for e in exporters if rel in e.files or rel == e.servers_file), "?")


def write(p: Plan) -> list[str]:
    """Write the changed files (each atomically) and the record; returns the paths written."""
    from mcplock.lock.store import write_atomic

    written = []
    for c in p.changes:
        if c.changed:
            _write_change(p.base, c)
            written.append(c.path)
    if p.record_after and p.record_before != p.record_after:
        write_atomic(p.record, p.record_after.encode("utf-8"))
        written.append(os.path.relpath(p.record, p.base))
    return written


def _write_change(base: str, c: FileChange) -> None:
    """One changed host file: removed, or written atomically (its byte-order mark kept)."""
    from mcplock.lock.store import write_atomic

    path = os.path.join(base, c.path)
    if c.remove:
        os.unlink(path)
        return
    os.makedirs(os.path.dirname(path), exist_ok=True)
    write_atomic(path, bom(path) + c.after.encode("utf-8"))


# --- keeping an export in step ------------------------------------------------------------------


def in_step(lock: Lock, lock_path: str, policy: str | None = None) -> tuple[Plan, str | None] | None:
    """For a project that has exported (its record exists): the plan that brings every host it
    exported to in step with ``lock``, with the policy the export recorded (``policy``: the
    command's own ``--policy``, which wins), and the policy file in effect (for hints).
    None: the project never exported. Nothing is written."""
    from mcplock.trust import org_policy

    if not os.path.exists(record_path(lock_path)):
        return None
    rec = export_record.load(lock_path)
    if not rec.hosts:
        return None
    org = org_policy.resolve(policy or recorded_policy(lock_path, rec.policy))
    p = plan(lock, lock_path, rec.hosts, org=org, policy=policy_in_step(lock_path, rec.policy, policy))
    return p, policy or rec.policy
