"""Comparing live servers with the lock: each server, then across servers; the exit code."""

from __future__ import annotations

from typing import Any

from mcplock.core.probing import result_of, unpinnable
from mcplock.errors import HashError, ProbeError
from mcplock.lock.model import Lock, ServerEntry


def diff_servers(
    lock: Lock,
    selected: list[ServerEntry],
    results: dict[str, Any],
    fail_on: str | None = None,
    cloaked: dict[str, list[Any]] | None = None,
) -> tuple[list[Any], int]:
    """The ServerDiffs of ``selected`` (in order; an unreachable server is a diff too),
    with the cross-server findings, and the exit code they mean (0 clean, 1 drift, 3 unreachable;
    with ``fail_on`` only changes of that severity or worse count as drift).

    A server whose answer cannot be hashed fails alone (unreachable, its error naming the item);
    the others are still compared."""
    from mcplock.lint import compare, cross_server

    diffs: list[Any] = []
    results = dict(results)
    for srv in selected:
        r = result_of(results, srv.name)
        if not isinstance(r, ProbeError):
            try:
                d = compare.compare(srv, r)
                if cloaked is not None:  # diff --cloak: what each host's identity saw against this answer
                    d.cloaked = compare.cloaking(srv, r, cloaked.get(srv.name, []))
                diffs.append(d)
                continue
            except HashError as e:
                r = results[srv.name] = unpinnable(e)  # its accepted tools stand in for the cross-server view
        diffs.append(compare.unreachable(srv, r))
    cross_server.cross_server(
        diffs, cross_server.tools_in_view(lock, results), cross_server.prompts_in_view(lock, results)
    )
    return diffs, compare.exit_code(diffs, fail_on)


def probe_cloaked(
    lockfile: str, selected: list[ServerEntry], results: dict[str, Any], opts: Any, *, use_stored_client: bool = True
) -> dict[str, list[Any]]:
    """``diff --cloak``: each server that answered probed again as each well-known host and once
    more in one session (mcplock.probe.cloak), all at once; server name -> [(identity, answer)].
    The servers ran a moment ago: their trust was checked then."""
    from mcplock.core.probing import prepare_packages
    from mcplock.core.specs import lock_dir, locked_specs
    from mcplock.model.snapshot import Snapshot
    from mcplock.probe.cloak import probe_as_hosts

    reached = [s for s in selected if isinstance(results.get(s.name), Snapshot)]
    specs, _failed = prepare_packages(
        locked_specs(reached, lock_dir(lockfile), use_stored_client=use_stored_client), opts.environ
    )
    return probe_as_hosts(specs, opts) if specs else {}
