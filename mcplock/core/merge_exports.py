"""The merge driver on an exported host file (docs/merging.md, "Exported host files"): the three
versions' settings merged as data onto the branch's own text, so that a merge that merged the
lock and its export record cleanly leaves the hosts' files merged too.

The export is a function of the lock, one rule per tool, and the lock merges per tool, so the
settings merge per rule: a list mcplock writes rules into (``permissions.deny``,
``enabled_tools``, ``includeTools``, …) as a set (what one side added or removed, added or
removed), any other value per key (one side's change, or both the same). Each change is made
through the same in-place edits as the export (:class:`~mcplock.hosts.export.document.Document`),
so the user's layout and comments stay. Two different changes to one value are a conflict: the
file then gets git's line merge, and ``mcplock check`` names ``mcplock export`` for it.
"""

from __future__ import annotations

from typing import Any

from mcplock.hosts.export.document import Document

Path = tuple[str, ...]

#: the lists mcplock writes rules into, by their last key: merged as sets
RULE_LISTS = frozenset(
    {"allow", "ask", "deny", "enabled_tools", "disabled_tools", "includeTools", "excludeTools", "allowed"}
    | {"mcpAllowlist"}
)

#: rule lists that mean something when empty (an allowlist: none of the tools), never removed
_ALLOWLISTS = frozenset({"enabled_tools", "includeTools"})

_MISSING: Any = object()


class Conflict(Exception):
    """Both sides changed one value, differently."""


def host_format(pathname: str) -> str | None:
    """The format of the exported host file at ``pathname`` ("json" | "toml"; None: not one)."""
    from mcplock.hosts.export import EXPORTERS

    for exp in (x for e in EXPORTERS.values() for x in (e, *e.also)):
        for f in (*exp.files, exp.servers_file, exp.launches_file):
            if f and (pathname == f or pathname.endswith("/" + f)):
                return "toml" if f.endswith(".toml") else "json"
    return None


def merge_texts(base: str, ours: str, theirs: str, fmt: str, shown: str) -> str:
    """Ours's text with theirs's changes since base made in it. Raises :class:`Conflict`, or the
    parser's error for a version that does not read."""
    from mcplock.core.export_merge import settings

    b, o, t = (settings(text, shown, fmt) if text.strip() else {} for text in (base, ours, theirs))
    doc = Document(ours, fmt, o if fmt == "toml" else None)
    _merge(doc, (), b, o, t)
    return doc.text


def _merge(doc: Document, path: Path, b: Any, o: Any, t: Any) -> None:
    if _same(o, t) or _same(b, t):
        return  # theirs changed nothing here, or made ours's change
    if _same(b, o):
        _take(doc, path, o, t)
        return
    if all(isinstance(v, dict) or v is _MISSING for v in (b, o, t)) and isinstance(o, dict) and isinstance(t, dict):
        base = b if isinstance(b, dict) else {}
        for k in [*o, *(k for k in t if k not in o), *(k for k in base if k not in o and k not in t)]:
            _merge(doc, (*path, k), base.get(k, _MISSING), o.get(k, _MISSING), t.get(k, _MISSING))
        return
    if path and path[-1] in RULE_LISTS and all(_strings(v) for v in (b, o, t)):
        was, now = set(_as_list(b)), _as_list(t)
        kept = set(now)
        gone = [v for v in _as_list(o) if v in was and v not in kept]
        for v in gone:
            doc.remove_member(path, v)
        have = set(_as_list(doc.get(path)))
        for v in now:
            if v not in was and v not in have:
                doc.add_member(path, v)
                have.add(v)
        if gone and doc.get(path) == [] and _tidy(path):
            _drop_emptied(doc, path)
        return
    raise Conflict(".".join(path))


def _take(doc: Document, path: Path, o: Any, t: Any) -> None:
    """Theirs's value where ours kept base's: set (a table key by key), or removed."""
    if t is _MISSING:
        doc.delete(path)
    elif isinstance(t, dict) and t and not isinstance(o, dict):
        if o is not _MISSING:
            doc.delete(path)
        for k, v in t.items():
            _take(doc, (*path, k), _MISSING, v)
    elif isinstance(t, dict) and isinstance(o, dict):
        for k in [*o, *(k for k in t if k not in o)]:
            if not _same(o.get(k, _MISSING), t.get(k, _MISSING)):
                _take(doc, (*path, k), o.get(k, _MISSING), t.get(k, _MISSING))
    else:
        doc.set_key(path, t)


def _tidy(path: Path) -> bool:
    """Whether a rule list the merge emptied goes, as the export removes an empty one it created:
    not an allowlist, not Gemini's ``mcp.allowed`` (empty: no server at all)."""
    return path[-1] not in _ALLOWLISTS and path[-2:] != ("mcp", "allowed")


def _drop_emptied(doc: Document, path: Path) -> None:
    """A list the merge emptied removed, and the object holding it when that is left empty."""
    doc.delete(path)
    if len(path) > 1 and doc.get(path[:-1]) == {}:
        doc.delete(path[:-1])


def _same(a: Any, b: Any) -> bool:
    return a is b or (a is not _MISSING and b is not _MISSING and type(a) is type(b) and a == b)


def _strings(v: Any) -> bool:
    return v is _MISSING or (isinstance(v, list) and all(isinstance(x, str) for x in v))


def _as_list(v: Any) -> list[str]:
    return list(v) if isinstance(v, list) else []
