"""The record of what ``mcplock export`` wrote: ``<lock>.exports.json`` beside the lock.

Per host file (path relative to the project): the rules mcplock added (``member``: a string in
a list, ``key``: a key holding a value), the containers it created (removed again once empty),
and, for ``--guard``, each server's original entry verbatim (what ``--no-guard`` puts back).
Beside the files: ``hosts``, every host the project exported to (``check`` and the commands that
change a flag keep those in step, even a host that needed no file yet), and ``policy``, the
organisation's policy file the export was given (``--policy``), which they apply again.
Commit it with the lock: ``check`` reads it. Deterministic: sorted, one rule per line.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mcplock.errors import ConfigError

if TYPE_CHECKING:  # the exporters' package is imported only where a record is read or written
    from mcplock.hosts.export.interface import Item

RECORD_VERSION = 1
NOTE = "written by `mcplock export`: the rules it added to host settings (docs/export.md); do not edit"


def record_path(lock_path: str) -> str:
    return lock_path + ".exports.json"


@dataclass
class FileState:
    """What mcplock wrote into one host file."""

    host: str
    items: set[Item] = field(default_factory=set)
    created: set[tuple[str, ...]] = field(default_factory=set)
    guarded: dict[str, str] = field(default_factory=dict)  # server -> its original entry, verbatim

    def __bool__(self) -> bool:
        return bool(self.items or self.created or self.guarded)


@dataclass
class Record:
    """The whole record: per file what mcplock wrote, the hosts exported to, the policy used."""

    files: dict[str, FileState] = field(default_factory=dict)
    hosts: list[str] = field(default_factory=list)
    policy: str | None = None  # as recorded: relative to the project, or absolute
    conflicted: bool = False  # read from a file with git's conflict markers (both sides joined)


def load_record(lock_path: str) -> dict[str, FileState]:
    return load(lock_path).files


def load(lock_path: str) -> Record:
    path = record_path(lock_path)
    from mcplock.model.files import DOCUMENT_MAX, read_bounded

    try:
        text = read_bounded(path, DOCUMENT_MAX).decode("utf-8")
    except FileNotFoundError:
        return Record()
    except OSError as e:
        raise ConfigError(f"{path}: cannot read the export record: {e.strerror or e}", hint=HINT) from None
    except ValueError as e:
        raise _invalid(path, e) from None
    return loads(text, path)


def _invalid(path: str, e: Exception) -> ConfigError:
    """The error for a record that cannot be read as one (``e``: what went wrong, by its kind)."""
    return ConfigError(f"{path}: not a valid export record ({type(e).__name__})", hint=HINT)


HINT = "restore it from git, or delete it and run `mcplock export` again"


def loads(text: str, path: str) -> Record:
    """The record in ``text``. A record a line merge left with git's conflict markers (a clone
    without the merge driver) reads as the union of both sides, ``conflicted``: stale claims are
    harmless (a rule mcplock no longer finds is not removed from anyone), and the export that
    ``check`` then names writes it whole again."""
    sides = split_conflict(text)
    if sides is not None:
        merged = merge(None, loads(sides[0], path), loads(sides[1], path))
        merged.conflicted = True
        return merged
    try:
        raw = json.loads(text)
    except ValueError as e:
        raise _invalid(path, e) from None
    try:
        return _record_of(raw, path)
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        raise _invalid(path, e) from None


def _record_of(raw: Any, path: str) -> Record:
    """The record the parsed JSON ``raw`` holds (a malformed one raises the error ``loads`` reports)."""
    if raw.get("version", 0) > RECORD_VERSION:
        raise ConfigError(f"{path}: written by a newer mcplock", hint="upgrade mcplock")
    files = {str(rel): _file_state(st) for rel, st in raw["files"].items()}
    hosts = sorted({str(h) for h in raw.get("hosts", [])} | {st.host for st in files.values()})
    return Record(files, hosts, _policy_of(raw))


def _policy_of(raw: Any) -> str | None:
    """The policy file the record names (None: none); anything but a string is malformed."""
    policy = raw.get("policy")
    if policy is not None and not isinstance(policy, str):
        raise TypeError("policy")
    return policy


def _file_state(st: Any) -> FileState:
    """One file's entry of the record (a malformed one raises the error ``loads`` reports)."""
    return FileState(
        host=str(st["host"]),
        items={_item(i) for i in st.get("rules", [])},
        created={tuple(str(p) for p in c) for c in st.get("created", [])},
        guarded={str(k): str(v) for k, v in st.get("guarded", {}).items()},
    )


def dumps(rec: Record) -> str:
    return dump_record(rec.files, rec.hosts, rec.policy)


def merge(base: Record | None, ours: Record, theirs: Record) -> Record:
    """Two branches' records as one (the merge driver; a record with conflict markers): per
    file the rules and containers either side claims (a claim of a rule no longer in the file is
    harmless, and the next export drops it), each ``--guard`` original entry from the side that
    changed it, every host, and the policy of the side that changed it."""
    files = {
        rel: _merge_file(ours.files.get(rel), theirs.files.get(rel), base.files.get(rel) if base is not None else None)
        for rel in sorted(set(ours.files) | set(theirs.files))
    }
    unchanged = base.policy if base is not None else None  # without a base: a side that has none
    policy = theirs.policy if ours.policy == unchanged else ours.policy
    return Record(files, sorted(set(ours.hosts) | set(theirs.hosts)), policy)


def _merge_file(a: FileState | None, b: FileState | None, o: FileState | None) -> FileState:
    """One file's state from ours (``a``), theirs (``b``; at least one of them holds the file)
    and the base (``o``): the claims of both, the originals three-way."""
    host = next(s.host for s in (a, b) if s is not None)
    ours, theirs, base = (a or FileState(host)), (b or FileState(host)), (o or FileState(host))
    return FileState(
        host,
        ours.items | theirs.items,
        ours.created | theirs.created,
        _merge_guarded(ours.guarded, theirs.guarded, base.guarded, a is not None, b is not None),
    )


