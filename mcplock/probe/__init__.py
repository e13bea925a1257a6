"""Probing: the only code that talks to MCP servers.

It speaks JSON-RPC itself over stdio, Streamable HTTP and legacy HTTP+SSE (no MCP SDK),
keeps every definition as the raw JSON the server sent, and bounds everything: a whole-probe
timeout, page / item / message-size caps, a repeated-cursor guard. stdio servers run in their
own process group and the whole group is killed at the end, whatever happened.

Public: ``transport`` (the :class:`~mcplock.probe.transport.Connection` Protocol every
transport implements, and :func:`~mcplock.probe.transport.transport_for`), ``session`` (the
opening + the paginated lists over a Connection), ``launch`` (a stdio server's environment and
early start), ``era``, ``errors`` (HTTP failures → ProbeError; a leaf), ``http`` (the plain
HTTP client). Outside ``probe/`` no ``_private`` module is imported (tests/test_architecture.py).
The transports ``_stdio``, ``streamable_http``, ``sse`` are built by ``transport_for``;
``_open``, ``_lists``, ``_reads``, ``_pipes``, ``_common`` are reached through the public ones;
``options`` (:class:`ProbeOptions`, re-exported here) is the leaf every transport reads.
The probe never imports :mod:`mcplock.auth`: an OAuth client comes in through
``ProbeOptions.http_client`` (see :func:`mcplock.auth.http_client`).

    snap = await probe(spec, ProbeOptions())                 # raises ProbeError
    results = probe_many(specs, ProbeOptions(), on_event)    # name -> Snapshot | ProbeError
"""

from __future__ import annotations

import atexit
import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from mcplock.errors import ProbeError
from mcplock.lock.spec import ServerSpec
from mcplock.model.snapshot import Snapshot
from mcplock.probe.options import HttpClientFactory, ProbeOptions

if TYPE_CHECKING:
    from mcplock.probe.transport import Connection

__all__ = ["Connection", "HttpClientFactory", "ProbeError", "ProbeOptions", "kill_all_live", "probe", "probe_many"]


async def probe(spec: ServerSpec, opts: ProbeOptions | None = None) -> Snapshot:
    """Connect to one server, list everything it offers, disconnect. Raises ProbeError."""
    import asyncio

    from mcplock.probe import session
    from mcplock.probe._common import scrubbed, secret_values
    from mcplock.probe.transport import timed_out, transport_for

    opts = opts or ProbeOptions()
    environ = os.environ if opts.environ is None else opts.environ
    secrets = secret_values(spec, environ)
    conn: Connection | None = None
    try:
        try:
            conn = transport_for(spec, opts, environ)
            async with asyncio.timeout(opts.timeout):
                await conn.start()
                snap = await session.run(conn, spec, opts)
        except TimeoutError:
            raise timed_out(
                conn, spec, opts.timeout, hint="if the server is just slow, give it longer with --timeout SECONDS"
            ) from None
        except ProbeError as e:
            err = _explained(e, conn, opts)
            if err is not e:
                raise err from None
            raise
        finally:
            if conn is not None:
                await conn.close()
    except ProbeError as e:
        err = scrubbed(e, secrets)
        if conn is not None:
            err.stderr_tail = conn.stderr_tail()
            err.skipped_lines = list(conn.state.skipped_lines)
        if err is e:
            raise
        raise err from None
    snap.skipped_lines = list(conn.state.skipped_lines)
    snap.stderr_tail = conn.stderr_tail()
    return snap


def _explained(e: ProbeError, conn: Connection | None, opts: ProbeOptions) -> ProbeError:
    """``e`` as the person reads it (:func:`mcplock.probe.transport.explained`); with ``--verbose``
    the server's stdout lines that were not JSON-RPC too (but for a garbage error, which says so)."""
    from mcplock.probe.transport import explained
    from mcplock.text.untrusted import sanitize

    err = explained(e, conn, opts.verbose)
    skipped = conn.state.skipped_lines if conn is not None else []
    if opts.verbose and skipped and e.kind != "garbage":
        err = err.evolve(
            message=err.message
            + "\nstdout lines that were not JSON-RPC (skipped):\n"
            + "\n".join("  | " + sanitize(line, 200) for line in skipped[:20])
        )
    return err


def probe_many(
    specs: list[ServerSpec],
    opts: ProbeOptions | None = None,
    on_event: Callable[[str, str], None] | None = None,
) -> dict[str, Snapshot | ProbeError]:
    """Probe servers concurrently (at most ``opts.concurrency`` at once).

    Returns ``{name: Snapshot | ProbeError}`` in the order of ``specs``; one server failing
    never spoils the others. ``on_event(name, "start" | "done" | "failed")`` reports progress.
    On KeyboardInterrupt every child process is killed before the interrupt propagates.
    """
    import asyncio

    opts = opts or ProbeOptions()

    async def main() -> dict[str, Snapshot | ProbeError]:
        # asyncio's default handler prints "exception was never retrieved" with the raw
        # error text, which can hold a server's unscrubbed stderr: never let it print.
        asyncio.get_running_loop().set_exception_handler(lambda loop, context: None)
        sem = asyncio.Semaphore(max(1, opts.concurrency))
        results: dict[str, Snapshot | ProbeError] = {}

        async def one(spec: ServerSpec) -> None:
            async with sem:
                if on_event:
                    on_event(spec.name, "start")
                try:
                    results[spec.name] = await probe(spec, opts)
                except ProbeError as e:
                    results[spec.name] = e
                except Exception as e:  # a bug must not spoil the other servers
                    results[spec.name] = ProbeError(
                        "internal", f"server `{spec.name}`: mcplock failed while probing: {type(e).__name__}: {e}"
                    )
                if on_event:
                    on_event(spec.name, "done" if isinstance(results[spec.name], Snapshot) else "failed")

        await asyncio.gather(*(one(s) for s in specs))
        return {s.name: results[s.name] for s in specs if s.name in results}

    try:
        return asyncio.run(main())
    finally:
        kill_all_live()


def kill_all_live() -> None:
    """Kill every stdio server's process group still alive (a cleanup cut short: Ctrl-C, a
    broken lock); nothing to do, and nothing imported, when no stdio server ran."""
    import sys

    stdio = sys.modules.get("mcplock.probe._stdio")
    if stdio is not None:
        stdio.kill_all_live()


atexit.register(kill_all_live)


def __getattr__(name: str) -> object:
    # `from mcplock.probe import Connection` without importing the transports before they are used
    if name == "Connection":
        from mcplock.probe.transport import Connection

        return Connection
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
