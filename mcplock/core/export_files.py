"""The host files one export reads: each validated (an object, writable, not through a link
out of the project) and parsed once per run, edited in memory (``mcplock export``, and the
``check`` and flag commands that keep an export in step, issue 42.1)."""

from __future__ import annotations

import os
from typing import Any

from mcplock.core.export_merge import dig, settings, unconflict
from mcplock.core.export_record import FileState, split_conflict
from mcplock.errors import ConfigError
from mcplock.hosts.export import Exporter
from mcplock.hosts.export.document import Document


def _read(
    root: str, path: str, shown: str, fmt: str, empty_ok: bool = False, conflict_ok: bool = False
) -> tuple[str | None, Any]:
    """The text of a host file, validated, and what it holds (None: not parsed). ``empty_ok``:
    an empty file is returned as it is (an older export left it); ``conflict_ok``: so is one with
    a merge's conflict markers (both sides are read by the caller)."""
    from pathlib import Path

    from mcplock.hosts.parse import read_text

    _refuse_links(root, path, shown)
    if not os.path.exists(path):
        return None, None
    _check_writable(path, shown)
    text = read_text(Path(path), shown)
    if _read_as_is(text, empty_ok, conflict_ok):
        return text, None
    return text, _check_top_object(text, shown, fmt)


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


def _check_top_object(text: str, shown: str, fmt: str) -> dict[str, Any]:
    """A host file's text parsed, to an object."""
    from mcplock.hosts.parse import parse

    data = parse(text, shown, fmt)
    if not isinstance(data, dict):
        raise ConfigError(
            f"{shown}: the top level must be an object", hint="fix the file; the host cannot read it either"
        )
    return data


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


class HostFiles:
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
        """The host file ``rel``, read, validated and parsed once per plan."""
        if rel not in self.docs:
            before, data = self._read(rel, fmt)
            text = self._text(rel, fmt, before)
            self.docs[rel] = (Document(text, fmt, data if text is before else None), before, fmt)
        return self.docs[rel][0]

    def _read(self, rel: str, fmt: str) -> tuple[str | None, Any]:
        """A host file's text as read (None: no file) and what it holds; one mcplock exported to
        may be empty, or hold a merge's conflict markers."""
        owned = rel in self.owned
        return _read(self.base, os.path.join(self.base, rel), rel, fmt, empty_ok=owned, conflict_ok=owned)

    def _text(self, rel: str, fmt: str, before: str | None) -> str:
        """The text to edit: as read, or, where a merge left its markers in a file mcplock
        exported to, the one text both sides agree on once mcplock's rules are regenerated."""
        sides = split_conflict(before) if rel in self.owned and before is not None else None
        if sides is None:
            return before or ""
        text = unconflict(rel, fmt, sides, self.record[rel])
        self.conflicted.add(rel)
        return text

    def replace(self, rel: str, text: str) -> Document:
        _, before, fmt = self.docs[rel]
        doc = Document(text, fmt)
        doc.original = before or ""
        self.docs[rel] = (doc, before, fmt)
        return doc


def text_if_any(path: str) -> str | None:
    from mcplock.model.files import DOCUMENT_MAX, read_bounded

    try:
        return read_bounded(path, DOCUMENT_MAX).decode("utf-8")
    except FileNotFoundError:
        return None
    except OSError as e:
        raise ConfigError(f"{path}: cannot read: {e.strerror or e}", hint="restore it from git, or remove it") from None


def read_entries(exp: Exporter, base: str, srel: str) -> Any:
    """The object at ``servers_keys`` in the file ``srel``, read from disk (None: no file)."""
    from pathlib import Path

    from mcplock.hosts.parse import read_text

    path = Path(base, srel)
    if not path.is_file():
        return None
    text = read_text(path, srel)
    return dig(settings(text, srel, exp.fmt), exp.servers_keys)


def settings_data(base: str, rel: str) -> Any:
    """What a JSON settings file of the project holds, read from disk (``{}``: no file)."""
    from pathlib import Path

    from mcplock.hosts.parse import read_text

    path = Path(base, rel)
    if not path.is_file():
        return {}
    return settings(read_text(path, rel), rel, "json")


def bom(path: str) -> bytes:
    """The UTF-8 byte-order mark the file starts with, to keep (the edit reads past it)."""
    try:
        with open(path, "rb") as fh:
            return b"\xef\xbb\xbf" if fh.read(3) == b"\xef\xbb\xbf" else b""
    except OSError:
        return b""
