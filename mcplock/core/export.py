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
import re
from collections.abc import Container
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mcplock.core import export_guard, export_record
from mcplock.core.export_record import FileState, dump_record, record_path, split_conflict
from mcplock.core.export_record import load_record as load_record  # re-exported: core/check reads the record
from mcplock.errors import ConfigError, UsageError
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
    record_after: str
    hosts: list[str] = field(default_factory=list)  # every host exported to, as recorded
    policy: str | None = None  # the --policy file recorded
    record_conflicted: bool = False  # the record had git's conflict markers (both sides were read)

    @property
    def changed(self) -> bool:
        return any(c.changed for c in self.changes) or self.record_before != self.record_after


def _read(root: str, path: str, shown: str, fmt: str, empty_ok: bool = False, conflict_ok: bool = False) -> str | None:
    """The text of a host file, validated. ``empty_ok``: an empty file is returned as it is (an
    older export left it); ``conflict_ok``: so is one with a merge's conflict markers (both sides
    are read by the caller)."""
    from pathlib import Path

    from mcplock.hosts.parse import read_text

    _refuse_links(root, path, shown)
    if not os.path.exists(path):
        return None
    _check_writable(path, shown)
    text = read_text(Path(path), shown)
    if not _read_as_is(text, empty_ok, conflict_ok):
        _check_top_object(text, shown, fmt)
    return text


def _check_writable(path: str, shown: str) -> None:
    """A host file export would change: writable, in a writable directory."""
    if not os.access(path, os.W_OK) or not os.access(os.path.dirname(path) or ".", os.W_OK):
        raise ConfigError(f"{shown}: not writable", hint="make the file and its directory writable by this user")


def _read_as_is(text: str, empty_ok: bool, conflict_ok: bool) -> bool:
    """Whether a host file's text is taken without parsing: an empty one an older export left
    (it is removed), or one a merge left with conflict markers (both sides are read)."""
    if empty_ok and not text.strip():
        return True
    return conflict_ok and split_conflict(text) is not None


def _check_top_object(text: str, shown: str, fmt: str) -> None:
    """A host file's text parses, to an object."""
    from mcplock.hosts.parse import parse

    data = parse(text, shown, fmt)
    if not isinstance(data, dict):
        raise ConfigError(
            f"{shown}: the top level must be an object", hint="fix the file; the host cannot read it either"
        )


def _refuse_links(root: str, path: str, shown: str) -> None:
    """A host file export would write through a link (the file, or a directory out of the
    project) is refused."""
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


def _check_shape(doc: Document, it: Item, shown: str) -> None:
    """Every container on the way to a rule must be an object (and a member's list a list)."""
    from mcplock.hosts.parse import Where

    for i in range(1, len(it.path) + (1 if it.kind == "member" else 0)):
        value = doc.get(it.path[:i])
        want, ok = ("a list", isinstance(value, list)) if i == len(it.path) else ("an object", isinstance(value, dict))
        if value is not None and not ok:
            where = Where(shown, doc.original, doc.fmt).prefix(it.path[:i])
            raise ConfigError(
                f"{where}`{'.'.join(it.path[:i])}` must be {want} for mcplock's rules",
                hint="fix it by hand (the host expects that shape too), then run `mcplock export`",
            )


def _merge(
    doc: Document, want: list[Item], old: FileState, new: FileState, shown: str, exp: Exporter | None = None
) -> list[str]:
    """Bring the rules mcplock owns in ``doc`` from ``old`` to ``want``; ``new`` gets what it owns now."""
    for it in want:
        _check_shape(doc, it, shown)
    _drop_unwanted(doc, want, old)
    owned_keys = {i.path for i in old.items if i.kind == "key"}
    notes: list[str] = []
    for it in want:
        note = _want(doc, it, old, new, owned_keys, shown, exp)
        if note is not None:
            notes.append(note)
    _tidy_created(doc, old, new)
    return notes


