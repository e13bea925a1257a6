"""The lint applied to what a lock (or a server about to be added) shows a person.

``list`` and ``add`` use this so a poisoned server is flagged before anyone accepts it:
each entry is judged on the definition it shows — the pending proposal when there is
one (against the accepted definition for a change), else the accepted one — and tools
are checked across servers for shadowing and cross-server references.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from mcplock.lint import LintFinding, lint_definition, lint_servers
from mcplock.lock.model import Entry, ServerEntry

Key = tuple[str, str, str]  # (server, kind, key)


def shown(e: Entry) -> tuple[Any, Any]:
    """(definition a person is shown, the accepted one it changes or None)."""
    if e.pending is not None and e.pending.definition is not None:
        return e.pending.definition, (e.definition if e.pending.change == "changed" else None)
    return e.definition, None


def lint_entries(servers: Iterable[ServerEntry]) -> dict[Key, list[LintFinding]]:
    servers = list(servers)
    out: dict[Key, list[LintFinding]] = {}
    tools_by_server: dict[str, dict[str, Any]] = {}
    for srv in servers:
        tools_by_server[srv.name] = {}
        for e in srv.entries():
            d, old = shown(e)
            if d is None:
                continue
            found = lint_definition(e.kind, d, old=old, name=e.key)
            if found:
                out[(srv.name, e.kind, e.key)] = found
            if e.kind == "tool":
                tools_by_server[srv.name][e.key] = d
    for (sname, tool), found in lint_servers(tools_by_server).items():
        out.setdefault((sname, "tool", tool), []).extend(found)
    return out

