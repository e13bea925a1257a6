"""Pure post-pass over :func:`mcplock.lint.compare.compare`'s results: what one server's changes say
about the others — a tool that shadows or looks like another server's (or a host's own), a prompt
named like another of its server's, new text that names or redirects another server's tool. What
the model sees of every server together is :func:`tools_in_view` and :func:`prompts_in_view`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from mcplock.lint import LintFinding, confusable_names, cross_references, foreign_tools, shadowing
from mcplock.lint.compare import Change, ServerDiff, rejudge
from mcplock.lint.names import colliding_names
from mcplock.lock.model import Lock, ServerEntry
from mcplock.model.snapshot import Snapshot

_V = TypeVar("_V")


def _in_view(
    lock: Lock, snapshots: Mapping[str, Any], live: Callable[[Snapshot], _V], accepted: Callable[[ServerEntry], _V]
) -> dict[str, _V]:
    """Server -> what the model sees of it: ``live`` of its :class:`Snapshot` when ``snapshots``
    has one, else ``accepted`` of its lock entry; then the servers only ``snapshots`` has."""
    out: dict[str, _V] = {}
    for name, srv in lock.servers.items():
        snap = snapshots.get(name)
        out[name] = live(snap) if isinstance(snap, Snapshot) else accepted(srv)
    for name, snap in snapshots.items():
        if name not in out and isinstance(snap, Snapshot):
            out[name] = live(snap)
    return out


def _named(items: list[Any]) -> list[dict[str, Any]]:
    """The definitions among ``items`` that have a name (a server may send anything)."""
    return [d for d in items if isinstance(d, dict) and isinstance(d.get("name"), str)]


def tools_in_view(lock: Lock, snapshots: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Server -> tool name -> definition, as the model would see them all together: a server's
    live tools when ``snapshots`` has a :class:`Snapshot` for it, else its accepted tools."""
    return _in_view(
        lock,
        snapshots,
        lambda snap: {t["name"]: t for t in _named(snap.tools)},
        lambda srv: {k: e.definition for k, e in srv.tools.items() if e.definition is not None},
    )


def prompts_in_view(lock: Lock, snapshots: Mapping[str, Any]) -> dict[str, list[str]]:
    """Server -> the names of its prompts a host would list: live when ``snapshots`` has a
    :class:`Snapshot` for it, else the accepted ones."""
    return _in_view(
        lock,
        snapshots,
        lambda snap: [p["name"] for p in _named(snap.prompts)],
        lambda srv: [e.key for e in srv.entries() if e.kind == "prompt" and e.definition],
    )


def cross_server(
    diffs: list[ServerDiff],
    tools_by_server: dict[str, dict[str, Any]],
    prompts_by_server: dict[str, list[str]] | None = None,
) -> None:
    """Post-pass over :func:`compare` results: add cross-server findings in place.

    A tool added on one server under a name another server offers, or a host's own tool's
    (``read_file``, ``bash``) → ``tool-shadowing`` (high);
    one added under a name confusable with another tool's, on its server or another →
    ``confusable-name`` (critical); a new or changed tool, prompt or instructions text naming
    another server's tool → ``cross-server-reference`` (critical when it claims or redirects it,
    high for a plain mention; mentions already in the accepted text are not repeated).
    ``tools_by_server`` is every server's tools as the model sees them (:func:`tools_in_view`).
    A prompt added under a name that reads as another prompt's of its server → ``name-collision``
    (``prompts_by_server``: :func:`prompts_in_view`).
    """
    shadows = _shadows(tools_by_server)
    prompt_clashes = colliding_names(prompts_by_server or {}, "prompt")
    for d in diffs:
        foreign = foreign_tools(tools_by_server, d.name)
        for c in _judged(d):
            added = _cross_findings(
                c, shadows.get((d.name, c.name), []), prompt_clashes.get((d.name, c.name), []), foreign
            )
            if added:
                c.findings.extend(added)
                rejudge(c)


def _shadows(tools_by_server: dict[str, dict[str, Any]]) -> dict[tuple[str, str], list[LintFinding]]:
    """(server, tool) -> the tools its name shadows or is confusable with (a host's own among them)."""
    shadows = shadowing(tools_by_server, builtins=True)
    for key, found in confusable_names(tools_by_server).items():
        shadows.setdefault(key, []).extend(found)
    return shadows


def _judged(d: ServerDiff) -> list[Change]:
    """A server's changes and the staged changes of its pending items (their findings still count)."""
    return [*d.changes, *(p.detail for p in d.pending if p.detail is not None)]


def _cross_findings(
    c: Change, shadows: list[LintFinding], clashes: list[LintFinding], foreign: dict[str, list[str]]
) -> list[LintFinding]:
    """The cross-server findings of one change: a new tool's ``shadows`` (of other tools' names),
    a new prompt's ``clashes`` (with its server's prompts), and what its new text says of
    ``foreign`` tools (other servers')."""
    if c.change == "removed":
        return []
    added = _name_clashes(c, shadows, clashes)
    if c.kind in ("tool", "prompt", "instructions", "resource-template"):
        added.extend(cross_references(c.live, foreign, old=c.locked if c.change == "changed" else None))
    return added


def _name_clashes(c: Change, shadows: list[LintFinding], clashes: list[LintFinding]) -> list[LintFinding]:
    """What a new item's name clashes with: a tool's ``shadows``, a prompt's ``clashes`` (a copy)."""
    if c.change != "added":
        return []
    return list({"tool": shadows, "prompt": clashes}.get(c.kind, []))
