"""Edit TOML text in place, line by line: the user's bytes outside the edited statement stay
as they are (tomlkit keeps them too, but puts a new key or table after the comment that
introduces the next table; here new lines go right after the table's last statement).

Covers what the Codex exporter writes: keys in a table (``[mcp_servers.S] disabled_tools``)
and new tables (``[mcp_servers.S.tools.T]``). A statement being changed is re-written through
tomlkit, which keeps its layout.
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass
from typing import Any

Path = tuple[str, ...]


def header_path(line: str) -> Path | None:
    s = line.strip()
    if not s.startswith("[") or s.startswith("[["):
        return None
    try:
        data = tomllib.loads(s)
    except tomllib.TOMLDecodeError:
        return None
    path: list[str] = []
    while isinstance(data, dict) and len(data) == 1:
        key = next(iter(data))
        path.append(key)
        data = data[key]
    return tuple(path)


Statement = tuple[int, int, str | None]  # (first line, end line, key or None for blank/comment)


def _statement(lines: list[str], i: int) -> Statement:
    """The statement that starts at line ``i``: a blank line or a comment, or the fewest lines
    from ``i`` that read as TOML (a multi-line value), with its key. TOML that never reads is
    the parser's error."""
    s = lines[i].strip()
    if not s or s.startswith("#"):
        return (i, i + 1, None)
    j = i + 1
    while True:
        try:
            data = tomllib.loads("".join(lines[i:j]))
            return (i, j, next(iter(data), None))
        except tomllib.TOMLDecodeError:
            if j >= len(lines):
                raise
            j += 1


@dataclass
class Table:
    header: int  # line index of the header
    start: int  # first body line
    end: int  # one past the last body line
    stmts: list[Statement]

    @property
    def content_end(self) -> int:
        """One past the last key statement (trailing blank lines and comments excluded)."""
        keyed = [b for _, b, k in self.stmts if k is not None]
        return keyed[-1] if keyed else self.start


def key_text(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else json.dumps(key, ensure_ascii=False)


class TomlText:
    """A TOML document as text, with line edits. It is parsed once per version of the text
    (what it holds, where its tables are), not once per rule read (issue 42.1)."""

    def __init__(self, text: str, data: dict[str, Any] | None = None) -> None:
        """``data``: what ``text`` holds, where the caller parsed it already (None: parsed when read)."""
        self._data: dict[str, Any] | None = None
        self.text = text
        self._data = data
        self.nl = "\r\n" if "\r\n" in text else "\n"

    @property
    def text(self) -> str:
        return self._text

    @text.setter
    def text(self, value: str) -> None:
        self._text = value
        self._data = None
        self._tables: dict[Path, Table] | None = None

    @property
    def lines(self) -> list[str]:
        return self.text.splitlines(keepends=True)

    def get(self, path: Path) -> Any:
        """The value at ``path`` (None: absent): the document's own until the next edit, to read only."""
        if self._data is None:
            self._data = tomllib.loads(self.text)
        node: Any = self._data
        for k in path:
            if not isinstance(node, dict) or k not in node:
                return None
            node = node[k]
        return node

    def tables(self) -> dict[Path, Table]:
        """Each ``[table]`` by its path: where its header is, and its statements (the statements
        before the first header are no table's). Read once per version of the text."""
        if self._tables is None:
            self._tables = self._read_tables()
        return self._tables

    def _read_tables(self) -> dict[Path, Table]:
        lines = self.lines
        out: dict[Path, Table] = {}
        current: tuple[Path, int] | None = None  # the table being read, and its header's line
        stmts: list[Statement] = []
        i = 0
        while i < len(lines):
            hp = header_path(lines[i])
            if hp is not None:
                if current is not None:
                    out[current[0]] = Table(current[1], current[1] + 1, i, stmts)
                current, stmts = (hp, i), []
                i += 1
                continue
            stmt = _statement(lines, i)
            if current is not None:
                stmts.append(stmt)
            i = stmt[1]
        if current is not None:
            out[current[0]] = Table(current[1], current[1] + 1, len(lines), stmts)
        return out

    def _splice(self, a: int, b: int, new: str) -> None:
        lines = self.lines
        self.text = "".join(lines[:a]) + new + "".join(lines[b:])

    def _stmt(self, table: Path, key: str) -> tuple[Table, int, int] | None:
        t = self.tables().get(table)
        if t is None:
            return None
        for a, b, k in t.stmts:
            if k == key:
                return t, a, b
        return None

    def _rewrite(self, a: int, b: int, change: Any) -> None:
        import tomlkit

        doc = tomlkit.parse("".join(self.lines[a:b]))
        change(doc)
        self._splice(a, b, doc.as_string())

    def set_in_table(self, table: Path, key: str, value: Any) -> bool:
        """Set ``key`` in the ``[table]``; False when the file has no such table header."""
        found = self._stmt(table, key)
        if found is not None:
            _, a, b = found
            self._rewrite(a, b, lambda d: d.__setitem__(key, value))
            return True
        t = self.tables().get(table)
        if t is None:
            return False
        at = t.content_end
        line = f"{key_text(key)} = {json.dumps(value, ensure_ascii=False)}{self.nl}"
        self._splice(at, at, self._break_before(at) + line)
        return True

    def _break_before(self, at: int) -> str:
        """The line break text added at line ``at`` needs first: the one the line before it
        lacks (a file's last line without one), else none."""
        return self.nl if at > 0 and not self.lines[at - 1].endswith("\n") else ""

    def add_table(self, path: Path, key: str, value: Any, after: Path) -> None:
        """Add ``[path]`` with one key, after the last table whose path starts with ``after``."""
        tables = [t for p, t in self.tables().items() if p[: len(after)] == after]
        at = max(t.content_end for t in tables) if tables else len(self.lines)
        header = "[" + ".".join(key_text(p) for p in path) + "]"
        block = f"{self.nl}{header}{self.nl}{key_text(key)} = {json.dumps(value, ensure_ascii=False)}{self.nl}"
        self._splice(at, at, self._break_before(at) + block)

    def edit_key(self, table: Path, key: str, change: Any) -> bool:
        found = self._stmt(table, key)
        if found is None:
            return False
        _, a, b = found
        self._rewrite(a, b, change)
        return True

    def delete_key(self, table: Path, key: str) -> bool:
        found = self._stmt(table, key)
        if found is None:
            return False
        _, a, b = found
        self._splice(a, b, "")
        return True

    def delete_table(self, path: Path) -> bool:
        """Remove a table that holds no keys: its header (and the blank line before it)."""
        t = self.tables().get(path)
        if t is None or any(k is not None for _, _, k in t.stmts):
            return False
        a, b = self._emptied_span(t)
        self._splice(a, b, "")
        return True

    def _emptied_span(self, t: Table) -> tuple[int, int]:
        """The lines a table without keys takes: its header (with the blank line before it) and
        the blank lines of its body; the comments there stay."""
        lines = self.lines
        a = t.header - 1 if t.header > 0 and not lines[t.header - 1].strip() else t.header
        b = t.start
        while b < t.end and lines[b].strip() == "" and b < t.content_end:
            b += 1
        return a, b
