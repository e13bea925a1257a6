"""``mcplock export``: the lock's per-tool flags written into each host's project settings.

Plain functions (never print or exit). :func:`tool_decisions` is the one flag → rule mapping;
:func:`plan` reads and validates every host file first and computes the new texts; only then
:func:`write` replaces the files (atomically, each) and the record of what mcplock wrote
(``<lock>.exports.json`` beside the lock, see docs/export.md). The merge touches only the
rules in that record: the user's own rules, keys, order and comments are left as they are.
"""

from __future__ import annotations

import difflib
import json
import os
from dataclasses import dataclass, field
from typing import Any

from mcplock.errors import ConfigError, UsageError
from mcplock.hosts.export import EXPORTERS, Exporter
from mcplock.hosts.export.document import Document
from mcplock.hosts.export.interface import ALLOW, ASK, DENY, Decisions, Item
from mcplock.lock.model import Entry, Lock

RECORD_VERSION = 1


def tool_decision(entry: Entry) -> str:
    """What a host should do with one tool: ``deny`` (not accepted or not enabled), ``allow``
    (``approval = "never"``) or ``ask`` (``"always"``, and any empty or unknown value)."""
    if not entry.accepted or not entry.enabled:
        return DENY
    return ALLOW if entry.approval == "never" else ASK


def tool_decisions(lock: Lock) -> Decisions:
    return {s: {t: tool_decision(e) for t, e in srv.tools.items()} for s, srv in lock.servers.items()}


def record_path(lock_path: str) -> str:
    return lock_path + ".exports.json" if not lock_path.endswith(".exports.json") else lock_path


@dataclass
class FileState:
    """What mcplock wrote into one host file (its part of the record)."""

    host: str
    items: set[Item] = field(default_factory=set)
    created: set[tuple[str, ...]] = field(default_factory=set)
    guarded: dict[str, str] = field(default_factory=dict)  # server -> its original entry, verbatim

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"host": self.host, "rules": [i.as_json() for i in sorted(self.items)]}
        if self.created:
            out["created"] = sorted(list(c) for c in self.created)
        if self.guarded:
            out["guarded"] = dict(sorted(self.guarded.items()))
        return out


def load_record(lock_path: str) -> dict[str, FileState]:
    path = record_path(lock_path)
    try:
        with open(path, encoding="utf-8") as fh:
            raw = json.load(fh)
        out = {}
        for rel, st in raw.get("files", {}).items():
            out[rel] = FileState(
                host=st["host"],
                items={Item.from_json(i) for i in st.get("rules", [])},
                created={tuple(c) for c in st.get("created", [])},
                guarded=dict(st.get("guarded", {})),
            )
        return out
    except FileNotFoundError:
        return {}
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        raise ConfigError(
            f"{path}: not a valid export record ({type(e).__name__})",
            hint="restore it from git, or delete it and run `mcplock export` again",
        ) from None


def dump_record(states: dict[str, FileState]) -> str:
    doc = {
        "version": RECORD_VERSION,
        "note": "written by `mcplock export`: the rules it added to host settings; do not edit",
        "files": {rel: st.as_json() for rel, st in sorted(states.items())},
    }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


@dataclass
class FileChange:
    host: str
    path: str  # relative to the project
    before: str | None  # None: the file does not exist yet
    after: str
    notes: list[str] = field(default_factory=list)

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


def _read(path: str, shown: str, fmt: str) -> str | None:
    from pathlib import Path

    from mcplock.hosts.parse import parse, read_text

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


