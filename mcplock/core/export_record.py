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


def load_record(lock_path: str) -> dict[str, FileState]:
    return load(lock_path).files


def load(lock_path: str) -> Record:
    path = record_path(lock_path)
    hint = "restore it from git, or delete it and run `mcplock export` again"
    try:
        with open(path, encoding="utf-8") as fh:
            raw = json.load(fh)
    except FileNotFoundError:
        return Record()
    except (OSError, ValueError) as e:
        raise ConfigError(f"{path}: not a valid export record ({type(e).__name__})", hint=hint) from None
    try:
        if raw.get("version", 0) > RECORD_VERSION:
            raise ConfigError(f"{path}: written by a newer mcplock", hint="upgrade mcplock")
        files = {
            str(rel): FileState(
                host=str(st["host"]),
                items={_item(i) for i in st.get("rules", [])},
                created={tuple(str(p) for p in c) for c in st.get("created", [])},
                guarded={str(k): str(v) for k, v in st.get("guarded", {}).items()},
            )
            for rel, st in raw["files"].items()
        }
        hosts = sorted({str(h) for h in raw.get("hosts", [])} | {st.host for st in files.values()})
        policy = raw.get("policy")
        if policy is not None and not isinstance(policy, str):
            raise TypeError("policy")
        return Record(files, hosts, policy)
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        raise ConfigError(f"{path}: not a valid export record ({type(e).__name__})", hint=hint) from None


def _lines(values: list[Any], indent: str) -> str:
    if not values:
        return "[]"
    inner = (",\n" + indent + "  ").join(json.dumps(v, ensure_ascii=False) for v in values)
    return "[\n" + indent + "  " + inner + "\n" + indent + "]"


def dump_record(states: dict[str, FileState], hosts: list[str] | None = None, policy: str | None = None) -> str:
    files = []
    for rel, st in sorted(states.items()):
        parts = [f'      "host": {json.dumps(st.host)}',
                 '      "rules": ' + _lines([i.as_json() for i in sorted(st.items)], "      ")]
        if st.created:
            parts.append('      "created": ' + _lines(sorted(list(c) for c in st.created), "      "))
        if st.guarded:
            g = json.dumps(dict(sorted(st.guarded.items())), indent=2, ensure_ascii=False)
            parts.append('      "guarded": ' + g.replace("\n", "\n      "))
        files.append(f"    {json.dumps(rel, ensure_ascii=False)}: {{\n" + ",\n".join(parts) + "\n    }")
    body = "{\n" + ",\n".join(files) + "\n  }" if files else "{}"
    meta = ""
    if hosts:
        meta += f'  "hosts": {json.dumps(sorted(set(hosts)))},\n'
    if policy is not None:
        meta += f'  "policy": {json.dumps(policy, ensure_ascii=False)},\n'
    return f'{{\n  "version": {RECORD_VERSION},\n  "note": {json.dumps(NOTE)},\n{meta}  "files": {body}\n}}\n'


def _item(raw: Any) -> Item:
    from mcplock.hosts.export.interface import Item

    return Item.from_json(raw)
