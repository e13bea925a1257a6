"""The guard's long-lived session with the upstream server (no MCP SDK).

It reaches the server through the probe's own transports (stdio, Streamable HTTP, legacy
SSE) with the spec, ``${VAR}`` expansion, client identity and HTTP client (OAuth) that
``mcplock diff`` uses, so the probe's bounds, process-group kill, launch rules and error
translation hold here too. The transports run in "relay" mode: server requests and
notifications go to ``on_message`` instead of the probe's canned answers, and
``on_lost`` hears when the connection ends.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from mcplock.errors import McplockError, ProbeError

if TYPE_CHECKING:
    from mcplock.probe import ProbeOptions
    from mcplock.snapshot import Snapshot
    from mcplock.spec import ServerSpec

OnMessage = Callable[[dict[str, Any]], None]
OnLost = Callable[[ProbeError], None]

# kind -> the arguments of the probe session's paginated list for it
LISTS = ("tools", "prompts", "templates")


class Upstream:
    """One connection to one server: :meth:`open` (initialize + every list), then requests."""

    def __init__(self, spec: ServerSpec, opts: ProbeOptions, *, on_message: OnMessage | None = None,
                 on_lost: OnLost | None = None, started: Any = None) -> None:
        from mcplock.probe._common import secret_values

        self.spec = spec
        self.opts = opts
        self.environ = os.environ if opts.environ is None else opts.environ
        self.secrets = secret_values(spec, self.environ)
        self.on_message = on_message
        self.on_lost = on_lost
        self.transport: Any = None
        self.snapshot: Snapshot | None = None
        self.hints: dict[str, dict[str, Any]] = {}  # list kind -> the caching fields of its last re-list
        self.started = started  # a stdio server started early (core.launch.start_early), adopted at open

    # --- errors ---------------------------------------------------------------------------

    def _clean(self, e: ProbeError) -> ProbeError:
        """``e`` with the server's stderr tail added and every secret value scrubbed."""
        from mcplock.probe._common import scrubbed, with_stderr

        t = self.transport
        tail = getattr(getattr(t, "stderr", None), "text", lambda: "")()
        if tail and "stderr (last lines)" not in e.message:
            e = e.evolve(message=with_stderr(e.message, tail, 20 if self.opts.verbose else 10))  # type: ignore[assignment]
        return scrubbed(e, self.secrets)

    def _timeout(self, seconds: float, waiting: str | None = None) -> ProbeError:
        from mcplock.probe._common import fmt_seconds

        t = self.transport
        if waiting is None and t is not None and hasattr(t, "timeout_error"):
            return self._clean(t.timeout_error(seconds))
        waiting = waiting or (t.state.step.removeprefix("the answer to ") if t is not None else "start")
        return self._clean(ProbeError(
            "timeout", f"server `{self.spec.name}`: no answer within {fmt_seconds(seconds)} s (waiting for {waiting})",
            hint="raise the timeout if the server is just slow"))

    def _lost(self, err: BaseException) -> None:
        if self.on_lost is not None:
            e = err if isinstance(err, ProbeError) else ProbeError("connect", str(err))
            self.on_lost(self._clean(e))

    # --- lifecycle ------------------------------------------------------------------------

    async def open(self, capabilities: dict[str, Any] | None = None, protocol_version: str | None = None) -> Snapshot:
        """Start the server, initialize (announcing ``capabilities``), read every page of
        every list. Raises ProbeError (scrubbed) within ``opts.timeout``."""
        from mcplock.probe import _session, _transport
        from mcplock.probe._common import IDLE

        opts = replace(self.opts, protocol_version=protocol_version) if protocol_version else self.opts
        try:
            self.transport = _transport(self.spec, opts, self.environ)
            self.transport.on_message = self.on_message
            if self.started is not None:
                self.transport.started, self.started = self.started, None
            async with asyncio.timeout(opts.timeout):
                await self.transport.start()
                self.snapshot = await _session.run(self.transport, self.spec, opts, capabilities)
        except TimeoutError:
            raise self._timeout(opts.timeout) from None
        except ProbeError as e:
            raise self._clean(e) from None
        self.transport.on_failure = self._lost
        self.transport.state.step = IDLE  # not the probe's "done", in messages from now on
        return self.snapshot

    async def list_again(self, kind: str) -> list[dict[str, Any]]:
        """Every page of one list again (``tools``, ``prompts``, ``templates``), e.g. after
        ``list_changed``. Raises ProbeError (scrubbed)."""
        from mcplock.probe import _session

        try:
            async with asyncio.timeout(self.opts.timeout):
                hints: dict[str, Any] = {}  # its caching fields (a modern server's ttlMs)
                self.hints[kind] = hints
                items = await _session._list_all(self.transport, self.opts, *_session._LISTS[kind][1:], hints)
                if kind == "tools":  # the Mcp-Param-* headers of a call follow the tools as listed now
                    self.transport.tools = {t["name"]: t for t in items}
                return items
        except TimeoutError:
            raise self._timeout(self.opts.timeout, f"{_session._LISTS[kind][1]}") from None
        except ProbeError as e:
            raise self._clean(e) from None

    async def request(self, method: str, params: Any, *, timeout: float | None = None,
                      on_id: Callable[[int], None] | None = None) -> dict[str, Any]:
        """Send a request; the response object (``result`` or ``error``) as the server sent it.

        Raises ProbeError (scrubbed) when the server is gone, times out or answers nonsense.
        """
        try:
            async with asyncio.timeout(timeout):
                return await self.transport.request(method, params, on_id=on_id)  # type: ignore[no-any-return]
        except TimeoutError:
            raise self._timeout(timeout or 0, method) from None
        except ProbeError as e:
            raise self._clean(e) from None
        except McplockError as e:  # pragma: no cover - transports raise ProbeError
            raise self._clean(ProbeError("protocol", e.message)) from None

    def request_now(self, method: str, params: Any) -> tuple[int, asyncio.Future[Any]] | None:
        """Write a request at once, without a task (stdio, while its pipe takes it without
        waiting): its id and the future of the raw answer, which :meth:`answer` reads. None:
        use :meth:`request`."""
        now = getattr(self.transport, "request_now", None)
        return now(method, params) if now is not None else None

    def answer(self, fut: asyncio.Future[Any]) -> dict[str, Any]:
        """The response a finished :meth:`request_now` future holds; ProbeError (scrubbed) as
        :meth:`request` raises it."""
        e = fut.exception()
        if e is None:
            return fut.result()  # type: ignore[no-any-return]
        if isinstance(e, ProbeError):
            raise self._clean(e) from None
        raise self._clean(ProbeError("protocol", e.message if isinstance(e, McplockError) else str(e))) from None

    def timed_out(self, seconds: float, method: str) -> ProbeError:
        """The error of a request :meth:`request_now` sent that got no answer within ``seconds``."""
        return self._timeout(seconds, method)

    def send_now(self, msg: dict[str, Any]) -> bool:
        """Write a notification or a reply at once when the transport can (see :meth:`request_now`)."""
        now = getattr(self.transport, "write_now", None)
        return bool(now(msg)) if now is not None else False

    async def send(self, msg: dict[str, Any]) -> None:
        """Send a notification or a reply to a server request. Raises ProbeError (scrubbed)."""
        try:
            await self.transport.send_message(msg)
        except ProbeError as e:
            raise self._clean(e) from None

    async def close(self) -> None:
        t, self.transport = self.transport, None
        if t is not None:
            t.on_failure = None
            await t.close()
