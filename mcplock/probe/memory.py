"""An in-memory :class:`~mcplock.probe.transport.Connection`: a server that is a Python function.

As httpx ships ``MockTransport``, mcplock ships :class:`MemoryConnection` for code that holds a
Connection — :func:`mcplock.probe.session.run`, the guard's upstream — to be exercised in-process,
without a child process or a socket: fast tests of the logic, while the process tests keep the
wiring honest. The handler sees every message sent to the server, as the wire would carry it
(the modern envelope added); for a request it returns the response's ``result`` or ``error``
fields (or the whole response), an awaitable of them (a slow server), or None (a server that never
answers). What the server sends on its own goes in through :meth:`MemoryConnection.push`; the
connection's end through :meth:`MemoryConnection.fail`.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from mcplock.errors import ProbeError
from mcplock.probe._common import Defaults, OnMessage, State
from mcplock.probe.era import with_envelope

Response = dict[str, Any]
Handler = Callable[[dict[str, Any]], "Response | Awaitable[Response | None] | None"]


class MemoryConnection(Defaults):
    """A :class:`~mcplock.probe.transport.Connection` to ``handler``; see the module docstring.

    ``immediate``: requests may be written without a task (:meth:`request_now`), as stdio does
    while its pipe takes them; False: every request through :meth:`request`, as over HTTP.
    ``shares_one_channel``: answers come on one stream (stdio, SSE), which changes how a probe
    opens (``server/discover`` raced by ``initialize``)."""

    def __init__(self, handler: Handler, *, immediate: bool = True, shares_one_channel: bool = False) -> None:
        self.handler = handler
        self.immediate = immediate
        self.shares_one_channel = shares_one_channel
        self.state = State()
        self.tools: dict[str, Any] = {}
        self.envelope: dict[str, Any] | None = None
        self.on_message: OnMessage | None = None
        self.on_failure: Callable[[BaseException], None] | None = None
        self.protocol_version: str | None = None
        self.sent: list[dict[str, Any]] = []  # every message the server got, in order
        self.started = self.closed = False
        self._next_id = 0
        self._pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._failure: BaseException | None = None

    # --- the Connection protocol ----------------------------------------------------------

    async def start(self) -> None:
        if self._failure is not None:
            raise self._failure
        self.started = True

    async def request(
        self, method: str, params: dict[str, Any] | None, on_id: Callable[[int], None] | None = None
    ) -> dict[str, Any]:
        rid, fut = self._send_request(method, params)
        if on_id is not None:
            on_id(rid)
        try:
            return await fut
        finally:
            self._pending.pop(rid, None)

    def request_now(
        self,
        method: str,
        params: dict[str, Any] | None,
        on_done: Callable[[asyncio.Future[Any]], None] | None = None,
    ) -> tuple[int, asyncio.Future[Any]] | None:
        if not self.immediate:
            return None
        rid, fut = self._send_request(method, params)
        fut.add_done_callback(lambda _f: self._pending.pop(rid, None))
        if on_done is not None:  # a done callback: the handler may have answered already
            fut.add_done_callback(on_done)
        return rid, fut

    async def notify(self, method: str, params: dict[str, Any] | None) -> None:
        msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        await self.send_message(msg)

    async def send_message(self, msg: dict[str, Any]) -> None:
        if not self.write_now(msg):  # pragma: no cover - write_now always takes it
            raise ProbeError("connect", "the in-memory server is gone")

    def write_now(self, msg: dict[str, Any]) -> bool:
        if self._failure is not None:
            raise self._failure
        self.sent.append(msg)
        self._answer(msg, None)
        return True

    def set_protocol_version(self, version: str) -> None:
        self.protocol_version = version

    async def close(self) -> None:
        self.closed = True
        for task in list(self._tasks):
            task.cancel()
        self._end(ProbeError("connect", "the connection is closed"), tell=False)

    # --- the server's side ----------------------------------------------------------------

    def push(self, msg: dict[str, Any]) -> None:
        """The server sends ``msg`` on its own (a request or a notification); an answer to a
        pending request resolves it, anything else reaches ``on_message``."""
        rid = msg.get("id")
        fut = self._pending.get(rid) if "method" not in msg and isinstance(rid, int) else None
        if fut is not None and not fut.done():
            fut.set_result(msg)
        elif self.on_message is not None:
            self.on_message(msg)

    def fail(self, err: BaseException | None = None) -> None:
        """The connection ends (the server exited): pending requests fail, ``on_failure`` hears it."""
        self._end(err or ProbeError("connect", "the server closed the connection"), tell=True)

    # --- inside ---------------------------------------------------------------------------

    def _send_request(self, method: str, params: dict[str, Any] | None) -> tuple[int, asyncio.Future[dict[str, Any]]]:
        if self._failure is not None:
            raise self._failure
        self._next_id += 1
        rid = self._next_id
        if self.envelope is not None:
            params = with_envelope(params, self.envelope)
        msg: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            msg["params"] = params
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[rid] = fut
        self.sent.append(msg)
        self._answer(msg, fut)
        return rid, fut

    def _answer(self, msg: dict[str, Any], fut: asyncio.Future[dict[str, Any]] | None) -> None:
        out = self.handler(msg)
        if inspect.isawaitable(out):
            task = asyncio.ensure_future(self._later(out, msg, fut))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        elif fut is not None:
            self._resolve(msg, fut, out)

    async def _later(
        self, out: Awaitable[Response | None], msg: dict[str, Any], fut: asyncio.Future[dict[str, Any]] | None
    ) -> None:
        got = await out
        if fut is not None:
            self._resolve(msg, fut, got)

    @staticmethod
    def _resolve(msg: dict[str, Any], fut: asyncio.Future[dict[str, Any]], out: Response | None) -> None:
        if out is None or fut.done():
            return  # never answered (or cancelled meanwhile)
        fut.set_result({"jsonrpc": "2.0", "id": msg["id"], **out})

    def _end(self, err: BaseException, *, tell: bool) -> None:
        first = self._failure is None
        if first:
            self._failure = err
        for fut in self._pending.values():
            if not fut.done():
                fut.set_exception(err)
                fut.exception()  # retrieved: asyncio never logs it
        if first and tell and self.on_failure is not None:
            self.on_failure(err)


if TYPE_CHECKING:
    from mcplock.probe.transport import Connection

    def _is_a_connection(c: MemoryConnection) -> Connection:  # mypy checks the protocol here
        return c
