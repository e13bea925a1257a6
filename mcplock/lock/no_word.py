"""Whether what a refresh staged for a server *touches no word* (docs/updates.md, "Drift without a
version"): every changed item's definition holds the same words as the accepted one — only
numbers, whitespace, punctuation or their order differ — and nothing is new or removed. Such a
review takes seconds; the pull request body says so. Pure."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from typing import Any

_WORD = re.compile(r"[^\W\d_]+")


def _strings(value: Any) -> Iterator[str]:
    """Every string in a JSON value, keys included (a renamed property is a word changed)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield str(k)
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def words(value: Any) -> Counter[str]:
    """The words (runs of letters, case kept) of every string in ``value``, counted."""
    return Counter(w for s in _strings(value) for w in _WORD.findall(s))


def touches_no_word(entry: Any) -> bool:
    """Whether every pending proposal of ``entry`` (a :class:`mcplock.lock.model.ServerEntry`) is a
    change whose words are the accepted definition's; False when there is none, or any is new or removed."""
    pending = [e for e in _entries(entry) if e.pending is not None]
    if not pending:
        return False
    for e in pending:
        if e.pending.change != "changed" or words(e.pending.definition) != words(e.definition):
            return False
    return True


def _entries(entry: Any) -> Iterator[Any]:
    if entry.instructions is not None:
        yield entry.instructions
    for items in entry.items.values():
        yield from items.values()
