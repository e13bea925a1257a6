"""The lint applied to what a lock (or a server about to be added) shows a person.

``list`` and ``add`` use this so a poisoned server is flagged before anyone accepts it:
each entry is judged on the definition it shows — the pending proposal when there is
one (against the accepted definition for a change), else the accepted one — and tools
are checked across servers for shadowing and cross-server references; a new tool also
against the hosts' own tools (``read_file``, ``Bash`` …).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from mcplock.lint import LintFinding, lint_definition, lint_servers
from mcplock.lint.annotations import contradiction_findings
from mcplock.lint.definition import quiet
from mcplock.lint.names import colliding_names, pattern_name
from mcplock.lint.params import context_findings, credential_findings
from mcplock.lint.servers import builtin_shadowing, mentions
from mcplock.lint.text import texts
from mcplock.lock.model import Entry, ServerEntry

if TYPE_CHECKING:
    from mcplock.lint.cache import LintCache

Key = tuple[str, str, str]  # (server, kind, key)


def shown(e: Entry) -> tuple[Any, Any]:
    """(definition a person is shown, the accepted one it changes or None)."""
    if e.pending is not None and e.pending.definition is not None:
        return e.pending.definition, (e.definition if e.pending.change == "changed" else None)
    return e.definition, None


def lint_entries(
    servers: Iterable[ServerEntry], *, cache: LintCache | None = None, hashes: dict[Key, str] | None = None
) -> dict[Key, list[LintFinding]]:
    """Findings per entry. With ``cache`` and ``hashes`` ((server, kind, key) -> the content hash of
    the entry's accepted definition, which the caller has checked against that definition): an
    accepted definition without a pending proposal is linted once per hash and rules version."""
    servers = list(servers)
    out: dict[Key, list[LintFinding]] = {}
    words: dict[tuple[str, str], frozenset[str]] = {}
    tools_by_server = {srv.name: _lint_server(srv, cache, hashes or {}, out, words) for srv in servers}
    for (sname, tool), found in lint_servers(tools_by_server, words).items():
        out.setdefault((sname, "tool", tool), []).extend(found)
    _other_collisions(servers, out)
    return out


def _lint_server(
    srv: ServerEntry,
    cache: LintCache | None,
    hashes: dict[Key, str],
    out: dict[Key, list[LintFinding]],
    words: dict[tuple[str, str], frozenset[str]],
) -> dict[str, Any]:
    """Lints each entry ``srv`` shows into ``out`` (and, for a tool linted through the cache, the
    words naming tools into ``words``); returns the tools it shows, by name."""
    tools: dict[str, Any] = {}
    for e in srv.entries():
        d, old = shown(e)
        if d is None:
            continue
        h = hashes.get((srv.name, e.kind, e.key)) if e.pending is None else None
        found, mentioned = _lint_entry(e, d, old, cache, h)
        if found:
            out[(srv.name, e.kind, e.key)] = found
        if e.kind == "tool":
            tools[e.key] = d
            if mentioned is not None:
                words[(srv.name, e.key)] = mentioned
    return tools


def _lint_entry(
    e: Entry, d: Any, old: Any, cache: LintCache | None, h: str | None
) -> tuple[list[LintFinding], frozenset[str] | None]:
    """(the findings for entry ``e`` showing ``d``, the words naming tools when ``d`` was linted
    through the cache): an accepted definition (of content hash ``h``) through the cache when
    there is one, else ``d`` linted against ``old``."""
    if cache is not None and h:
        found, mentioned = _cached(cache, e.kind, h, d)
    else:
        own: frozenset[str] | None = frozenset() if e.pending is not None else None  # a pending change: what it adds
        found, mentioned = lint_definition(e.kind, d, old=old, name=e.key, own=own), None
    return found + _new_builtin_name(e), mentioned  # a new list: the cache's or lint's own stays as it is


def _new_builtin_name(e: Entry) -> list[LintFinding]:
    """A tool about to be accepted, named like a host's own (``read_file``, ``Bash`` …)."""
    if e.kind != "tool" or e.pending is None or e.pending.change != "new":
        return []
    shadow = builtin_shadowing(e.key)
    return [shadow] if shadow is not None else []


def _cached(cache: LintCache, kind: str, h: str, d: Any) -> tuple[list[LintFinding], frozenset[str]]:
    """(the findings, the words naming tools) of the accepted definition ``d`` of content hash ``h``:
    from the cache, else linted and stored. One walk of its strings serves both; a definition
    where no family finds anything skips the path walk (the name and parameter checks still run)."""
    hit = cache.get(kind, h)
    if hit is not None:
        return hit
    strings = texts(d)
    if quiet(strings):
        found = [
            *credential_findings(kind, d),
            *context_findings(kind, d),
            *(pattern_name(d) + contradiction_findings(d) if kind == "tool" else []),
        ]
    else:
        found = lint_definition(kind, d)
    hit = (found, mentions(strings) if kind == "tool" else frozenset())
    cache.put(kind, h, *hit)
    return hit


def _other_collisions(servers: list[ServerEntry], out: dict[Key, list[LintFinding]]) -> None:
    """``name-collision`` for the prompts of a server (by name, as a host lists them) and its
    resources and templates (by the ``name`` they show; the lock keys them by URI), as for tools."""
    for what, kinds in (("prompt", ("prompt",)), ("resource", ("resource", "resource-template"))):
        by_name = {srv.name: _listed_names(srv, kinds) for srv in servers}
        for (sname, name), found in colliding_names(by_name, what).items():
            for kind, key in by_name[sname][name]:
                out.setdefault((sname, kind, key), []).extend(found)


def _listed_names(srv: ServerEntry, kinds: tuple[str, ...]) -> dict[str, list[tuple[str, str]]]:
    """The name a host lists each entry of ``kinds`` by -> the (kind, key) of the entries so named."""
    names: dict[str, list[tuple[str, str]]] = {}
    for e in srv.entries():
        name = _listed_name(e) if e.kind in kinds else None
        if name is not None:
            names.setdefault(name, []).append((e.kind, e.key))
    return names


def _listed_name(e: Entry) -> str | None:
    """The name a host lists ``e`` by: a prompt's key, a resource's or template's ``name``; None
    when ``e`` shows no definition or no such name."""
    d, _ = shown(e)
    if d is None:
        return None
    name = e.key if e.kind == "prompt" else (d.get("name") if isinstance(d, dict) else None)
    return name if isinstance(name, str) else None
