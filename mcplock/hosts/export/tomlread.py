"""Where things are in TOML text, line by line: table headers, the statements of each table (a
key, or a blank line or comment), and a key as TOML writes it. :mod:`tomledit` edits by these."""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass

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


def statement(lines: list[str], i: int) -> Statement:
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


def read_tables(lines: list[str]) -> dict[Path, Table]:
    """Each ``[table]`` of ``lines`` by its path: where its header is, and its statements (the
    statements before the first header are no table's)."""
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
        stmt = statement(lines, i)
        if current is not None:
            stmts.append(stmt)
        i = stmt[1]
    if current is not None:
        out[current[0]] = Table(current[1], current[1] + 1, len(lines), stmts)
    return out
