"""The lock binding at run time (docs/guard.md).

- :mod:`mcplock.guard.relay`: ``mcplock run``, a stdio MCP server between host and upstream
  (the session's life; what the host asks is :mod:`~mcplock.guard.handlers`, the way to the
  upstream and back :mod:`~mcplock.guard.relaying`).
- :mod:`mcplock.guard.session`: a guarded client (``mcplock call``, :func:`mcplock.connect`).
- :mod:`mcplock.guard.upstream`: the long-lived upstream session over the probe's transports.
- :mod:`mcplock.guard.view`: what a host may see, decided by :mod:`mcplock.policy`.
- :mod:`mcplock.guard.hostio`, :mod:`~mcplock.guard.calls` (with :mod:`~mcplock.guard.fastcheck`),
  :mod:`~mcplock.guard.evidence`: host framing, call checks, drift evidence.
- :mod:`mcplock.guard.argv`: the guard's command line (its fast start; a host entry that runs it).

Asyncio only; the MCP SDK is never imported on this path (OAuth's HTTP client aside).
"""

from __future__ import annotations

from collections.abc import Callable


def run_guard(lockfile: str, name: str, *, timeout: float = 30.0, request_timeout: float | None = 120.0,
              strict: bool = False, client_name: str | None = None, client_version: str | None = None,
              verbose: bool = False, say: Callable[[str], None] = lambda _: None) -> int:
    """Serve the locked server ``name`` to the host on stdin/stdout; the exit code."""
    import asyncio

    from mcplock.core import trust
    from mcplock.core.probing import probe_options
    from mcplock.core.specs import lock_dir, locked_specs
    from mcplock.guard.relay import Guard
    from mcplock.guard.session import locked_server
    from mcplock.lock.read import load
    from mcplock.packages import prepare
    from mcplock.probe import _stdio

    lock = load(lockfile)
    srv = locked_server(lock, name, lockfile)
    opts = probe_options(lockfile=lockfile, timeout=timeout, client_name=client_name, client_version=client_version,
                         verbose=verbose)
    spec = locked_specs([srv], lock_dir(lockfile), use_stored_client=not client_name)[0]
    # the host cannot be asked (stdin is its pipe): a lock entry this machine has not trusted
    # in this project is refused, naming `mcplock trust NAME` (in CI the lock is the reviewed one)
    trust.gate([spec], lock_dir(lockfile), how=trust.trust_command(lockfile), reviewed={trust.launch_hash(spec)})
    spec = prepare(spec, opts.environ)  # the verified pinned artefact (docs/pins.md), or refused before it starts
    guard = Guard(srv, spec, opts, lockfile=lockfile, strict=strict, request_timeout=request_timeout, say=say)

    async def main() -> int:
        asyncio.get_running_loop().set_exception_handler(lambda loop, context: None)
        return await guard.run()

    try:
        return asyncio.run(main())
    finally:
        _stdio.kill_all_live()
