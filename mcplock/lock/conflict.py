"""A merged lock with conflicts, as text: one marked region per conflicted entry.

The merge driver writes the canonical lock (the writer's bytes) of the merge where every
conflict takes ours, with each conflicted entry — one item's table with its sub-tables, or a
server's own settings — replaced by a region that holds both sides in full::

    <<<<<<< ours (definition): docs/search_docs
    [server.docs.tool.search_docs]
    …as the branch you are on has it…
    =======
    [server.docs.tool.search_docs]
    …as the branch being merged has it…
    >>>>>>> theirs: docs/search_docs

The markers are git's, so every reader of the lock refuses the file (exit 2) until each
region is resolved, editors show it as a conflict, and nothing of either side is lost.
:func:`regions` finds mcplock's regions (the lock reader names each one and the command that
resolves it); :func:`resolve` keeps one side of some of them. This module stays light (no
tomlkit) because the lock reader imports it; :func:`render` imports the writer when it runs.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from mcplock.lock.headers import dotted_keys
from mcplock.lock.model import ITEM_KINDS, Lock, ServerEntry

if TYPE_CHECKING:
    from mcplock.lock.merge import Conflict, Merged

_START = re.compile(r"^<{7} ours \(([a-z_, -]+)\): (.+)$")
_MID = "======="
_END = re.compile(r"^>{7} theirs: (.+)$")
_MARKER = ("<<<<<<<", "=======", ">>>>>>>")
_HEADER = re.compile(r"^\[([^\[].*)\]\s*$")
SIDES = ("ours", "theirs")


@dataclass(frozen=True)
class Region:
    target: str  # the conflicted entry, as `mcplock resolve` takes it: SERVER or SERVER/ITEM
    units: tuple[str, ...]  # what disagrees: "definition", "enabled", "approval", "launch", "policy", …
    line: int  # 1-based line of its opening marker
    ours: str
    theirs: str


def describe(units: tuple[str, ...]) -> str:
    """What disagrees, in words: "definition differs", "removed on one branch, changed on the other"."""
    if "removed" in units:
        return "removed on one branch, changed on the other"
    return f"{' and '.join(units)} differ{'s' if len(units) == 1 else ''}"


def target_of(c: Conflict) -> str:
    from mcplock.lock.targets import format_target

    return format_target(c.server, None if c.whole else c.kind, None if c.whole else c.key)


def _label(target: str) -> str:
    return json.dumps(target, ensure_ascii=True)[1:-1]  # one line, whatever the names hold


def _unlabel(text: str) -> str:
    try:
        return str(json.loads(f'"{text}"'))
    except ValueError:
        return text


# -- writing -----------------------------------------------------------------------------------


def _entry_of(path: list[str], lock: Lock) -> tuple[str, ...] | None:
    """The entry a table header starts: (SERVER,) for a server's own tables, (SERVER, KIND, KEY)
    for an item; None when the line is not a table this lock has (it belongs to the block above)."""
    if len(path) < 2 or path[0] != "server" or path[1] not in lock.servers:
        return None
    if _server_own(path):
        return (path[1],)
    if _item_header(path, lock.servers[path[1]]):
        return (path[1], path[2], path[3])
    return None


def _server_own(path: list[str]) -> bool:
    """``[server.S]`` or one of its own tables (``[server.S.package]``), not an item kind's."""
    return len(path) == 2 or (len(path) == 3 and path[2] not in ITEM_KINDS)


def _item_header(path: list[str], srv: ServerEntry) -> bool:
    """``[server.S.KIND.KEY…]`` of an item the server has."""
    return len(path) >= 4 and path[2] in srv.items and path[3] in srv.items[path[2]]


def _header_path(line: str) -> list[str] | None:
    """The dotted keys of a table header line (``[server.docs]`` -> server, docs); None for
    any other line, an array of tables' header included."""
    if not line.startswith("[") or line.startswith("[["):
        return None
    m = _HEADER.match(line.rstrip("\n"))
    return None if m is None else dotted_keys(m.group(1))


def _blocks(text: str, lock: Lock, whole: set[str]) -> dict[tuple[str, ...], str]:
    """The text split by entry: () the preamble, (S,) a server's own tables (a whole server's
    everything when ``S`` is in ``whole``), (S, KIND, KEY) an item with its sub-tables."""
    out: dict[tuple[str, ...], list[str]] = {(): []}
    current: tuple[str, ...] = ()
    for line in text.splitlines(keepends=True):
        path = _header_path(line)
        entry = _entry_of(path, lock) if path is not None else None
        if entry is not None:
            current = (entry[0],) if entry[0] in whole else entry
            out.setdefault(current, [])
        out[current].append(line)
    return {k: "".join(v) for k, v in out.items()}


def _order(entry: tuple[str, ...]) -> tuple[object, ...]:
    if not entry:
        return (0,)
    if len(entry) == 1:
        return (1, entry[0], 0)
    kind_rank = ITEM_KINDS.index(entry[1]) if entry[1] in ITEM_KINDS else len(ITEM_KINDS)
    return (1, entry[0], 1 + kind_rank, entry[1], entry[2])


