"""The edits :class:`~mcplock.hosts.export.tomledit.TomlText` keeps until its text is read: keys
and tables added (rendered then), and the tomlkit edits of a statement (made then, all at once)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mcplock.hosts.export.tomlread import Path, key_text

Change = Callable[[Any], None]  # a tomlkit edit of the one-statement document holding the key


@dataclass
class NewKey:
    """A key added (rendered as JSON, which TOML reads alike), and the edits made to it since."""

    key: str
    value: Any
    changes: list[Change] = field(default_factory=list)
    deleted: bool = False

    def render(self, nl: str) -> str:
        if self.deleted:
            return ""
        return changed(f"{key_text(self.key)} = {json.dumps(self.value, ensure_ascii=False)}{nl}", self.changes)


@dataclass
class NewTable:
    """A table added: ``[path]`` after a blank line, then its keys."""

    path: Path
    keys: list[NewKey]
    at: int  # the line of the text as read it goes in before
    order: int = 0  # its place among the tables added there
    deleted: bool = False

    @property
    def spot(self) -> tuple[int, int]:
        return self.at, self.order

    def render(self, nl: str) -> str:
        if self.deleted:
            return ""
        header = "[" + ".".join(key_text(p) for p in self.path) + "]"
        return nl + header + nl + "".join(k.render(nl) for k in self.keys)


@dataclass
class Group:
    """What goes in before one line of the text as read: the keys that end a table's statements
    there (one table's), then the tables added after it."""

    keys: list[NewKey] = field(default_factory=list)
    tables: list[NewTable] = field(default_factory=list)

    def adds(self) -> bool:
        """Whether anything goes in here (a key or a table not deleted since)."""
        return any(not k.deleted for k in self.keys) or any(not n.deleted for n in self.tables)


def changed(text: str, changes: list[Change]) -> str:
    """``text`` (one statement) with ``changes`` made through tomlkit, which keeps its layout."""
    if not changes:
        return text
    import tomlkit

    doc = tomlkit.parse(text)
    for change in changes:
        change(doc)
    return doc.as_string()
