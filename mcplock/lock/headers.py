"""The lock's table headers: the keys a header line names, as TOML reads them, and the line of
each table (what an error or a report points at). A leaf: the conflict regions and the reader
both read headers."""

from __future__ import annotations

import re
import tomllib

HEADER = re.compile(r"^\[([^\[].*)\]\s*(#.*)?$")


def header_lines(text: str) -> dict[tuple[str, ...], int]:
    """Map each table header's key path to its 1-based line number."""
    out: dict[tuple[str, ...], int] = {}
    for i, line in enumerate(text.splitlines(), 1):
        path = _header_keys(line)
        if path is not None:
            out[tuple(path)] = i
    return out


def _header_keys(line: str) -> list[str] | None:
    """The keys a table header line names (a comment after it allowed); None for another line."""
    if not line.startswith("["):
        return None
    m = HEADER.match(line)
    return dotted_keys(m.group(1)) if m else None


def dotted_keys(inside: str) -> list[str] | None:
    """The keys of a header's dotted name (what is inside its brackets), as TOML reads them;
    None when it is not a valid header."""
    try:
        node: object = tomllib.loads(f"[{inside}]\n")
    except tomllib.TOMLDecodeError:
        return None
    path: list[str] = []
    while isinstance(node, dict) and len(node) == 1:
        k = next(iter(node))
        path.append(k)
        node = node[k]
    return path