def _merge(doc: Document, want: list[Item], old: FileState, new: FileState, shown: str) -> list[str]:
    notes: list[str] = []
    wanted = set(want)
    owned_keys = {i.path for i in old.items if i.kind == "key"}
    for it in sorted(old.items - wanted):
        if it.kind == "member":
            doc.remove_member(it.path, it.value)
        elif doc.get(it.path) == it.value and it.path not in {w.path for w in want}:
            doc.delete(it.path)
    for it in want:
        if it.kind == "member":
            current = doc.get(it.path)
            if current is not None and not isinstance(current, list):
                raise ConfigError(
                    f"{shown}: `{'.'.join(it.path)}` must be a list", hint="fix it by hand, then export again"
                )
            if isinstance(current, list) and it.value in current:
                if it in old.items:
                    new.items.add(it)
                continue
            new.created |= set(doc.add_member(it.path, it.value))
            new.items.add(it)
        else:
            current = doc.get(it.path)
            if current == it.value:
                if it.path in owned_keys:
                    new.items.add(it)
                continue
            if current is not None and it.path not in owned_keys:
                notes.append(
                    f"{shown}: `{'.'.join(it.path)}` was set by hand to {current!r}; the lock says "
                    f"{it.value!r}; left as it is (remove it to let mcplock manage it)"
                )
                continue
            parent = doc.get(it.path[:-1])
            if parent is not None and not isinstance(parent, dict):
                raise ConfigError(
                    f"{shown}: `{'.'.join(it.path[:-1])}` must be an object", hint="fix it by hand, then export again"
                )
            new.created |= set(doc.set_key(it.path, it.value))
            new.items.add(it)
    for path in sorted(old.created | new.created, key=len, reverse=True):
        value = doc.get(path)
        if value is None:
            continue
        if value in ({}, []) and not any(i.path[: len(path)] == path for i in new.items):
            doc.delete(path)
        else:
            new.created.add(path)
    new.created = {p for p in new.created if doc.get(p) is not None}
    return notes


def _secret_in(entry: Any) -> bool:
    from mcplock.spec import looks_secret

    if not isinstance(entry, dict):
        return False
    for key in ("env", "environment", "headers", "http_headers"):
        values = entry.get(key)
        if isinstance(values, dict) and any(isinstance(v, str) and looks_secret(k, v) for k, v in values.items()):
            return True
    args = entry.get("args") if isinstance(entry.get("args"), list) else entry.get("command")
    return isinstance(args, list) and any(isinstance(a, str) and looks_secret("", a) for a in args)


def _guard(
    doc: Document,
    exp: Exporter,
    lock: Lock,
    lock_args: list[str],
    guard: bool | None,
    old: FileState,
    new: FileState,
    shown: str,
) -> None:
    new.guarded = dict(old.guarded)
    if guard is None:
        return
    keys = exp.servers_keys
    if exp.host == "opencode" and isinstance(doc.get(("mcp", "servers")), dict):
        keys = ("mcp", "servers")
    servers = doc.get(keys)
    if not isinstance(servers, dict):
        return
    if guard is False:
        for name, raw in sorted(old.guarded.items()):
            if exp.is_guard(servers.get(name)):
                doc.replace_span((*keys, name), raw)
            new.guarded.pop(name, None)
        return
    for name in sorted(servers):
        entry = servers[name]
        if name not in lock.servers or exp.is_guard(entry):
            continue
        if _secret_in(entry):
            raise ConfigError(
                f"{shown}: server `{name}` holds a literal secret; mcplock keeps the original entry in its export "
                "record to restore it with --no-guard, and never writes a secret",
                hint="replace the value with a variable reference the host expands, then run `mcplock export --guard`",
            )
        raw = doc.span((*keys, name))
        assert raw is not None
        new.guarded[name] = raw
        replacement = {
            **{k: v for k, v in entry.items() if k in ("excludeTools", "includeTools")},
            **exp.guard_entry(name, lock_args),
        }
        doc.replace_span((*keys, name), doc.dump(replacement, (*keys, name)))


def selected_hosts(base: str, hosts: list[str]) -> list[Exporter]:
    if hosts:
        unknown = [h for h in hosts if h not in EXPORTERS]
        if unknown:
            raise UsageError(f"unknown host {unknown[0]!r} for export", hint="use --host " + "|".join(EXPORTERS))
        return [EXPORTERS[h] for h in dict.fromkeys(hosts)]
    return [e for e in EXPORTERS.values() if e.detect(lambda rel: os.path.exists(os.path.join(base, rel)))]


