"""Edit TOML text in place, line by line: the user's bytes outside the edited statement stay
as they are (tomlkit keeps them too, but puts a new key or table after the comment that
introduces the next table; here new lines go right after the table's last statement).

Covers what the Codex exporter writes: keys in a table (``[mcp_servers.S] disabled_tools``)
and new tables (``[mcp_servers.S.tools.T]``). A statement being changed is re-written through
tomlkit, which keeps its layout.

Edits are kept, not applied, until the text is read (issue 42.6): each says where in the text
as read it goes (a statement changed or deleted, keys and tables inserted before a line), and
what the document holds is changed in memory alongside, so an export of thousands of rules reads
the text once and writes it once, not once per rule.
"""

from __future__ import annotations

import tomllib
from copy import deepcopy
from typing import Any

from mcplock.hosts.export.tomlkept import Change, Group, NewKey, NewTable, changed
from mcplock.hosts.export.tomlread import Path, Table, read_tables
from mcplock.hosts.export.tomlread import header_path as header_path  # re-exported, as before
from mcplock.hosts.export.tomlread import key_text as key_text  # re-exported, as before


class TomlText:
    """A TOML document as text, with line edits. The text is parsed once per version (what it
    holds, where its tables are), not once per rule read (issue 42.1), and the edits are applied
    all at once when the text is read (issue 42.6)."""

    def __init__(self, text: str, data: dict[str, Any] | None = None) -> None:
        """``data``: what ``text`` holds, where the caller parsed it already (None: parsed when read)."""
        self._reset(text, data)
        self.nl = "\r\n" if "\r\n" in text else "\n"

    def _reset(self, text: str, data: dict[str, Any] | None = None) -> None:
        self._text = text
        self._lines: list[str] | None = None
        self._data = data
        self._tables: dict[Path, Table] | None = None
        self._edits: dict[int, tuple[int, list[Change]]] = {}  # a statement's lines -> its tomlkit edits
        self._deleted: set[int] = set()  # lines of the text as read that go
        self._groups: dict[int, Group] = {}  # what goes in before a line of the text as read
        self._new: dict[Path, NewTable] = {}  # tables added
        self._last_new: dict[Path, NewTable] = {}  # by each prefix of their paths: the last one added
        self._last_read: dict[Path, list[Path]] | None = None  # by each prefix: the tables read, in order
        self._keys_at: dict[Path, int] = {}  # a table's added keys: the line their group is at
        self._gone: set[Path] = set()  # tables whose header went
        self._dirty = False

    @property
    def text(self) -> str:
        if self._dirty:
            data = self._data
            self._reset(self._render(), data)
        return self._text

    @text.setter
    def text(self, value: str) -> None:
        self._reset(value)

    @property
    def lines(self) -> list[str]:
        """The lines of the text as read (the edits kept are not in them)."""
        if self._lines is None:
            self._lines = self._text.splitlines(keepends=True)
        return self._lines

    def get(self, path: Path) -> Any:
        """The value at ``path`` (None: absent): the document's own, edits included, to read only."""
        if self._data is None:
            self._data = tomllib.loads(self.text)
        node: Any = self._data
        for k in path:
            if not isinstance(node, dict) or k not in node:
                return None
            node = node[k]
        return node

    def tables(self) -> dict[Path, Table]:
        """Each ``[table]`` of the text as read by its path: where its header is, and its statements
        (the statements before the first header are no table's). Read once per version of the text."""
        if self._tables is None:
            self._tables = read_tables(self.lines)
        return self._tables

    def has_table(self, path: Path) -> bool:
        """Whether ``[path]`` has a header, edits included."""
        return path in self._new or (path in self.tables() and path not in self._gone)

    # --- what the document holds, kept in step with each edit ------------------------------------

    def _node(self, table: Path, create: bool = False) -> dict[str, Any] | None:
        """The table at ``table`` in what the document holds (None: not a plain table there; the
        document is then read again from the text when next asked)."""
        node: Any = self.get(())
        for k in table:
            if create and k not in node:
                node[k] = {}
            node = node.get(k) if isinstance(node, dict) else None
        if not isinstance(node, dict):
            self._data = None
            return None
        return node

    def _data_changed(self, table: Path, change: Change) -> None:
        node = self._node(table, create=True)
        if node is not None:
            change(node)

    # --- the edits ---------------------------------------------------------------------------------

    def _stmt(self, table: Path, key: str) -> tuple[int, int] | NewKey | None:
        """The statement setting ``key`` in ``[table]``: its lines in the text as read, or the key added."""
        if table in self._new:
            return next((k for k in self._new[table].keys if k.key == key and not k.deleted), None)
        t = self.tables().get(table)
        if t is None or table in self._gone:
            return None
        for a, b, k in t.stmts:
            if k == key and a not in self._deleted:
                return a, b
        group = self._groups.get(self._keys_at.get(table, -1))
        return next((k for k in group.keys if k.key == key and not k.deleted), None) if group else None

    def _edit(self, found: tuple[int, int] | NewKey, change: Change) -> None:
        if isinstance(found, NewKey):
            found.changes.append(change)
        else:
            self._edits.setdefault(found[0], (found[1], []))[1].append(change)
        self._dirty = True

    def _load(self) -> None:
        """What the document holds, read before an edit is kept (never after: it would hold it twice)."""
        if self._data is None:
            self.get(())

    def _content_end(self, path: Path, t: Table) -> int:
        """One past the table's last key statement still there (trailing blank lines and comments
        excluded), or the line its added keys go in before."""
        if path in self._keys_at:
            return self._keys_at[path]
        keyed = [b for a, b, k in t.stmts if k is not None and a not in self._deleted]
        return keyed[-1] if keyed else t.start

    def set_in_table(self, table: Path, key: str, value: Any) -> bool:
        """Set ``key`` in the ``[table]``; False when the file has no such table header."""
        self._load()
        found = self._stmt(table, key)
        if found is not None:
            self._edit(found, lambda d: d.__setitem__(key, value))
        elif table in self._new:
            self._new[table].keys.append(NewKey(key, value))
        else:
            t = self.tables().get(table)
            if t is None or table in self._gone:
                return False
            at = self._keys_at[table] = self._content_end(table, t)
            self._groups.setdefault(at, Group()).keys.append(NewKey(key, value))
        self._dirty = True
        self._data_changed(table, lambda d: d.__setitem__(key, deepcopy(value)))
        return True

    def add_table(self, path: Path, key: str, value: Any, after: Path) -> None:
        """Add ``[path]`` with one key, after the last table whose path starts with ``after``."""
        self._load()
        at, order = self._spot_after(after)
        new = NewTable(path, [NewKey(key, value)], at)
        tables = self._groups.setdefault(at, Group()).tables
        if tables and tables[-1].order > order:  # in between: the group's tables numbered again
            tables.insert(next(i for i, n in enumerate(tables) if n.order > order), new)
            for i, n in enumerate(tables):
                n.order = i
        else:
            new.order = tables[-1].order + 1 if tables else 0
            tables.append(new)
        self._new[path] = new
        for i in range(len(path) + 1):
            last = self._last_new.get(path[:i])
            if last is None or last.spot < new.spot or last is new:
                self._last_new[path[:i]] = new
        self._dirty = True
        self._data_changed(path, lambda d: d.__setitem__(key, deepcopy(value)))

    def _spot_after(self, after: Path) -> tuple[int, int]:
        """Where a table added after the tables whose path starts with ``after`` goes: after the
        last of them (the one added last, else the end of the last one read), else at the end."""
        spots = []
        read = self._read_by_prefix().get(after, [])
        last = next((p for p in reversed(read) if p not in self._gone), None)
        if last is not None:
            spots.append((self._content_end(last, self.tables()[last]), -1))
        added = self._last_new.get(after)
        if added is not None and not added.deleted:
            spots.append(added.spot)
        elif added is not None:  # the last one went: the one before it
            alive = [n for p, n in self._new.items() if p[: len(after)] == after]
            if alive:
                spots.append(max(n.spot for n in alive))
        return max(spots) if spots else (len(self.lines), -1)

    def _read_by_prefix(self) -> dict[Path, list[Path]]:
        """The tables of the text as read by each prefix of their paths, in the order they come."""
        if self._last_read is None:
            self._last_read = {}
            for p in self.tables():
                for i in range(len(p) + 1):
                    self._last_read.setdefault(p[:i], []).append(p)
        return self._last_read

    def edit_key(self, table: Path, key: str, change: Change) -> bool:
        self._load()
        found = self._stmt(table, key)
        if found is None:
            return False
        self._edit(found, change)
        self._data_changed(table, change)
        return True

    def delete_key(self, table: Path, key: str) -> bool:
        self._load()
        found = self._stmt(table, key)
        if found is None:
            return False
        if isinstance(found, NewKey):
            found.deleted = True
        else:
            self._deleted.update(range(*found))
        self._dirty = True
        self._data_changed(table, lambda d: d.pop(key, None))
        return True

    def delete_table(self, path: Path) -> bool:
        """Remove a table that holds no keys: its header (and the blank line before it)."""
        self._load()
        if path in self._new:
            new = self._new[path]
            if any(not k.deleted for k in new.keys):
                return False
            new.deleted = True
            del self._new[path]
        else:
            t = self.tables().get(path)
            if t is None or path in self._gone or self._holds_keys(path, t):
                return False
            self._deleted.update(self._emptied_span(t))
            self._gone.add(path)
        self._dirty = True
        self._forget_empty(path)
        return True

    def _forget_empty(self, path: Path) -> None:
        """A table whose header went leaves what the document holds when empty, and so do the
        tables above it that only it defined (no header of their own), as TOML reads it."""
        for j in range(len(path), 0, -1):
            parent = self._node(path[: j - 1])
            if parent is None or parent.get(path[j - 1]) != {} or (j < len(path) and self.has_table(path[:j])):
                return
            del parent[path[j - 1]]

    def _holds_keys(self, path: Path, t: Table) -> bool:
        group = self._groups.get(self._keys_at.get(path, -1))
        added = group is not None and any(not k.deleted for k in group.keys)
        return added or any(k is not None and a not in self._deleted for a, _, k in t.stmts)

    def _emptied_span(self, t: Table) -> range:
        """The lines a table without keys takes: its header, with the blank line before it as the
        text reads now (a line added there is never blank); the comments in its body stay."""
        before = self._line_before(t.header)
        return range(t.header - 1 if before is not None else t.header, t.start)

    def _line_before(self, i: int) -> int | None:
        """The blank line of the text as read that now comes just before its line ``i`` (None: the
        line there is not blank, or was added, or there is none)."""
        while True:
            group = self._groups.get(i)
            if group is not None and group.adds():
                return None
            if i == 0:
                return None
            i -= 1
            if i not in self._deleted:
                return i if not self.lines[i].strip() else None

    # --- the text, the edits applied ---------------------------------------------------------------

    def _render(self) -> str:
        lines, out = self.lines, list[str]()
        i = 0
        while i <= len(lines):
            group = self._groups.get(i)
            if group is not None:
                added = "".join(k.render(self.nl) for k in group.keys) + "".join(
                    n.render(self.nl) for n in group.tables
                )
                if added and out and not out[-1].endswith("\n"):
                    out.append(self.nl)  # the file's last line had no line break
                if added:
                    out.append(added)
            if i == len(lines):
                break
            if i in self._edits and i not in self._deleted:
                b, changes = self._edits[i]
                out.append(changed("".join(lines[i:b]), changes))
                i = b
                continue
            if i not in self._deleted:
                out.append(lines[i])
            i += 1
        return "".join(out)