def _region(target: str, units: tuple[str, ...], ours: str, theirs: str) -> str:
    def side(text: str) -> str:
        text = text.rstrip("\n")
        return text + "\n" if text else ""

    return (
        f"<<<<<<< ours ({', '.join(units)}): {_label(target)}\n{side(ours)}{_MID}\n{side(theirs)}"
        f">>>>>>> theirs: {_label(target)}\n"
    )


def render(merged: Merged) -> str:
    """The merge as the lock's text: the writer's bytes when it is clean, else the writer's bytes
    of ours with each conflicted entry as a region holding both sides."""
    from mcplock.lock.write import dumps

    text_o = dumps(merged.ours)
    if merged.clean:
        return text_o
    whole = {c.server for c in merged.conflicts if c.whole}
    blocks_o = _blocks(text_o, merged.ours, whole)
    blocks_t = _blocks(dumps(merged.theirs), merged.theirs, whole)
    by_entry = {_conflicted_entry(c): c for c in merged.conflicts}
    out = [
        _entry_text(entry, by_entry.get(entry), blocks_o, blocks_t)
        for entry in sorted({*blocks_o, *blocks_t, *by_entry}, key=_order)
    ]
    return "".join(out).rstrip("\n") + "\n"


def _conflicted_entry(c: Conflict) -> tuple[str, ...]:
    """The entry a conflict replaces: the server's own tables (all of it when ``whole``), or an item."""
    return (c.server,) if c.whole or c.kind is None else (c.server, c.kind, c.key or "")


def _entry_text(
    entry: tuple[str, ...],
    c: Conflict | None,
    blocks_o: dict[tuple[str, ...], str],
    blocks_t: dict[tuple[str, ...], str],
) -> str:
    """One entry of the merged text: ours' block, or a region holding both sides when it conflicts."""
    if c is None:
        return blocks_o.get(entry, "")
    return _region(target_of(c), c.units, blocks_o.get(entry, ""), blocks_t.get(entry, "")) + "\n"


# -- reading -----------------------------------------------------------------------------------


def has_markers(text: str) -> bool:
    return any(line.startswith(_MARKER) for line in text.splitlines())


def _read_region(lines: list[str], i: int) -> tuple[Region, int] | None:
    """The region whose start marker is ``lines[i]`` and the index after its end marker, or None
    when it is not a well-formed region of mcplock's."""
    start = _START.match(lines[i].rstrip("\n"))
    if start is None:
        return None
    ours, theirs, j = _read_sides(lines, i + 1)
    end = _END.match(lines[j].rstrip("\n")) if j < len(lines) else None
    if theirs is None or end is None or end.group(1) != start.group(2):
        return None
    units = tuple(u.strip() for u in start.group(1).split(","))
    return Region(_unlabel(start.group(2)), units, i + 1, "".join(ours), "".join(theirs)), j + 1


def _read_sides(lines: list[str], j: int) -> tuple[list[str], list[str] | None, int]:
    """A region's two sides from ``lines[j]`` on, split at its first middle marker (theirs None:
    no middle marker), and the index of the marker that ends them (``len(lines)``: none does)."""
    sides: list[list[str]] = [[], []]
    side = 0
    while j < len(lines):
        if lines[j].rstrip("\n") == _MID and side == 0:
            side = 1
        elif lines[j].startswith(_MARKER):
            break
        else:
            sides[side].append(lines[j])
        j += 1
    return sides[0], sides[1] if side == 1 else None, j


def split(text: str) -> list[str | Region] | None:
    """The text as plain lines and mcplock's regions, or None when it holds a conflict marker that
    is not part of a well-formed region of mcplock's (git's own text conflict, a hand edit)."""
    out: list[str | Region] = []
    lines = text.splitlines(keepends=True)
    i = 0
    while i < len(lines):
        if not lines[i].startswith(_MARKER):
            out.append(lines[i])
            i += 1
            continue
        found = _read_region(lines, i)
        if found is None:
            return None
        region, i = found
        out.append(region)
    return out


def regions(text: str) -> list[Region] | None:
    """mcplock's conflict regions in ``text`` (None when its markers are not mcplock's)."""
    parts = split(text)
    return None if parts is None else [p for p in parts if isinstance(p, Region)]


def resolve(text: str, choices: dict[str, str]) -> tuple[str, list[Region]]:
    """``text`` with the regions named in ``choices`` (target → "ours" | "theirs") replaced by that
    side; returns the new text and the regions still left. A target that names no region is a
    KeyError (the caller checks targets against :func:`regions` first)."""
    parts = split(text)
    if parts is None:
        raise ValueError("not mcplock's conflict regions")
    out: list[str] = []
    left: list[Region] = []
    for p in parts:
        if isinstance(p, str):
            out.append(p)
        elif p.target in choices:
            chosen = p.ours if choices[p.target] == "ours" else p.theirs
            out.append(chosen)
        else:
            left.append(p)
            out.append(_region(p.target, p.units, p.ours, p.theirs))
    return "".join(out), left
