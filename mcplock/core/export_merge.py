"""How mcplock's rules go into one host file's settings (``mcplock export``): the rules the
lock wants now merged with what the record says mcplock wrote before, touching nothing else
(the user's own rules, keys, order and comments stay as they are), and a file a merge left with
git's conflict markers read back to one text when only mcplock's rules differed.

Pure edits of a :class:`~mcplock.hosts.export.document.Document`: nothing is read or written here.
"""

from __future__ import annotations

from collections.abc import Container
from typing import Any

from mcplock.core.export_record import FileState
from mcplock.errors import ConfigError
from mcplock.hosts.export import Exporter
from mcplock.hosts.export.document import Document
from mcplock.hosts.export.interface import Item


def _check_shape(doc: Document, it: Item, shown: str) -> None:
    """Every container on the way to a rule must be an object (and a member's list a list)."""
    from mcplock.hosts.parse import Where

    for i in range(1, len(it.path) + (1 if it.kind == "member" else 0)):
        value = doc.get(it.path[:i])
        want, ok = ("a list", isinstance(value, list)) if i == len(it.path) else ("an object", isinstance(value, dict))
        if value is not None and not ok:
            where = Where(shown, doc.original, doc.fmt).prefix(it.path[:i])
            raise ConfigError(
                f"{where}`{'.'.join(it.path[:i])}` must be {want} for mcplock's rules",
                hint="fix it by hand (the host expects that shape too), then run `mcplock export`",
            )


def merge(
    doc: Document,
    want: list[Item],
    old: FileState,
    new: FileState,
    shown: str,
    exp: Exporter | None = None,
    stale: set[Item] | frozenset[Item] = frozenset(),
) -> list[str]:
    """Bring the rules mcplock owns in ``doc`` from ``old`` to ``want``; ``new`` gets what it owns now.
    ``stale``: the rules the export would write for the same locked tools under another decision:
    whoever wrote one (an older export restored from git, a hand edit), the lock decides those
    tools, so it goes and a key is set to the lock's value (docs/export.md, "What mcplock owns")."""
    for it in want:
        _check_shape(doc, it, shown)
    _drop_unwanted(doc, want, old)
    notes, claimed = _drop_stale(doc, want, stale, shown)
    owned_keys = {i.path for i in old.items if i.kind == "key"} | claimed
    members = _Members(doc)
    for it in want:
        note = _want(doc, it, old, new, owned_keys, shown, exp, members)
        if note is not None:
            notes.append(note)
    _tidy_created(doc, old, new)
    return notes


def _want(
    doc: Document,
    it: Item,
    old: FileState,
    new: FileState,
    owned_keys: set[tuple[str, ...]],
    shown: str,
    exp: Exporter | None,
    members: _Members,
) -> str | None:
    """One rule the lock wants, by its kind (a list, a member of one, a key); a note when a
    person set a key otherwise."""
    if it.kind == "list":
        _want_list(doc, it, old, new)
    elif it.kind == "member":
        _want_member(doc, it, old, new, members)
    else:
        return _want_key(doc, it, owned_keys, new, shown, exp)
    return None


def _drop_stale(
    doc: Document, want: list[Item], stale: set[Item] | frozenset[Item], shown: str
) -> tuple[list[str], set[tuple[str, ...]]]:
    """The rules for locked tools that say otherwise than the lock taken out (a key the lock sets
    is claimed instead, to be set to the lock's value); a note naming them."""
    wanted = {w.path for w in want if w.kind == "key"}
    members = _Members(doc)
    gone: list[str] = []
    claimed: set[tuple[str, ...]] = set()
    for it in sorted(stale):
        if it.kind == "member" and members.has(it.path, it.value):
            doc.remove_member(it.path, it.value)
            gone.append(f"`{it.value}` in `{'.'.join(it.path)}`")
        elif it.kind == "key" and doc.get(it.path) == it.value:
            gone.append(f"`{'.'.join(it.path)}` = {it.value!r}")
            if it.path in wanted:
                claimed.add(it.path)
            else:
                doc.delete(it.path)
    if not gone:
        return [], claimed
    shown_rules = ", ".join(gone[:5]) + (f" and {len(gone) - 5} more" if len(gone) > 5 else "")
    return [
        f"{shown}: {len(gone)} rule{'s' if len(gone) != 1 else ''} for locked tools said otherwise than the lock "
        f"(an older export restored, or a hand edit) and gave way to the lock's: {shown_rules}; "
        "decide a locked tool in the lock (`mcplock disable`, `mcplock approval`)"
    ], claimed


def _drop_unwanted(doc: Document, want: list[Item], old: FileState) -> None:
    """What mcplock wrote before and the lock no longer says, unless a person changed it since."""
    wanted_paths = {w.path for w in want}
    for it in sorted(old.items - set(want)):
        _remove_rule(doc, it, wanted_paths)


def _remove_rule(doc: Document, it: Item, held: Container[tuple[str, ...]] = ()) -> None:
    """Take out one rule mcplock wrote: a list's member, or a key that still holds the value
    written (unless another rule wanted now sets that key, ``held``)."""
    if it.kind == "member":
        doc.remove_member(it.path, it.value)
    elif it.kind == "key" and doc.get(it.path) == it.value and it.path not in held:
        doc.delete(it.path)