def _want(
    doc: Document,
    it: Item,
    old: FileState,
    new: FileState,
    owned_keys: set[tuple[str, ...]],
    shown: str,
    exp: Exporter | None,
) -> str | None:
    """One rule the lock wants, by its kind (a list, a member of one, a key); a note when a
    person set a key otherwise."""
    if it.kind == "list":
        _want_list(doc, it, old, new)
    elif it.kind == "member":
        _want_member(doc, it, old, new)
    else:
        return _want_key(doc, it, owned_keys, new, shown, exp)
    return None


def _drop_unwanted(doc: Document, want: list[Item], old: FileState) -> None:
    """What mcplock wrote before and the lock no longer says, unless a person changed it since."""
    wanted_paths = {w.path for w in want}
    for it in sorted(old.items - set(want)):
        _remove_rule(doc, it, wanted_paths)


def _remove_rule(doc: Document, it: Item, held: Container[tuple[str, ...]] = ()) -> None:
    """Take out one rule mcplock wrote: a list's member, or a key that still holds the value
    written (unless another rule wanted now sets that key, ``held``)."""
    if it.kind == "member":
        doc.remove_member(it.path, it.value)
    elif it.kind == "key" and doc.get(it.path) == it.value and it.path not in held:
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


def _want_key(
    doc: Document, it: Item, owned_keys: set[tuple[str, ...]], new: FileState, shown: str, exp: Exporter | None
) -> str | None:
    """One key the lock sets; a note when a person set it otherwise (left as it is)."""
    current = doc.get(it.path)
    if current == it.value:
        if it.path in owned_keys:
            new.items.add(it)
        return None
    if current is not None and it.path not in owned_keys:
        return (
            f"{shown}: `{'.'.join(it.path)}` was set by hand to {current!r}; the lock says "
            f"{it.value!r}; left as it is (remove it to let mcplock manage it)"
        )
    new.created |= set(doc.set_key(it.path, it.value, _place_before(doc, it, exp)))
    new.items.add(it)
    return None


def _place_before(doc: Document, it: Item, exp: Exporter | None) -> Any:
    """The sibling key a new key goes before, where the host orders its keys (None: at the end)."""
    siblings = doc.get(it.path[:-1])
    return exp.place_before(it, list(siblings)) if exp and isinstance(siblings, dict) else None


def _tidy_created(doc: Document, old: FileState, new: FileState) -> None:
    """Containers mcplock created: an empty one no rule needs goes, the rest stay its own."""
    for path in sorted(old.created | new.created, key=len, reverse=True):
        value = doc.get(path)
        if value is None:
            continue
        if _unneeded(value, path, new):
            doc.delete(path)
        else:
            new.created.add(path)
    new.created = {p for p in new.created if doc.get(p) is not None}


def _unneeded(value: object, path: tuple[str, ...], new: FileState) -> bool:
    """Whether the container at ``path`` is empty, with no rule mcplock owns now lying in it."""
    return value in ({}, []) and not any(i.path[: len(path)] == path for i in new.items)


def _unconflict(rel: str, fmt: str, sides: tuple[str, str], owned: FileState) -> str:
    """A host file mcplock exported to, left by a merge with git's conflict markers: each side
    without the rules the record says mcplock wrote. When those are the same settings, the
    conflict was only between mcplock's rules, which the export writes again from the merged
    lock: that text is returned. Otherwise the merge touched the user's own settings, which only
    a person resolves: an error naming the file."""
    stripped = _stripped_sides(sides, rel, fmt, owned)
    if len(stripped) == 2 and _bare(stripped[0], owned) == _bare(stripped[1], owned):
        return stripped[0].text
    raise ConfigError(
        f"{rel}: a merge left git's conflict markers in it, and they touch your own settings, not only the "
        "rules mcplock wrote",
        hint=f"resolve {rel} by hand (the rules mcplock wrote may go either way), then run `mcplock export`",
    )


