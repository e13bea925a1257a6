"""``mcp-surface.json``: a server's whole surface as its author publishes it (format version 1,
docs/publishers.md).

A statement is one JSON object:

- ``schema`` ``"mcp-surface"``, ``version`` ``1``, ``generator`` (the mcplock that wrote it);
- ``name``: the server's name (its ``serverInfo.name`` unless the author names it), the name an
  offline ``diff`` matches in a lock;
- what the server sent, every field kept: ``serverInfo``, ``protocolVersion``, ``instructions``,
  ``tools``, ``prompts``, ``resourceTemplates``, ``resources`` (absent: not listed), ``apps`` (the
  ``ui://`` documents its tools point at), ``skills``, ``documents`` (pinned resources' and
  skills' contents);
- ``digests``: ``mcp-lock/1`` — the open format's surface hash over every tool's ``name``,
  ``description`` and ``inputSchema`` (what another enforcer checks) — and ``mcplock`` — the
  definition hash of every item by kind and key (what an ``mcp.lock`` pins), so a reader sees
  at once which hash a lock will hold. Reading a statement recomputes both: a statement whose
  digests do not match its content is refused.

Capabilities are not part of it (they are not pinned and change with the client's).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any

from mcplock.errors import HashError, McplockError
from mcplock.model.snapshot import KEY_FIELD, Snapshot

SCHEMA = "mcp-surface"
VERSION = 1
FILENAME = "mcp-surface.json"
MAX_BYTES = 16 << 20

# the statement's list of each kind, and the snapshot's attribute for it
LISTS = (
    ("tool", "tools", "tools"),
    ("prompt", "prompts", "prompts"),
    ("resource-template", "resourceTemplates", "resource_templates"),
    ("resource", "resources", "resources"),
    ("ui", "apps", "ui"),
    ("skill", "skills", "skills"),
    ("content", "documents", "contents"),
)
_TOP = {"schema", "version", "generator", "name", "serverInfo", "protocolVersion", "instructions", "digests"}
_TOP |= {member for _, member, _ in LISTS}


class StatementError(McplockError):
    """A file that is not a surface statement mcplock can read (exit 2)."""

    exit_code = 2
    code = "statement"


@dataclass(frozen=True)
class Statement:
    """A statement as read (or built): its document and the snapshot it stands for."""

    doc: dict[str, Any]
    path: str | None = None

    @property
    def name(self) -> str:
        return str(self.doc["name"])

    def snapshot(self) -> Snapshot:
        """What a probe would have seen, had the server answered as the statement says."""
        d = self.doc
        snap = Snapshot(
            server_info=d.get("serverInfo") if isinstance(d.get("serverInfo"), dict) else None,
            protocol_version=d.get("protocolVersion"),
            instructions=d.get("instructions"),
        )
        for _kind, member, attr in LISTS:
            if member in d:
                setattr(snap, attr, list(d[member]))
        return snap

    def hashes(self) -> dict[str, dict[str, str]]:
        """kind -> key -> mcplock definition hash (``instructions`` under kind ``instructions``)."""
        out: dict[str, dict[str, str]] = self.doc["digests"]["mcplock"]
        return out

    def digest(self) -> str:
        """The canonical digest of the whole statement (what a signature covers)."""
        from mcplock.interop.canonical import digest

        return digest(self.doc)


def _item_hashes(snap: Snapshot, what: str) -> dict[str, dict[str, str]]:
    from mcplock.lock.hashing import definition_hash

    out: dict[str, dict[str, str]] = {}
    if snap.instructions is not None:
        out["instructions"] = {"instructions": definition_hash(snap.instructions, what=f"{what} instructions")}
    for kind, _member, attr in LISTS:
        items = getattr(snap, attr)
        if not items:
            continue
        key = KEY_FIELD[kind]
        out[kind] = {str(d[key]): definition_hash(d, what=f"{kind} `{what}/{d[key]}`") for d in items}
    return out


def _digests(snap: Snapshot, what: str) -> dict[str, Any]:
    from mcplock.interop.digests import COVERAGE, surface_hash

    return {
        "mcp-lock/1": {"surface": surface_hash(snap.tools), "coverage": list(COVERAGE), "toolCount": len(snap.tools)},
        "mcplock": _item_hashes(snap, what),
    }


def build(snap: Snapshot, name: str | None = None) -> Statement:
    """The statement of what ``snap`` shows (``name``: default the server's ``serverInfo.name``).
    A definition that cannot be hashed raises :class:`HashError`."""
    from mcplock._version import __version__

    info = snap.server_info if isinstance(snap.server_info, dict) else None
    if name is None:
        said = info.get("name") if info else None
        name = said if isinstance(said, str) and said else "server"
    doc: dict[str, Any] = {"schema": SCHEMA, "version": VERSION, "generator": f"mcplock {__version__}", "name": name}
    if info is not None:
        doc["serverInfo"] = info
    if snap.protocol_version is not None:
        doc["protocolVersion"] = snap.protocol_version
    if snap.instructions is not None:
        doc["instructions"] = snap.instructions
    for kind, member, attr in LISTS:
        items = getattr(snap, attr)
        if items is None or (not items and kind in ("ui", "skill", "content")):
            continue
        doc[member] = sorted(items, key=lambda d, k=KEY_FIELD[kind]: str(d.get(k)))  # type: ignore[misc]
    doc["digests"] = _digests(snap, name)
    return Statement(doc)


def dumps(statement: Statement) -> str:
    return json.dumps(statement.doc, indent=2, ensure_ascii=False) + "\n"


def write(statement: Statement, path: str) -> None:
    """Written atomically (a temporary file beside it, then renamed)."""
    tmp = f"{path}.tmp-{os.getpid()}"
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(dumps(statement))
        os.replace(tmp, path)
    except OSError as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise StatementError(
            f"cannot write {path}: {e.strerror or e}", hint="check the path given to --output and its directory"
        ) from None


def looks_like(data: bytes) -> bool:
    """Whether a file's bytes claim to be a statement (its first object names the schema)."""
    head = data[:4096]
    return b'"schema"' in head and f'"{SCHEMA}"'.encode() in head


def read(path: str) -> Statement:
    """A statement from ``path``, checked: the format and version, each list's items keyed, the
    digests recomputed. Anything else is a :class:`StatementError` saying what is wrong."""
    from mcplock.model.files import read_bounded

    try:
        data = read_bounded(path, MAX_BYTES)  # a regular file only: a FIFO or device is refused unread
    except OSError as e:
        raise StatementError(f"cannot read {path}: {e.strerror or e}", hint="check the path") from None
    return parse(data, path)


def parse(data: bytes, path: str) -> Statement:
    from mcplock.interop.canonical import DocumentError, loads

    hint = f"write it again with `mcplock surface -o {os.path.basename(path)} -- CMD…` (docs/publishers.md)"
    if len(data) > MAX_BYTES:
        raise StatementError(f"{path}: larger than {MAX_BYTES >> 20} MiB, not a surface statement", hint=hint)
    try:
        doc = loads(data)
    except DocumentError as e:
        raise StatementError(f"{path}: not a surface statement: {e.message}", hint=hint) from None
    problem = _problem(doc)
    if problem is not None:
        raise StatementError(f"{path}: not a valid {SCHEMA} v{VERSION} statement: {problem}", hint=hint)
    st = Statement(doc, path)
    try:
        want = _digests(st.snapshot(), st.name)
    except HashError as e:
        raise StatementError(f"{path}: {e.message}", hint=hint) from None
    if doc["digests"] != want:
        raise StatementError(
            f"{path}: its digests do not match its content (edited after it was written)",
            hint="a statement is written whole by `mcplock surface`; write it again from the server",
        )
    return st


def _problem(doc: Any) -> str | None:
    if not isinstance(doc, dict):
        return "not a JSON object"
    if doc.get("schema") != SCHEMA:
        return f'`schema` must be "{SCHEMA}"'
    version = doc.get("version")
    if type(version) is int and version > VERSION:
        return f"format version {version} is newer than this mcplock reads ({VERSION}): upgrade mcplock"
    if version != VERSION or type(version) is not int:
        return f"`version` must be {VERSION}"
    unknown = sorted(set(doc) - _TOP)
    if unknown:
        return f"unknown member `{unknown[0]}`"
    if not isinstance(doc.get("name"), str) or not doc["name"]:
        return "`name` must be a non-empty string"
    return _members_problem(doc)


def _members_problem(doc: dict[str, Any]) -> str | None:
    for member, typ in (("serverInfo", dict), ("protocolVersion", str), ("instructions", str), ("digests", dict)):
        if member in doc and not isinstance(doc[member], typ):
            return f"`{member}` must be {'an object' if typ is dict else 'a string'}"
    if "digests" not in doc:
        return "the member `digests` is missing"
    for kind, member, _attr in LISTS:
        items = doc.get(member, [])
        key = KEY_FIELD[kind]
        if not isinstance(items, list) or not all(isinstance(d, dict) and isinstance(d.get(key), str) for d in items):
            return f"`{member}` must be a list of objects, each with a string `{key}`"
        keys = [d[key] for d in items]
        if len(set(keys)) != len(keys):
            return f"`{member}` lists one `{key}` twice"
    return None
