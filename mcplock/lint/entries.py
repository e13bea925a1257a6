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
    tools_by_server: dict[str, dict[str, Any]] = {}
    words: dict[tuple[str, str], frozenset[str]] = {}
    for srv in servers:
        tools = tools_by_server[srv.name] = {}
        for e in srv.entries():
            d, old = shown(e)
            if d is None:
                continue
            h = (hashes or {}).get((srv.name, e.kind, e.key)) if e.pending is None else None
            if cache is not None and h:
                found, mentioned = _cached(cache, e.kind, h, d)
                if e.kind == "tool":
                    words[(srv.name, e.key)] = mentioned
            else:
                found = lint_definition(e.kind, d, old=old, name=e.key)
            found = found + _new_builtin_name(e)  # a new list: the cache's or lint's own stays as it is
            if found:
                out[(srv.name, e.kind, e.key)] = found
            if e.kind == "tool":
                tools[e.key] = d
    for (sname, tool), found in lint_servers(tools_by_server, words).items():
        out.setdefault((sname, "tool", tool), []).extend(found)
    _other_collisions(servers, out)
    return out


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
    """The name a host lists each entry of ``kinds`` by -> the (kind, key) of the entries so named:
    a prompt's key, a resource's or template's ``name``."""
    names: dict[str, list[tuple[str, str]]] = {}
    for e in srv.entries():
        d, _ = shown(e)
        name = e.key if e.kind == "prompt" else (d.get("name") if isinstance(d, dict) else None)
        if e.kind in kinds and d is not None and isinstance(name, str):
            names.setdefault(name, []).append((e.kind, e.key))
    return names