def _stripped_sides(sides: tuple[str, str], rel: str, fmt: str, owned: FileState) -> list[Document]:
    """Each side of a conflict without the rules mcplock wrote; none when a side does not parse."""
    from mcplock.hosts.parse import parse

    stripped: list[Document] = []
    for side in sides:
        try:
            parse(side, rel, fmt)
        except ConfigError:
            return []
        doc = Document(side, fmt)
        for it in sorted(owned.items, reverse=True):
            _remove_rule(doc, it)
        stripped.append(doc)
    return stripped


def _bare(doc: Document, owned: FileState) -> object:
    """The settings without mcplock's containers once empty: what the user wrote."""
    data = _settings(doc.text, "", doc.fmt)
    for path in sorted(owned.created, key=len, reverse=True):
        node = _dig(data, path[:-1])
        if isinstance(node, dict) and node.get(path[-1]) in ({}, []):
            del node[path[-1]]
    return data


def _dig(data: object, keys: tuple[str, ...]) -> Any:
    """The value at ``keys`` under ``data`` through objects (None where one is missing)."""
    node: Any = data
    for k in keys:
        node = node.get(k) if isinstance(node, dict) else None
    return node


def _settings(text: str, shown: str, fmt: str) -> Any:
    """A host file's settings as parsed; a blank file holds none (``{}``)."""
    from mcplock.hosts.parse import parse

    return parse(text, shown, fmt) if text.strip() else {}


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


class _Files:
    """The host files of one plan: read (and validated) once, edited in memory."""

    def __init__(self, base: str, record: dict[str, FileState] | None = None) -> None:
        self.base = base
        self.record = record or {}  # what the record says mcplock wrote, per file
        self.owned = set(self.record)  # files the record says mcplock exported to
        self.docs: dict[str, tuple[Document, str | None, str]] = {}
        self.conflicted: set[str] = set()  # files a merge left with conflict markers

    def exists(self, rel: str) -> bool:
        return rel in self.docs or os.path.lexists(os.path.join(self.base, rel))

    def open(self, rel: str, fmt: str) -> Document:
        if rel not in self.docs:
            before = self._read(rel, fmt)
            self.docs[rel] = (Document(self._text(rel, fmt, before), fmt), before, fmt)
        return self.docs[rel][0]

    def _read(self, rel: str, fmt: str) -> str | None:
        """A host file's text as read (None: no file); one mcplock exported to may be empty, or
        hold a merge's conflict markers."""
        owned = rel in self.owned
        return _read(self.base, os.path.join(self.base, rel), rel, fmt, empty_ok=owned, conflict_ok=owned)

    def _text(self, rel: str, fmt: str, before: str | None) -> str:
        """The text to edit: as read, or, where a merge left its markers in a file mcplock
        exported to, the one text both sides agree on once mcplock's rules are regenerated."""
        sides = split_conflict(before) if rel in self.owned and before is not None else None
        if sides is None:
            return before or ""
        text = _unconflict(rel, fmt, sides, self.record[rel])
        self.conflicted.add(rel)
        return text

    def replace(self, rel: str, text: str) -> Document:
        _, before, fmt = self.docs[rel]
        doc = Document(text, fmt)
        doc.original = before or ""
        self.docs[rel] = (doc, before, fmt)
        return doc