def plan(lock: Lock, lock_path: str, hosts: list[str], *, guard: bool | None = None) -> Plan:
    """Read and validate every host file, compute what each becomes. Nothing is written."""
    base = os.path.dirname(os.path.abspath(lock_path))
    record = load_record(lock_path)
    decisions = tool_decisions(lock)
    rel_lock = os.path.relpath(os.path.abspath(lock_path), base)
    lock_args = [] if rel_lock == "mcp.lock" else ["--lockfile", rel_lock]
    docs: dict[str, tuple[Document, str | None, str]] = {}
    states: dict[str, FileState] = {rel: st for rel, st in record.items()}
    notes: dict[str, list[str]] = {}

    def open_doc(rel: str, fmt: str) -> Document:
        if rel not in docs:
            before = _read(os.path.join(base, rel), rel, fmt)
            docs[rel] = (Document(before or "", fmt), before, fmt)
        return docs[rel][0]

    exporters = selected_hosts(base, hosts)
    for exp in exporters:
        rel = next((f for f in exp.files if os.path.lexists(os.path.join(base, f))), exp.files[-1])
        if exp.host == "opencode" and not any(os.path.lexists(os.path.join(base, f)) for f in exp.files):
            rel = "opencode.json"
        doc = open_doc(rel, exp.fmt)
        want = exp.rules(decisions)
        if exp.per_server_in_file:
            defined = _defined(doc, exp)
            skipped = sorted({i.path[1] for i in want if i.path[0] in ("mcpServers", "mcp_servers")} - defined)
            want = [i for i in want if i.path[0] not in ("mcpServers", "mcp_servers") or i.path[1] in defined]
            if skipped:
                notes.setdefault(rel, []).append(
                    f"{rel}: no entry for {', '.join(skipped)}: its rules need the server defined in this file"
                )
        old = record.get(rel, FileState(exp.host))
        new = FileState(exp.host)
        notes.setdefault(rel, []).extend(_merge(doc, want, old, new, rel))
        if exp.servers_file is not None and exp.fmt == "json":
            srel = rel if exp.servers_file == exp.files[0] or exp.host == "opencode" else exp.servers_file
            if os.path.lexists(os.path.join(base, srel)) or srel == rel:
                sdoc = open_doc(srel, "json")
                sold = record.get(srel, FileState(exp.host)) if srel != rel else old
                target = new if srel == rel else FileState(exp.host, items=set(), created=set())
                _guard(sdoc, exp, lock, lock_args, guard, sold, target, srel)
                if srel != rel:
                    if target.guarded:
                        states[srel] = target
                    else:
                        states.pop(srel, None)
        elif guard is not None:
            notes.setdefault(rel, []).append(
                f"{rel}: --guard is not written for {exp.host} yet; route it by hand "
                "(command `mcplock`, args `run NAME`)"
            )
            new.guarded = dict(old.guarded)
        if new.items or new.created or new.guarded:
            states[rel] = new
        else:
            states.pop(rel, None)
    changes = [
        FileChange(_host_of(rel, exporters), rel, before, doc.text, notes.get(rel, []))
        for rel, (doc, before, _fmt) in docs.items()
    ]
    rpath = record_path(lock_path)
    try:
        with open(rpath, encoding="utf-8") as fh:
            record_before: str | None = fh.read()
    except FileNotFoundError:
        record_before = None
    after = dump_record(states) if states or record_before is not None else ""
    return Plan(base, rpath, changes, states, record_before, after)


def _host_of(rel: str, exporters: list[Exporter]) -> str:
    for e in exporters:
        if rel in e.files or rel == e.servers_file:
            return e.host
    return "?"


def write(p: Plan) -> list[str]:
    """Write the changed files (each atomically) and the record; returns the paths written."""
    from mcplock.lock.store import write_atomic

    written = []
    for c in p.changes:
        if not c.changed:
            continue
        path = os.path.join(p.base, c.path)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        write_atomic(path, c.after.encode("utf-8"))
        written.append(c.path)
    if p.record_after and p.record_before != p.record_after:
        write_atomic(p.record, p.record_after.encode("utf-8"))
        written.append(os.path.relpath(p.record, p.base))
    return written