def _merge_guarded(
    ga: dict[str, str], gb: dict[str, str], go: dict[str, str], a_has_file: bool, b_has_file: bool
) -> dict[str, str]:
    """Each server's original entry (``--guard``) from ours (``ga``), theirs (``gb``) and the
    base (``go``); ``a_has_file``/``b_has_file``: whether each side holds the file at all."""
    guarded: dict[str, str] = {}
    for server in sorted(set(ga) | set(gb)):
        original = _merged_original(server, ga, gb, go, a_has_file, b_has_file)
        if original is not None:
            guarded[server] = original
    return guarded


def _merged_original(
    server: str, ga: dict[str, str], gb: dict[str, str], go: dict[str, str], a_has_file: bool, b_has_file: bool
) -> str | None:
    """One server's original entry: where both sides hold one, the side that changed it from
    the base; where one side holds it, kept unless the other side dropped it (None: dropped)."""
    if server in ga and server in gb:
        return gb[server] if ga[server] == go.get(server) else ga[server]
    if server in ga:
        return _kept_original(server, ga, go, b_has_file)
    return _kept_original(server, gb, go, a_has_file)


def _kept_original(server: str, kept: dict[str, str], base: dict[str, str], other_has_file: bool) -> str | None:
    """The original entry only one side holds, unless the other side dropped it (None)."""
    return None if _dropped(server, kept, base, other_has_file) else kept[server]


def _dropped(server: str, kept: dict[str, str], base: dict[str, str], other_has_file: bool) -> bool:
    """Whether the other side dropped the original entry one side kept as the base had it (the
    other side still holds the file, without the server)."""
    return server in base and base[server] == kept[server] and other_has_file


# the markers each state of a conflict's reading expects next, and the state each moves it to
_NEXT_MARKERS: dict[str, tuple[tuple[str, str], ...]] = {
    "both": (("<<<<<<<", "ours"),),
    "ours": (("|||||||", "base"), ("=======", "theirs")),
    "base": (("=======", "theirs"),),
    "theirs": ((">>>>>>>", "both"),),
}


def split_conflict(text: str) -> tuple[str, str] | None:
    """Both sides of a file git's line merge left with conflict markers (``merge`` and
    ``diff3`` styles): the text with every region's ours, and with every region's theirs.
    None: no markers (or markers that do not pair up: left to the reader's own error)."""
    if "\n<<<<<<< " not in "\n" + text:
        return None
    ours: list[str] = []
    theirs: list[str] = []
    state = "both"
    for line in text.splitlines(keepends=True):
        moved = _after_marker(line.rstrip("\r\n"), state)
        if moved is not None:
            state = moved
            continue
        if state in ("both", "ours"):
            ours.append(line)
        if state in ("both", "theirs"):
            theirs.append(line)  # (a diff3 base region goes to neither)
    return ("".join(ours), "".join(theirs)) if state == "both" else None


def _after_marker(bare: str, state: str) -> str | None:
    """Where a line moves the reading of a conflict (``both`` sides, ``ours``, the diff3
    ``base``, ``theirs``) when it is a marker that state expects next; None: it is text."""
    for marker, moved in _NEXT_MARKERS[state]:
        if _is_marker(bare, marker):
            return moved
    return None


def _is_marker(bare: str, marker: str) -> bool:
    """Whether a line (its end of line stripped) is ``marker``: ``=======`` stands alone, the
    others may carry a label."""
    return bare == marker if marker == "=======" else bare.startswith(marker)


def _lines(values: list[Any], indent: str) -> str:
    if not values:
        return "[]"
    inner = (",\n" + indent + "  ").join(json.dumps(v, ensure_ascii=False) for v in values)
    return "[\n" + indent + "  " + inner + "\n" + indent + "]"


def dump_record(states: dict[str, FileState], hosts: list[str] | None = None, policy: str | None = None) -> str:
    files = [_file_json(rel, st) for rel, st in sorted(states.items())]
    body = "{\n" + ",\n".join(files) + "\n  }" if files else "{}"
    meta = _meta_json(hosts, policy)
    return f'{{\n  "version": {RECORD_VERSION},\n  "note": {json.dumps(NOTE)},\n{meta}  "files": {body}\n}}\n'


def _file_json(rel: str, st: FileState) -> str:
    """One file's entry of the record, as ``dump_record`` lays it out: its host and rules, then
    the containers created and the original entries, where there are any."""
    parts = [
        f'      "host": {json.dumps(st.host)}',
        '      "rules": ' + _lines([i.as_json() for i in sorted(st.items)], "      "),
    ]
    if st.created:
        parts.append('      "created": ' + _lines(sorted(list(c) for c in st.created), "      "))
    if st.guarded:
        g = json.dumps(dict(sorted(st.guarded.items())), indent=2, ensure_ascii=False)
        parts.append('      "guarded": ' + g.replace("\n", "\n      "))
    return f"    {json.dumps(rel, ensure_ascii=False)}: {{\n" + ",\n".join(parts) + "\n    }"


def _meta_json(hosts: list[str] | None, policy: str | None) -> str:
    """The record's ``hosts`` and ``policy`` lines, where there are any."""
    meta = ""
    if hosts:
        meta += f'  "hosts": {json.dumps(sorted(set(hosts)))},\n'
    if policy is not None:
        meta += f'  "policy": {json.dumps(policy, ensure_ascii=False)},\n'
    return meta


def _item(raw: Any) -> Item:
    from mcplock.hosts.export.interface import Item

    return Item.from_json(raw)