@dataclass
class _Run:
    """One export as it goes host by host: what it reads (the lock, the record, the decisions),
    how entries are routed (``guard``), and what it builds up (each file's new state, its notes)."""

    lock: Lock
    rel_lock: str  # the lock, relative to the project (what a guard entry names)
    files: _Files
    decisions: Decisions
    guard: bool | None
    command: str
    policy: str | None
    states: dict[str, FileState]
    notes: dict[str, list[str]] = field(default_factory=dict)
    warned: set[str] = field(default_factory=set)  # hosts already told they cannot deny by default

    @property
    def record(self) -> dict[str, FileState]:
        return self.files.record

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
) -> Plan:
    """Read and validate every host file and compute what each becomes. Nothing is written.
    ``command``: what a guard entry launches (:func:`export_guard.guard_command`). ``policy``:
    the ``--policy`` file ``org`` came from, recorded for the commands that keep the export in
    step (None: none recorded)."""
    base = os.path.dirname(os.path.abspath(lock_path))
    full = export_record.load(lock_path)
    rel_lock = os.path.relpath(os.path.abspath(lock_path), base)
    files = _Files(base, full.files)
    run = _Run(lock, rel_lock, files, tool_decisions(lock, org), guard, command, policy, dict(full.files))
    exporters = selected_hosts(base, hosts)
    for exp in exporters:
        _export_host(run, exp)
    changes = [_change(run, rel, exporters) for rel in files.docs]
    rpath = record_path(lock_path)
    record_before = _text_if_any(rpath)
    done = sorted(set(full.hosts) | {e.host for e in exporters})
    states = run.states
    after = _record_after(states, done, policy, bool(exporters) or record_before is not None)
    return Plan(base, rpath, changes, states, record_before, after, done, policy, full.conflicted)


def _record_after(states: dict[str, FileState], done: list[str], policy: str | None, exported: bool) -> str:
    """The record's new text; none when there is nothing to record and never was (``exported``:
    this export names a host, or a record exists)."""
    return dump_record(states, done, policy) if states or exported else ""


def _export_host(run: _Run, exp: Exporter) -> None:
    """One host: its server entries routed (``--guard``/``--no-guard``), its rules merged into
    its settings file, and the notes on what it cannot be told."""
    files = run.files
    rel = _settings_file(exp, files)
    srel = exp.servers_file or rel
    old = run.recorded(rel, exp.host)
    new = FileState(exp.host, guarded=dict(old.guarded))
    doc = _route_entries(run, exp, (rel, files.open(rel, exp.fmt)), srel, new)
    # rules (and notes) only for the servers this host's config launches
    entries = _entries(exp, files, exp.launches_file or srel)
    launched = _launched(exp, entries)
    told, told_notes = host_decisions(exp, _launched_decisions(run.decisions, launched))
    # no pattern names; colliding ids: deny wins
    notes = run.notes.setdefault(rel, [])
    notes.extend(n for n in told_notes if n not in notes)
    notes.extend(_merge(doc, exp.rules(told), old, new, rel, exp))
    note = _default_deny_note(run, exp, entries, launched)
    if note:
        notes.append(note)
    run.states[rel] = new  # even with no rules: `check` keeps watching a file once exported to


def _settings_file(exp: Exporter, files: _Files) -> str:
    """The host's settings file: the first of its files the project has, else the one to create."""
    return next((f for f in exp.files if files.exists(f)), exp.new_file)


def _launched_decisions(decisions: Decisions, launched: set[str] | None) -> Decisions:
    """The lock's decisions for the servers the host launches."""
    return {s: d for s, d in decisions.items() if _launches(launched, s)}


def _launches(launched: set[str] | None, server: str) -> bool:
    """Whether the host launches ``server`` (``launched`` None: every locked server, see :func:`_launched`)."""
    return launched is None or server in launched


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
    return _no_default_deny(exp, run.lock, entries, launched, run.policy)


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
        _contradictions(rel, doc, exporters, run.decisions),
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


def _text_if_any(path: str) -> str | None:
    from mcplock.model.files import DOCUMENT_MAX, read_bounded

    try:
        return read_bounded(path, DOCUMENT_MAX).decode("utf-8")
    except FileNotFoundError:
        return None
    except OSError as e:
        raise ConfigError(f"{path}: cannot read: {e.strerror or e}", hint="restore it from git, or remove it") from None


def _entries(exp: Exporter, files: _Files, srel: str) -> Any:
    """The host's server entries in ``srel`` (the object at ``servers_keys``), None when the file
    or the object is absent."""
    if srel in files.docs:
        entries = files.docs[srel][0].get(exp.servers_keys)
    else:  # read, not opened for editing: an export without --guard leaves the servers' file alone
        entries = _read_entries(exp, files.base, srel)
    entries = _nested_servers(exp, entries)
    return entries if isinstance(entries, dict) else None


