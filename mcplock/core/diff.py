"""Comparing live servers with the lock: each server, then across servers; the exit code."""

from __future__ import annotations

from typing import Any

from mcplock.core.probing import result_of, unpinnable
from mcplock.errors import HashError, ProbeError
from mcplock.lock.model import Lock, ServerEntry


def diff_servers(lock: Lock, selected: list[ServerEntry], results: dict[str, Any],
                 fail_on: str | None = None) -> tuple[list[Any], int]:
    """The ServerDiffs of ``selected`` (in order; an unreachable server is a diff too),
    with the cross-server findings, and the exit code they mean (0 clean, 1 drift, 3 unreachable;
    with ``fail_on`` only changes of that severity or worse count as drift).

    A server whose answer cannot be hashed fails alone (unreachable, its error naming the item);
    the others are still compared."""
    from mcplock import compare

    diffs: list[Any] = []
    results = dict(results)
    for srv in selected:
        r = result_of(results, srv.name)
        if not isinstance(r, ProbeError):
            try:
                diffs.append(compare.compare(srv, r))
                continue
            except HashError as e:
                r = results[srv.name] = unpinnable(e)  # its accepted tools stand in for the cross-server view
        diffs.append(compare.unreachable(srv, r))
    compare.cross_server(diffs, compare.tools_in_view(lock, results), compare.prompts_in_view(lock, results))
    return diffs, compare.exit_code(diffs, fail_on)