def _want_list(doc: Document, it: Item, old: FileState, new: FileState) -> None:
    if doc.get(it.path) is None:
        new.created |= set(doc.set_key(it.path, [])) | {it.path}
        new.items.add(it)
    elif it in old.items:
        new.items.add(it)


class _Members:
    """The strings in each list of ``doc`` that rules go to, as a set: whether a rule is there
    already is one lookup, not a scan of a list of thousands (issue 42.1). A list the document
    read again (a new object) is indexed again."""

    def __init__(self, doc: Document) -> None:
        self.doc = doc
        self.known: dict[tuple[str, ...], tuple[list[Any], set[str]]] = {}

    def has(self, path: tuple[str, ...], value: str) -> bool:
        current = self.doc.get(path)
        if not isinstance(current, list):
            return False
        known = self.known.get(path)
        if known is None or known[0] is not current or len(known[1]) > len(current):
            known = self.known[path] = (current, {v for v in current if isinstance(v, str)})
        return value in known[1]

    def added(self, path: tuple[str, ...], value: str) -> None:
        known = self.known.get(path)
        if known is not None and known[0] is self.doc.get(path):
            known[1].add(value)


def _want_member(doc: Document, it: Item, old: FileState, new: FileState, members: _Members) -> None:
    if members.has(it.path, it.value):
        if it in old.items:
            new.items.add(it)
        return
    new.created |= set(doc.add_member(it.path, it.value))
    members.added(it.path, it.value)
    new.items.add(it)


def _want_key(
    doc: Document, it: Item, owned_keys: set[tuple[str, ...]], new: FileState, shown: str, exp: Exporter | None
) -> str | None:
    """One key the lock sets; a note when a person set it otherwise (left as it is)."""
    current = doc.get(it.path)
    if current == it.value:
        if it.path in owned_keys:
            new.items.add(it)
        return None
    if current is not None and it.path not in owned_keys:
        return (
            f"{shown}: `{'.'.join(it.path)}` was set by hand to {current!r}; the lock says "
            f"{it.value!r}; left as it is (remove it to let mcplock manage it)"
        )
    new.created |= set(doc.set_key(it.path, it.value, _place_before(doc, it, exp)))
    new.items.add(it)
    return None


def _place_before(doc: Document, it: Item, exp: Exporter | None) -> Any:
    """The sibling key a new key goes before, where the host orders its keys (None: at the end)."""
    siblings = doc.get(it.path[:-1])
    return exp.place_before(it, list(siblings)) if exp and isinstance(siblings, dict) else None


def _tidy_created(doc: Document, old: FileState, new: FileState) -> None:
    """Containers mcplock created: an empty one no rule needs goes, the rest stay its own."""
    for path in sorted(old.created | new.created, key=len, reverse=True):
        value = doc.get(path)
        if value is None:
            continue
        if _unneeded(value, path, new):
            doc.delete(path)
        else:
            new.created.add(path)
    new.created = {p for p in new.created if doc.get(p) is not None}


def _unneeded(value: object, path: tuple[str, ...], new: FileState) -> bool:
    """Whether the container at ``path`` is empty, with no rule mcplock owns now lying in it."""
    return value in ({}, []) and not any(i.path[: len(path)] == path for i in new.items)


def unconflict(rel: str, fmt: str, sides: tuple[str, str], owned: FileState) -> str:
    """A host file mcplock exported to, left by a merge with git's conflict markers: each side
    without the rules the record says mcplock wrote. When those are the same settings, the
    conflict was only between mcplock's rules, which the export writes again from the merged
    lock: that text is returned. Otherwise the merge touched the user's own settings, which only
    a person resolves: an error naming the file."""
    stripped = _stripped_sides(sides, rel, fmt, owned)
    if len(stripped) == 2 and _bare(stripped[0], owned) == _bare(stripped[1], owned):
        return stripped[0].text
    raise ConfigError(
        f"{rel}: a merge left git's conflict markers in it, and they touch your own settings, not only the "
        "rules mcplock wrote",
        hint=f"resolve {rel} by hand (the rules mcplock wrote may go either way), then run `mcplock export`",
    )


def _stripped_sides(sides: tuple[str, str], rel: str, fmt: str, owned: FileState) -> list[Document]:
    """Each side of a conflict without the rules mcplock wrote; none when a side does not parse."""
    from mcplock.hosts.parse import parse

    stripped: list[Document] = []
    for side in sides:
        try:
            parse(side, rel, fmt)
        except ConfigError:
            return []
        doc = Document(side, fmt)
        for it in sorted(owned.items, reverse=True):
            _remove_rule(doc, it)
        stripped.append(doc)
    return stripped


def _bare(doc: Document, owned: FileState) -> object:
    """The settings without mcplock's containers once empty: what the user wrote."""
    data = settings(doc.text, "", doc.fmt)
    for path in sorted(owned.created, key=len, reverse=True):
        node = dig(data, path[:-1])
        if isinstance(node, dict) and node.get(path[-1]) in ({}, []):
            del node[path[-1]]
    return data


def dig(data: object, keys: tuple[str, ...]) -> Any:
    """The value at ``keys`` under ``data`` through objects (None where one is missing)."""
    node: Any = data
    for k in keys:
        node = node.get(k) if isinstance(node, dict) else None
    return node


def settings(text: str, shown: str, fmt: str) -> Any:
    """A host file's settings as parsed; a blank file holds none (``{}``)."""
    from mcplock.hosts.parse import parse

    return parse(text, shown, fmt) if text.strip() else {}
