"""The public transport layer: one :class:`Connection` to one MCP server, whatever carries it.

:func:`mcplock.probe.probe` and the guard's upstream (:mod:`mcplock.guard.upstream`) hold the
same kind of connection — stdio (:mod:`~mcplock.probe._stdio`), Streamable HTTP
(:mod:`~mcplock.probe.streamable_http`), legacy HTTP+SSE (:mod:`~mcplock.probe.sse`) — and
speak MCP over it with :mod:`mcplock.probe.session`. A new transport (or a protocol era that
carries messages differently) is one more class that satisfies :class:`Connection` and one
branch in :func:`transport_for`; nothing above the probe changes.

A probe uses a connection briefly: ``start``, the opening and the lists, ``close``. A long-lived
session (the guard) sets ``on_message`` before ``start`` — server requests and notifications
then go there instead of the probe's harmless answers (:func:`answer_server_request`) — and
``on_failure`` once open, to hear when the connection ends.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from mcplock.errors import ProbeError
from mcplock.lock.spec import Transport
from mcplock.probe._common import IDLE, OnMessage, State, answer_server_request, scrubbed, secret_values, with_stderr
from mcplock.probe._common import fmt_seconds as _fmt_seconds
from mcplock.probe._json import BadConstant, dumps, loads
from mcplock.probe._pipes import READ_SIZE, Lines, LinesProtocol

if TYPE_CHECKING:
    import asyncio
    import subprocess

    from mcplock.lock.spec import ServerSpec
    from mcplock.probe.options import ProbeOptions

__all__ = [
    "IDLE",
    "READ_SIZE",
    "BadConstant",
    "Connection",
    "Lines",
    "LinesProtocol",
    "OnFailure",
    "OnMessage",
    "State",
    "answer_server_request",
    "dumps",
    "explained",
    "loads",
    "scrubbed",
    "secret_values",
    "timed_out",
    "transport_for",
]

OnFailure = Callable[[BaseException], None]


class Connection(Protocol):
    """What the probe's session and the guard's upstream use of a transport: all of it."""

    state: State  # what it waits for now (messages name it), skipped stdout lines
    tools: dict[str, Any]  # name -> definition as listed: a modern call's Mcp-Param-* headers (HTTP)
    envelope: dict[str, Any] | None  # the 2026-07-28 `_meta` fields of every request; None: legacy
    shares_one_channel: bool  # every answer on one stream (stdio, SSE): server/discover may go unanswered
    on_message: OnMessage | None  # a long-lived session's server requests and notifications
    on_failure: OnFailure | None  # hears the connection's end once (a long-lived session)

    async def start(self) -> None:
        """Launch or reach the server; ProbeError when it cannot be."""
        ...

    async def request(
        self, method: str, params: dict[str, Any] | None, on_id: Callable[[int], None] | None = None
    ) -> dict[str, Any]:
        """Send a request (``on_id`` hears its id at once); the JSON-RPC response object."""
        ...

    async def notify(self, method: str, params: dict[str, Any] | None) -> None: ...

    async def send_message(self, msg: dict[str, Any]) -> None:
        """Send one message as it is (a notification, a reply to a server request)."""
        ...

    def request_now(
        self,
        method: str,
        params: dict[str, Any] | None,
        on_done: Callable[[asyncio.Future[Any]], None] | None = None,
    ) -> tuple[int, asyncio.Future[Any]] | None:
        """Write a request at once, without a task: its id and the future of its answer, which
        ``on_done`` hears end once (stdio: in the read callback that brought the answer, no
        event-loop turn later); None when the transport cannot (then :meth:`request`)."""
        ...

    def write_now(self, msg: dict[str, Any]) -> bool:
        """Write a message at once when the transport can; False: use :meth:`send_message`."""
        ...

    def set_protocol_version(self, version: str) -> None: ...

    def stderr_tail(self) -> str:
        """The last lines the server wrote to stderr ("" when there is no such stream)."""
        ...

    def timeout_error(self, seconds: float) -> ProbeError | None:
        """This transport's own account of a whole-session timeout (stdio: a server that printed
        only other output); None: the generic one (:func:`timed_out`)."""
        ...

    async def close(self) -> None:
        """End the connection (a stdio server's whole process group dies); never raises."""
        ...


def _stdio(
    spec: ServerSpec, opts: ProbeOptions, environ: Mapping[str, str], started: subprocess.Popen[bytes] | None
) -> Connection:
    from mcplock.probe._stdio import StdioTransport

    return StdioTransport(spec, opts, environ, started=started)


def _http(
    spec: ServerSpec, opts: ProbeOptions, environ: Mapping[str, str], started: subprocess.Popen[bytes] | None
) -> Connection:
    from mcplock.probe.streamable_http import StreamableHttpTransport

    return StreamableHttpTransport(spec, opts, environ)


def _sse(
    spec: ServerSpec, opts: ProbeOptions, environ: Mapping[str, str], started: subprocess.Popen[bytes] | None
) -> Connection:
    from mcplock.probe.sse import LegacySseTransport

    return LegacySseTransport(spec, opts, environ)


# transport -> the Connection that carries it, imported only when a server of that transport is
# reached (mypy checks each against the Protocol here). A new transport: a member of
# mcplock.lock.spec.Transport and its row here.
CONNECTIONS: dict[
    Transport, Callable[[ServerSpec, ProbeOptions, Mapping[str, str], subprocess.Popen[bytes] | None], Connection]
] = {Transport.STDIO: _stdio, Transport.HTTP: _http, Transport.SSE: _sse}


def transport_for(
    spec: ServerSpec, opts: ProbeOptions, environ: Mapping[str, str], *, started: subprocess.Popen[bytes] | None = None
) -> Connection:
    """The connection ``spec`` names, not started; ``started``: a stdio server launched already
    from this spec (:func:`mcplock.probe.launch.start_early`), adopted by ``start``."""
    make = CONNECTIONS.get(spec.transport)
    if make is None:  # pragma: no cover - a spec's transport is a Transport member
        raise ProbeError("config", f"server `{spec.name}`: unknown transport `{spec.transport}`")
    return make(spec, opts, environ, started)


def explained(err: ProbeError, conn: Connection | None, verbose: bool) -> ProbeError:
    """``err`` with the server's stderr tail added, unless the message holds it already."""
    tail = conn.stderr_tail() if conn is not None else ""
    if tail and "stderr (last lines)" not in err.message:
        return err.evolve(message=with_stderr(err.message, tail, 20 if verbose else 10))
    return err


def timed_out(
    conn: Connection | None, spec: ServerSpec, seconds: float, *, hint: str, waiting: str | None = None
) -> ProbeError:
    """The error of no answer within ``seconds``: the transport's own account when it has one
    (and ``waiting`` is not given), else one naming what it waited for."""
    if waiting is None and conn is not None and (own := conn.timeout_error(seconds)) is not None:
        return own
    waiting = waiting or (conn.state.step.removeprefix("the answer to ") if conn is not None else "start")
    return ProbeError(
        "timeout",
        f"server `{spec.name}`: no answer within {_fmt_seconds(seconds)} s (waiting for {waiting})",
        hint=hint,
    )
