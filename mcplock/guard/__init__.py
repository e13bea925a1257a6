"""The lock binding at run time (docs/guard.md).

- :mod:`mcplock.guard.guard`: ``mcplock run``, a stdio MCP server between host and upstream:
  the ``Guard`` (the session's life) and the parts it composes — what the host asks
  (:mod:`~mcplock.guard.host_requests`), the way to the upstream and back
  (:mod:`~mcplock.guard.upstream_side`), a 2026-07-28 host (:mod:`~mcplock.guard.modern`) — with
  the ids in flight in one :mod:`~mcplock.guard.ledger`.
- :mod:`mcplock.guard.session`: a guarded client (``mcplock call``, :func:`mcplock.connect`).
- :mod:`mcplock.guard.upstream`: the long-lived upstream session over the probe's transports.
- :mod:`mcplock.guard.view`: what a host may see, decided by :mod:`mcplock.trust.decide`.
- :mod:`mcplock.guard.hostio`, :mod:`~mcplock.guard.calls` (with :mod:`~mcplock.guard.fastcheck`),
  :mod:`~mcplock.guard.evidence`: host framing, call checks, drift evidence.
- :mod:`mcplock.model.guard_argv`: the guard's command line (its fast start; a host entry that runs it).

Asyncio only; the MCP SDK is never imported on this path (OAuth's HTTP client aside).
"""

from __future__ import annotations

import os
from collections.abc import Callable

from mcplock.core.running import locked_server

__all__ = ["locked_server", "run_guard"]


def run_guard(
    lockfile: str,
    name: str,
    *,
    timeout: float = 30.0,
    request_timeout: float | None = 120.0,
    strict: bool = False,
    client_name: str | None = None,
    client_version: str | None = None,
    verbose: bool = False,
    say: Callable[[str], None] = lambda _: None,
    policy: str | None = None,
) -> int:
    """Serve the locked server ``name`` to the host on stdin/stdout; the exit code.

    Nothing that imports asyncio comes before the server may run: once the lock, the trust
    record and the pin allow it, a stdio server is started at once and its start-up overlaps
    the rest of mcplock's (docs/performance.md, "The guard's start")."""
    from mcplock.core.running import serving
    from mcplock.errors import McplockError
    from mcplock.probe.launch import start_early

    try:
        ready = serving(
            lockfile,
            name,
            timeout=timeout,
            client_name=client_name,
            client_version=client_version,
            verbose=verbose,
            policy=policy,
        )
    except McplockError as e:  # refused before anything ran: say so on stderr, and to the host itself
        from mcplock.guard import refusal

        say(f"error: {e.message}" + (f"\nhint: {e.hint}" if e.hint else ""))
        refusal.answer(name, e.message, e.hint, e.code)
        return e.exit_code
    srv, spec, opts, org = ready.server, ready.spec, ready.opts, ready.org
    started = start_early(spec, opts.environ if opts.environ is not None else os.environ)
    try:
        from mcplock.guard.discover import answer_early

        early = answer_early(srv)  # a modern host connected: before asyncio and the guard are imported
        import asyncio

        from mcplock.guard.guard import Guard

        guard = Guard(
            srv,
            spec,
            opts,
            lockfile=lockfile,
            strict=strict,
            request_timeout=request_timeout,
            say=say,
            started=started,
            org=org,
            early=early,
        )

        async def main() -> int:
            asyncio.get_running_loop().set_exception_handler(lambda loop, context: None)
            return await guard.run()

        with asyncio.Runner() as runner:
            try:
                return runner.run(main())
            except KeyboardInterrupt:  # SIGTERM/SIGHUP too (errors.Terminated); the loop runs once more to clean up:
                guard.io.abandon()  # a host that stopped reading must not block that (docs/failing-safe.md, 8)
                from mcplock.probe import kill_all_live

                kill_all_live()  # and the server stops now, not after the clean-up
                raise
    finally:
        from mcplock.probe import kill_all_live
        from mcplock.probe.launch import stop_unadopted

        kill_all_live()
        stop_unadopted(started)
