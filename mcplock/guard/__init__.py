"""The lock binding at run time (docs/guard.md).

- :mod:`mcplock.guard.relay`: ``mcplock run``, a stdio MCP server between host and upstream
  (the session's life; what the host asks is :mod:`~mcplock.guard.handlers`, the way to the
  upstream and back :mod:`~mcplock.guard.relaying`).
- :mod:`mcplock.guard.session`: a guarded client (``mcplock call``, :func:`mcplock.connect`).
- :mod:`mcplock.guard.upstream`: the long-lived upstream session over the probe's transports.
- :mod:`mcplock.guard.view`: what a host may see, decided by :mod:`mcplock.policy`.
- :mod:`mcplock.guard.hostio`, :mod:`~mcplock.guard.calls` (with :mod:`~mcplock.guard.fastcheck`),
  :mod:`~mcplock.guard.evidence`: host framing, call checks, drift evidence.
- :mod:`mcplock.guard_argv`: the guard's command line (its fast start; a host entry that runs it).

Asyncio only; the MCP SDK is never imported on this path (OAuth's HTTP client aside).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mcplock.lock.model import Lock, ServerEntry


def locked_server(lock: Lock, name: str, path: str) -> ServerEntry:
    """The server ``name`` of ``lock``, its stored hashes verified (a hand edit fails closed)."""
    from mcplock.core.check import integrity
    from mcplock.errors import LockfileError, UsageError
    from mcplock.lock.model import Lock

    srv = lock.servers.get(name)
    if srv is None:
        known = ", ".join(sorted(lock.servers)) or "none"
        raise UsageError(f"no server `{name}` in {path} (locked: {known})",
                         hint=f"add it with `mcplock add {name} …`, or see `mcplock list`")
    bad = [f for f in integrity(Lock({name: srv})) if f.server == name]
    if bad:
        raise LockfileError("; ".join(f.message for f in bad), path=path, hint=bad[0].hint, code="hash-mismatch")
    return srv


def run_guard(lockfile: str, name: str, *, timeout: float = 30.0, request_timeout: float | None = 120.0,
              strict: bool = False, client_name: str | None = None, client_version: str | None = None,
              verbose: bool = False, say: Callable[[str], None] = lambda _: None, policy: str | None = None) -> int:
    """Serve the locked server ``name`` to the host on stdin/stdout; the exit code.

    Nothing that imports asyncio comes before the server may run: once the lock, the trust
    record and the pin allow it, a stdio server is started at once and its start-up overlaps
    the rest of mcplock's (docs/performance.md, "The guard's start")."""
    from mcplock import orgpolicy
    from mcplock.core import trust
    from mcplock.core.probing import probe_options
    from mcplock.core.specs import lock_dir, locked_specs
    from mcplock.lock.one import load_one
    from mcplock.packages import prepare
    from mcplock.probe.launch import start_early

    org = orgpolicy.resolve(policy)  # a broken policy: an error before the server starts (docs/policy.md)
    lock = load_one(lockfile, name, trust.machine_secret())  # its part: a large lock is not read whole each time
    srv = locked_server(lock, name, lockfile)
    opts = probe_options(lockfile=lockfile, timeout=timeout, client_name=client_name, client_version=client_version,
                         verbose=verbose)
    spec = locked_specs([srv], lock_dir(lockfile), use_stored_client=not client_name)[0]
    # the host cannot be asked (stdin is its pipe): a lock entry this machine has not trusted
    # in this project is refused, naming `mcplock trust NAME` (in CI the lock is the reviewed one)
    trust.gate([spec], lock_dir(lockfile), how=trust.trust_command(lockfile), reviewed={trust.launch_hash(spec)})
    spec = prepare(spec, opts.environ)  # the verified pinned artefact (docs/pins.md), or refused before it starts
    started = start_early(spec, opts.environ if opts.environ is not None else os.environ)
    try:
        from mcplock.guard.discover import answer_early

        early = answer_early(srv)  # a modern host connected: before asyncio and the guard are imported
        import asyncio

        from mcplock.guard.relay import Guard

        guard = Guard(srv, spec, opts, lockfile=lockfile, strict=strict, request_timeout=request_timeout, say=say,
                      started=started, org=org, early=early)

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
