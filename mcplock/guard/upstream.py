"""The guard's long-lived session with the upstream server (no MCP SDK).

It reaches the server through a :class:`mcplock.probe.transport.Connection` (stdio, Streamable
HTTP, legacy SSE: the probe's own transports) and :mod:`mcplock.probe.session`, with the spec,
``${VAR}`` expansion, client identity and HTTP client (OAuth) that ``mcplock diff`` uses, so the
probe's bounds, process-group kill, launch rules and error translation hold here too. The
connection is long-lived: server requests and notifications go to ``on_message`` instead of the
probe's canned answers, and ``on_lost`` hears when the connection ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from mcplock.errors import McplockError, ProbeError
from mcplock.guard.modern_wire import FILTERS

if TYPE_CHECKING:
    import subprocess

    from mcplock.lock.spec import ServerSpec
    from mcplock.model.snapshot import Snapshot
    from mcplock.probe import ProbeOptions
    from mcplock.probe.transport import Connection, OnMessage

OnLost = Callable[[ProbeError], None]
LISTEN_PAUSE = 1.0  # seconds before the guard's subscription upstream is opened again after it ended

# kind -> the arguments of the probe session's paginated list for it
LISTS = ("tools", "prompts", "templates")


class Upstream:
    """One connection to one server: :meth:`open` (initialize + every list), then requests."""

    def __init__(
        self,
        spec: ServerSpec,
        opts: ProbeOptions,
        *,
        on_message: OnMessage | None = None,
        on_lost: OnLost | None = None,
        started: subprocess.Popen[bytes] | None = None,
        connection: Connection | None = None,
    ) -> None:
        from mcplock.probe.transport import secret_values

        self.spec = spec
        self.opts = opts
        self.environ = os.environ if opts.environ is None else opts.environ
        self.secrets = secret_values(spec, self.environ)
        self.on_message = on_message
        self.on_lost = on_lost
        self._conn: Connection | None = None
        self.snapshot: Snapshot | None = None
        self.hints: dict[str, dict[str, Any]] = {}  # list kind -> the caching fields of its last re-list
        self.started = started  # a stdio server started early (probe.launch.start_early), adopted at open
        self.connection = connection  # the Connection to open instead of the one the spec names (tests)

    @property
    def conn(self) -> Connection:
        """The open connection; ProbeError once it is closed."""
        if self._conn is None:
            raise ProbeError("connect", f"server `{self.spec.name}`: the connection is closed")
        return self._conn

    # --- errors ---------------------------------------------------------------------------

    def _clean(self, e: ProbeError) -> ProbeError:
        """``e`` with the server's stderr tail added and every secret value scrubbed."""
        from mcplock.probe.transport import explained, scrubbed

        return scrubbed(explained(e, self._conn, self.opts.verbose), self.secrets)

    def _timeout(self, seconds: float, waiting: str | None = None) -> ProbeError:
        from mcplock.probe.transport import timed_out

        return self._clean(
            timed_out(
                self._conn, self.spec, seconds, waiting=waiting, hint="raise the timeout if the server is just slow"
            )
        )

    def _lost(self, err: BaseException) -> None:
        if self.on_lost is not None:
            e = err if isinstance(err, ProbeError) else ProbeError("connect", str(err))
            self.on_lost(self._clean(e))

    # --- lifecycle ------------------------------------------------------------------------

    async def open(self, capabilities: dict[str, Any] | None = None, protocol_version: str | None = None) -> Snapshot:
        """Start the server, initialize (announcing ``capabilities``), read every page of
        every list. Raises ProbeError (scrubbed) within ``opts.timeout``."""
        from mcplock.probe import session
        from mcplock.probe.transport import IDLE, transport_for

        opts = replace(self.opts, protocol_version=protocol_version) if protocol_version else self.opts
        try:
            started, self.started = self.started, None
            given, self.connection = self.connection, None
            self._conn = conn = given or transport_for(self.spec, opts, self.environ, started=started)
            conn.on_message = self.on_message
            async with asyncio.timeout(opts.timeout):
                await conn.start()
                self.snapshot = await session.run(conn, self.spec, opts, capabilities)
        except TimeoutError:
            raise self._timeout(opts.timeout) from None
        except ProbeError as e:
            raise self._clean(e) from None
        conn.on_failure = self._lost
        conn.state.step = IDLE  # not the probe's "done", in messages from now on
        return self.snapshot

    async def list_again(self, kind: str) -> list[dict[str, Any]]:
        """Every page of one list again (``tools``, ``prompts``, ``templates``), e.g. after
        ``list_changed``. Raises ProbeError (scrubbed)."""
        from mcplock.probe import session

        try:
            async with asyncio.timeout(self.opts.timeout):
                hints: dict[str, Any] = {}  # its caching fields (a modern server's ttlMs)
                self.hints[kind] = hints
                items = await session.list_all(self.conn, self.opts, kind, hints)
                if kind == "tools":  # the Mcp-Param-* headers of a call follow the tools as listed now
                    self.conn.tools = {t["name"]: t for t in items}
                return items
        except TimeoutError:
            raise self._timeout(self.opts.timeout, session.LISTS[kind][0]) from None
        except ProbeError as e:
            raise self._clean(e) from None

    async def request(
        self, method: str, params: Any, *, timeout: float | None = None, on_id: Callable[[int], None] | None = None
    ) -> dict[str, Any]:
        """Send a request; the response object (``result`` or ``error``) as the server sent it.

        Raises ProbeError (scrubbed) when the server is gone, times out or answers nonsense.
        """
        try:
            async with asyncio.timeout(timeout):
                return await self.conn.request(method, params, on_id=on_id)
        except TimeoutError:
            raise self._timeout(timeout or 0, method) from None
        except ProbeError as e:
            raise self._clean(e) from None
        except McplockError as e:  # pragma: no cover - transports raise ProbeError
            raise self._clean(ProbeError("protocol", e.message)) from None

    def request_now(
        self, method: str, params: Any, on_done: Callable[[asyncio.Future[Any]], None]
    ) -> tuple[int, asyncio.Future[Any]] | None:
        """Write a request at once, without a task (stdio, while its pipe takes it without
        waiting): its id and the future of the raw answer, which :meth:`answer` reads and
        ``on_done`` hears end (stdio: in the read callback that brought the answer). None: use
        :meth:`request`."""
        return self.conn.request_now(method, params, on_done)

    def answer(self, fut: asyncio.Future[Any]) -> dict[str, Any]:
        """The response a finished :meth:`request_now` future holds; ProbeError (scrubbed) as
        :meth:`request` raises it."""
        e = fut.exception()
        if e is None:
            answer: dict[str, Any] = fut.result()  # the transport resolves it with the response object
            return answer
        if isinstance(e, ProbeError):
            raise self._clean(e) from None
        raise self._clean(ProbeError("protocol", e.message if isinstance(e, McplockError) else str(e))) from None

    def timed_out(self, seconds: float, method: str) -> ProbeError:
        """The error of a request :meth:`request_now` sent that got no answer within ``seconds``."""
        return self._timeout(seconds, method)

    def send_now(self, msg: dict[str, Any]) -> bool:
        """Write a notification or a reply at once when the transport can (see :meth:`request_now`)."""
        return self.conn.write_now(msg)

    async def send(self, msg: dict[str, Any]) -> None:
        """Send a notification or a reply to a server request. Raises ProbeError (scrubbed)."""
        try:
            await self.conn.send_message(msg)
        except ProbeError as e:
            raise self._clean(e) from None

    async def listen_for_changes(self, caps: dict[str, Any]) -> None:
        """Keep a ``subscriptions/listen`` open upstream for the lists it says can change; what
        it carries reaches ``on_message`` (:meth:`~mcplock.guard.upstream_side.UpstreamSide.from_upstream`) like any
        notification."""
        wanted = {
            f: True
            for kind, f in FILTERS.items()
            if isinstance(
                caps.get({"tool": "tools", "prompt": "prompts", "resource-template": "resources"}[kind]), dict
            )
            and caps[{"tool": "tools", "prompt": "prompts", "resource-template": "resources"}[kind]].get("listChanged")
        }
        if not wanted:
            return
        for _ in range(100):
            with contextlib.suppress(ProbeError):
                await self.request("subscriptions/listen", {"notifications": wanted}, timeout=None)
            await asyncio.sleep(LISTEN_PAUSE)

    async def close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.on_failure = None
            await conn.close()