def _read_entries(exp: Exporter, base: str, srel: str) -> Any:
    """The object at ``servers_keys`` in the file ``srel``, read from disk (None: no file)."""
    from pathlib import Path

    from mcplock.hosts.parse import read_text

    path = Path(base, srel)
    if not path.is_file():
        return None
    text = read_text(path, srel)
    return _dig(_settings(text, srel, exp.fmt), exp.servers_keys)


def _nested_servers(exp: Exporter, entries: Any) -> Any:
    """OpenCode may nest its server entries one level down, under ``servers``."""
    if isinstance(entries, dict) and exp.host == "opencode" and isinstance(entries.get("servers"), dict):
        return entries["servers"]
    return entries


def _launched(exp: Exporter, entries: Any) -> set[str] | None:
    """The locked servers' names the host's project config launches (an entry routed through the
    guard keeps its name). None: the project has no server list for this host (it may launch
    them from the user's own config, which mcplock does not read), so every locked server.
    Codex and Gemini rules need the server in the same file: there, only the servers it defines."""
    if entries is None:
        return set() if exp.per_server_in_file else None
    return set(entries)


def _no_default_deny(
    exp: Exporter, lock: Lock, entries: Any, launched: set[str] | None, policy: str | None = None
) -> str | None:
    """For a host whose settings cannot deny what the lock does not know: which servers it
    launches directly (not through ``mcplock run``), and the fix."""
    direct = sorted(s for s in lock.servers if _launches(launched, s) and not _guarded_entry(exp, entries, s))
    if not direct:
        return None
    return (
        f"{exp.host} cannot deny a tool the lock does not know (one a server starts offering after this "
        f"export): it {exp.unknown_tools}. Route {', '.join(direct)} through the guard "
        f"(`mcplock export --guard{policy_hint(policy)}`), which serves only what the lock accepted"
    )


def _guarded_entry(exp: Exporter, entries: Any, server: str) -> bool:
    """Whether the host's entry for ``server`` launches it through the guard."""
    return isinstance(entries, dict) and exp.is_guard(entries.get(server))


def _contradictions(rel: str, doc: Document, exporters: list[Exporter], decisions: Decisions) -> list[str]:
    exp = next((e for e in exporters if rel in e.files), None)
    if exp is None:
        return []
    data = _settings(doc.text, rel, doc.fmt)
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
    write_atomic(path, _bom(path) + c.after.encode("utf-8"))


# --- keeping an export in step ------------------------------------------------------------------


def recorded_policy(lock_path: str, policy: str | None) -> str | None:
    """``policy`` (a path as recorded: relative to the project, or absolute) as a path to open."""
    if policy is None:
        return None
    base = os.path.dirname(os.path.abspath(lock_path))
    return policy if os.path.isabs(policy) else os.path.normpath(os.path.join(base, policy))


def policy_to_record(lock_path: str, policy: str | None) -> str | None:
    """A ``--policy`` path as the record keeps it: relative to the project when inside it
    (a teammate's clone finds it there), else absolute."""
    if policy is None:
        return None
    base = os.path.realpath(os.path.dirname(os.path.abspath(lock_path)))
    full = os.path.realpath(policy)
    return os.path.relpath(full, base) if (full + os.sep).startswith(base + os.sep) else full


def policy_hint(policy: str | None) -> str:
    """`` --policy P`` for a command a hint names, when a policy file is in effect by flag or record."""
    if not policy:
        return ""
    from mcplock.text.untrusted import shell_word

    return f" --policy {shell_word(policy)}"


def policy_in_step(lock_path: str, recorded: str | None, policy: str | None) -> str | None:
    """The policy an export kept in step records: the command's own ``--policy`` (as the record
    keeps a path), else the one the export recorded."""
    return recorded if policy is None else policy_to_record(lock_path, policy)


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
