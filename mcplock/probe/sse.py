"""The legacy HTTP+SSE transport: a GET event stream that first names the POST endpoint
(same origin only), then carries the answers to the messages POSTed there."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin

import httpx2

from mcplock.errors import ProbeError
from mcplock.lock.spec import ServerSpec
from mcplock.probe._common import PendingRequests, State, answer_server_request, is_jsonrpc
from mcplock.probe._json import dumps
from mcplock.probe.errors import origin
from mcplock.probe.http import (
    CLOSE_TIMEOUT,
    client_for,
    content_type,
    errors_for,
    iter_sse,
    parse_message,
    relay_timeout,
    target,
)
from mcplock.text.untrusted import sanitize

if TYPE_CHECKING:
    from mcplock.probe.options import ProbeOptions


class LegacySseTransport(PendingRequests):
    def __init__(self, spec: ServerSpec, opts: ProbeOptions, environ: Any) -> None:
        self.spec = spec
        self.opts = opts
        self.state = State()
        self.errors = errors_for(spec, opts, self.state)
        self.url, self.headers = target(spec, environ)
        self.environ = environ
        self.client: httpx2.AsyncClient | None = None
        self.endpoint: str | None = None
        self._stream: Any = None
        self._reader: asyncio.Task[None] | None = None
        self._endpoint_fut: asyncio.Future[str] | None = None
        self._init_requests()

    async def start(self) -> None:
        self.client = client_for(self.spec, self.opts, self.environ)
        loop = asyncio.get_running_loop()
        self._endpoint_fut = loop.create_future()
        self.state.step = "the SSE stream to open"
        action = "opening the SSE stream"
        headers = dict(self.headers)
        headers["Accept"] = "text/event-stream"
        headers["Cache-Control"] = "no-cache"
        # a long-lived session's stream idles between messages: no read timeout (the guard bounds requests)
        timeout = relay_timeout(self.opts) if self.on_message is not None else httpx2.USE_CLIENT_DEFAULT
        stream = self.client.stream("GET", self.url, headers=headers, timeout=timeout)
        try:
            resp: httpx2.Response = await stream.__aenter__()
        except httpx2.HTTPError as e:
            raise self.errors.exception(e, action) from None
        self._stream = stream  # entered: close() exits it
        await self.errors.check(resp, action)
        ctype = content_type(resp)
        if ctype in ("text/html", "application/xhtml+xml"):
            raise self.errors.html(action)
        if ctype != "text/event-stream":
            raise ProbeError(
                "protocol",
                f"server `{self.spec.name}`: {self.spec.url} answered GET with "
                f"`{sanitize(ctype or 'no Content-Type', 80)}`, "
                "not an event stream: it is not a legacy SSE endpoint",
                hint="if it is a Streamable HTTP endpoint, use `--transport http`",
            )
        final_url = str(resp.url)
        self._reader = asyncio.create_task(self._read(resp))
        self.state.step = "the SSE `endpoint` event"
        endpoint = await self._endpoint_fut
        resolved = urljoin(final_url, endpoint.strip())
        if origin(resolved) != origin(final_url):
            raise ProbeError(
                "protocol",
                f"server `{self.spec.name}`: the SSE `endpoint` event points to another origin "
                f"({sanitize(origin(resolved), 100)}); mcplock does not send its headers there",
            )
        self.endpoint = resolved

    def set_protocol_version(self, version: str) -> None:
        pass

    def _fail(self, err: BaseException) -> None:
        if self._endpoint_fut is not None and not self._endpoint_fut.done():
            self._endpoint_fut.set_exception(err)
            self._endpoint_fut.exception()
        super()._fail(err)

    async def _read(self, resp: httpx2.Response) -> None:
        try:
            async for event, data in iter_sse(resp.aiter_bytes(), self.opts.max_response_bytes, self.errors.too_large):
                if event == "endpoint":
                    if self._endpoint_fut is not None and not self._endpoint_fut.done():
                        self._endpoint_fut.set_result(data.decode("utf-8", errors="replace"))
                    continue
                if event != "message" or not data.strip():
                    continue
                obj = parse_message(data, self.errors, f"an SSE event while waiting for {self.errors.waiting()}")
                for m in obj if isinstance(obj, list) else [obj]:
                    if not (isinstance(m, dict) and is_jsonrpc(m)):
                        continue
                    self._dispatch(m, lambda req: self._post_quiet(answer_server_request(req)))
            self._fail(
                ProbeError(
                    "connect",
                    f"server `{self.spec.name}`: the SSE stream closed "
                    f"while mcplock waited for {self.errors.waiting()}",
                    hint="the server ended the stream: it may have crashed; see its logs",
                )
            )
        except asyncio.CancelledError:
            raise
        except ProbeError as e:
            self._fail(e)
        except httpx2.HTTPError as e:
            self._fail(self.errors.exception(e, "reading the SSE stream"))
        except Exception as e:  # pragma: no cover - defensive
            self._fail(ProbeError("protocol", f"reading the SSE stream failed: {type(e).__name__}"))

    async def _post(self, msg: dict[str, Any], action: str) -> None:
        assert self.client is not None and self.endpoint is not None
        headers = dict(self.headers)
        headers["Content-Type"] = "application/json"
        try:
            body = dumps(msg).encode("utf-8")
            async with self.client.stream("POST", self.endpoint, content=body, headers=headers) as r:
                await self.errors.check(r, action)
        except httpx2.HTTPError as e:
            raise self.errors.exception(e, action) from None

    async def _post_quiet(self, msg: dict[str, Any]) -> None:
        with contextlib.suppress(Exception):
            await self._post(msg, "a reply")

    async def request(
        self, method: str, params: dict[str, Any] | None, on_id: Callable[[int], None] | None = None
    ) -> dict[str, Any]:
        rid, msg, fut = self._new_request(method, params)
        if on_id is not None:
            on_id(rid)
        try:
            await self._post(msg, self.errors.waiting())
            return await fut
        finally:
            self._finish(rid, method)

    async def notify(self, method: str, params: dict[str, Any] | None) -> None:
        if self._failure is not None:
            raise self._failure
        msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        await self._post(msg, f"the notification {method}")

    async def send_message(self, msg: dict[str, Any]) -> None:
        """Send one message as it is (a notification, or a reply to a server request)."""
        if self._failure is not None:
            raise self._failure
        await self._post(msg, "a message")

    async def close(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(BaseException):
                await self._reader
        if self._stream is not None:
            with contextlib.suppress(Exception):
                async with asyncio.timeout(CLOSE_TIMEOUT):
                    await self._stream.__aexit__(None, None, None)
            self._stream = None
        client, self.client = self.client, None
        if client is not None:
            with contextlib.suppress(Exception):
                await client.aclose()
