"""The Streamable HTTP transport: one POST per message, the answer as a JSON body or an SSE
stream; the session id and protocol version sent back as headers; DELETE at the end.

A long-lived session (the guard: ``on_message`` set) also listens on the standalone GET
stream, where the server sends what answers no request (``list_changed``, its own requests).

A stream that ends before the answer is resumed where the server made that possible (it gave
its events ids): a GET with ``Last-Event-ID`` after the ``retry`` delay it asked for, at most
``MAX_RESUMES`` times, all within the request's own timeout. The standalone stream, when it
ends, is opened again the same way: after the server's ``retry`` delay, from its last event id."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import httpx2

from mcplock.errors import ProbeError
from mcplock.lock.spec import ServerSpec
from mcplock.probe import era
from mcplock.probe._common import (
    IDLE,
    Defaults,
    OnMessage,
    State,
    answer_server_request,
    is_jsonrpc,
    is_response,
    is_server_request,
)
from mcplock.probe._json import dumps
from mcplock.probe.http import (
    CLOSE_TIMEOUT,
    SseCursor,
    client_for,
    content_type,
    errors_for,
    iter_sse,
    jsonrpc_error,
    matches,
    parse_message,
    relay_timeout,
    request_headers,
    target,
)
from mcplock.text.untrusted import sanitize

if TYPE_CHECKING:
    from mcplock.probe.options import ProbeOptions

LISTEN_PAUSE = 1.0  # seconds before the standalone stream is opened again after it ended
LISTEN_RETRIES = 5  # streams in a row that end without a message before the guard stops listening
MAX_RESUMES = 5
DEFAULT_RETRY_MS = 1000  # when the server named no retry delay
MAX_RETRY_MS = 30_000


class StreamableHttpTransport(Defaults):
    shares_one_channel = False  # every request has its own answer, at once

    def __init__(self, spec: ServerSpec, opts: ProbeOptions, environ: Any) -> None:
        self.spec = spec
        self.opts = opts
        self.state = State()
        self.errors = errors_for(spec, opts, self.state)
        self.errors.has_session = lambda: self.session_id is not None
        self.url, self.headers = target(spec, environ)
        self.environ = environ
        self.session_id: str | None = None
        self.protocol_version: str | None = None
        self.client: httpx2.AsyncClient | None = None
        self._next_id = 0
        # a long-lived session (the guard) relays server requests and notifications here
        self.on_message: OnMessage | None = None
        self.on_failure: Callable[[BaseException], None] | None = None
        self._listener: asyncio.Task[None] | None = None
        self._answered = asyncio.Event()  # the first standalone GET got its answer (or failed)
        self._lost_said = False
        self.envelope: dict[str, Any] | None = None  # the modern era's `_meta` fields (mcplock.probe.era)
        self.tools: dict[str, Any] = {}  # name -> definition, for a call's Mcp-Param-* headers

    async def start(self) -> None:
        self.client = client_for(self.spec, self.opts, self.environ)

    def set_protocol_version(self, version: str) -> None:
        self.protocol_version = version

    def _request_headers(self, msg: dict[str, Any] | None = None) -> dict[str, str]:
        return request_headers(self.headers, self.session_id, self.protocol_version, msg, self.tools)

    async def request(
        self, method: str, params: dict[str, Any] | None, on_id: Callable[[int], None] | None = None
    ) -> dict[str, Any]:
        assert self.client is not None
        self._next_id += 1
        rid = self._next_id
        if on_id is not None:
            on_id(rid)
        msg: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
        if self.envelope is not None:
            params = era.with_envelope(params, self.envelope)
        if params is not None:
            msg["params"] = params
        if self.on_message is not None:
            self.state.relaying(method)
        # once the session is open (the probe's steps done), a request is named by its method
        action = method if self.state.step == IDLE else self.errors.waiting()
        try:
            async with self.client.stream(
                "POST",
                self.url,
                content=dumps(msg).encode("utf-8"),
                headers=self._request_headers(msg),
                timeout=relay_timeout(self.opts) if self.on_message is not None else httpx2.USE_CLIENT_DEFAULT,
            ) as resp:
                if resp.status_code in (400, 404) and era.request_version(msg.get("params")) is not None:
                    modern_error = await self._modern_error(resp, action)
                    if modern_error is not None:
                        return modern_error
                await self._check(resp, action)
                if method == "initialize":
                    sid = resp.headers.get("mcp-session-id")
                    if sid:
                        self.session_id = sid
                return await self._read_answer(resp, rid, action)
        except httpx2.HTTPError as e:
            raise self._broken(self.errors.exception(e, action)) from None
        finally:
            if self.on_message is not None:
                self.state.relayed(method)

    async def _modern_error(self, resp: httpx2.Response, action: str) -> dict[str, Any] | None:
        """A modern request's 400 / 404 whose body is a JSON-RPC error (the spec's way to say
        "unsupported version", "header mismatch", "method not found"): that error, as the answer.
        Anything else: None, and the status is reported as any other (a legacy server)."""
        body = bytearray()
        async for chunk in resp.aiter_bytes():
            body += chunk
            if len(body) > 64 * 1024:
                break
        obj = jsonrpc_error(bytes(body))
        if obj is not None:
            return obj
        raise self.errors.status_error(resp, bytes(body), action)

    async def _check(self, resp: httpx2.Response, action: str) -> None:
        """``errors.check``; a 404 for our session id means the server forgot the session: the end."""
        try:
            await self.errors.check(resp, action)
        except ProbeError as e:
            if resp.status_code == 404 and self.session_id:
                self._end(e)
            raise

    def _broken(self, err: ProbeError) -> ProbeError:
        """``err`` (from an httpx2 exception); a connection refused or broken ends a long-lived session."""
        if err.kind == "connect":
            self._end(err)
        return err

    def _end(self, err: ProbeError) -> None:
        if self.on_failure is not None and not self._lost_said:
            self._lost_said = True
            self.on_failure(err)

    async def _read_answer(self, resp: httpx2.Response, rid: int, action: str) -> dict[str, Any]:
        if resp.status_code == 202:
            raise ProbeError("protocol", f"server `{self.spec.name}` accepted {action} (202) but sent no answer")
        ctype = content_type(resp)
        if ctype == "text/event-stream":
            cursor = SseCursor()
            found = await self._read_events(resp, rid, action, cursor)
            return found if found is not None else await self._resume(rid, action, cursor)
        if ctype == "application/json" or ctype.endswith("+json"):
            body = await self._read_body(resp)
            obj = parse_message(body, self.errors, f"the body answering {action}")
            msgs = obj if isinstance(obj, list) else [obj]
            for m in msgs:
                if matches(m, rid):
                    answer: dict[str, Any] = m  # matches: a JSON-RPC response object
                    return answer
            responses = [m for m in msgs if isinstance(m, dict) and is_response(m)]
            if len(responses) == 1 and responses[0].get("id") is None and "error" in responses[0]:
                return responses[0]
            raise ProbeError(
                "protocol", f"server `{self.spec.name}`: the JSON body is not a JSON-RPC answer to {action}"
            )
        if ctype in ("text/html", "application/xhtml+xml"):
            raise self.errors.html(action)
        raise ProbeError(
            "protocol",
            f"server `{self.spec.name}`: unexpected Content-Type `{sanitize(ctype or 'none', 80)}` answering {action} "
            "(expected application/json or text/event-stream)",
        )

    async def _read_events(
        self, resp: httpx2.Response, rid: int, action: str, cursor: SseCursor
    ) -> dict[str, Any] | None:
        """The answer to ``rid`` from an SSE stream (None if it ended without it); other messages
        go to the session (or get the probe's harmless answers)."""
        async for _event, data in iter_sse(
            resp.aiter_bytes(), self.opts.max_response_bytes, self.errors.too_large, cursor
        ):
            if not data.strip():
                continue
            obj = parse_message(data, self.errors, f"an SSE event answering {action}")
            for m in obj if isinstance(obj, list) else [obj]:
                if matches(m, rid):
                    found: dict[str, Any] = m  # matches: a JSON-RPC response object
                    return found
                if isinstance(m, dict) and is_jsonrpc(m) and "method" in m and self.on_message is not None:
                    self.on_message(m)  # a long-lived session relays requests and notifications
                elif isinstance(m, dict) and is_jsonrpc(m) and is_server_request(m):
                    await self._post_reply(answer_server_request(m))
        return None

    async def _resume(self, rid: int, action: str, cursor: SseCursor) -> dict[str, Any]:
        """The stream ended before the answer: resume it with GET + ``Last-Event-ID`` (SEP-1699)."""
        assert self.client is not None
        why = ""
        for _ in range(MAX_RESUMES):
            if cursor.last_id is None:
                break
            retry = cursor.retry_ms if cursor.retry_ms is not None else DEFAULT_RETRY_MS
            await asyncio.sleep(min(retry, MAX_RETRY_MS) / 1000)
            h = self._request_headers()
            h.pop("Content-Type", None)
            h["Accept"] = "text/event-stream"
            h["Last-Event-ID"] = cursor.last_id
            try:
                async with self.client.stream(
                    "GET",
                    self.url,
                    headers=h,
                    timeout=relay_timeout(self.opts) if self.on_message is not None else httpx2.USE_CLIENT_DEFAULT,
                ) as resp:
                    if resp.status_code == 404 and self.session_id:
                        await self._check(resp, action)  # the server forgot the session
                    if resp.status_code != 200 or content_type(resp) != "text/event-stream":
                        why = f": resuming it (GET with Last-Event-ID) got HTTP {resp.status_code}"
                        break
                    found = await self._read_events(resp, rid, action, cursor)
            except httpx2.HTTPError as e:
                raise self._broken(self.errors.exception(e, action)) from None
            if found is not None:
                return found
        else:
            why = f" (resumed {MAX_RESUMES} times)"
        raise ProbeError(
            "protocol", f"server `{self.spec.name}`: the event stream ended without an answer to {action}{why}"
        )

    async def _read_body(self, resp: httpx2.Response) -> bytes:
        body = bytearray()
        async for chunk in resp.aiter_bytes():
            body += chunk
            if len(body) > self.opts.max_response_bytes:
                raise self.errors.too_large()
        return bytes(body)

    async def _post_reply(self, reply: dict[str, Any]) -> None:
        assert self.client is not None
        with contextlib.suppress(httpx2.HTTPError):
            r = await self.client.post(self.url, content=dumps(reply).encode(), headers=self._request_headers())
            await r.aclose()

    async def notify(self, method: str, params: dict[str, Any] | None) -> None:
        msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        await self.send_message(msg, f"the notification {method}")
        if method == "notifications/initialized" and self.on_message is not None and self._listener is None:
            self._listener = asyncio.create_task(self._listen())
            # the stream is open (or refused) before the session's next request, so nothing the
            # server sends there about that request can come before mcplock listens
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.opts.timeout):
                    await self._answered.wait()

    async def _listen(self) -> None:
        """The standalone GET stream of a long-lived session. A server that offers none (405, or
        no event stream) is left alone, quietly; a stream that ends is opened again after a
        pause (until several in a row carried nothing); a server that can no longer be reached,
        or that forgot the session, ends the session."""
        quiet = 0
        cursor = SseCursor()  # the stream is opened again where it ended, if its events had ids
        try:
            while self.client is not None and quiet < LISTEN_RETRIES:
                try:
                    got = await self._listen_once(cursor)
                except ProbeError as e:
                    self._broken(e)
                    return
                if got is None:
                    return
                quiet = 0 if got else quiet + 1
                # the server's retry delay, within bounds: a stream that keeps ending never spins the guard
                pause = LISTEN_PAUSE if cursor.retry_ms is None else min(max(cursor.retry_ms, 100), MAX_RETRY_MS) / 1000
                await asyncio.sleep(pause)
        finally:
            self._answered.set()

    async def _listen_once(self, cursor: SseCursor) -> int | None:
        """One GET stream: how many messages it carried; None when the server offers none. With
        ``Last-Event-ID`` when an earlier stream gave its events ids, so that the server can
        send what came after (the spec's resumption, on the standalone stream too)."""
        assert self.client is not None
        headers = {k: v for k, v in self._request_headers().items() if k != "Content-Type"}
        headers["Accept"] = "text/event-stream"
        if cursor.last_id is not None:
            headers["Last-Event-ID"] = cursor.last_id
        action = "opening the server's event stream"
        n, opened = 0, False
        try:
            async with self.client.stream("GET", self.url, headers=headers, timeout=relay_timeout(self.opts)) as resp:
                self._answered.set()
                if resp.status_code == 404 and self.session_id:
                    await self._check(resp, action)
                if resp.status_code != 200 or content_type(resp) != "text/event-stream":
                    return _no_stream(cursor)
                opened = True
                async for _event, data in iter_sse(
                    resp.aiter_bytes(), self.opts.max_response_bytes, self.errors.too_large, cursor
                ):
                    n += self._deliver(data)
        except httpx2.HTTPError as e:  # a stream that broke is opened again; one that cannot open ends
            if not opened:
                raise self.errors.exception(e, action) from None
        except ProbeError:  # an event too large or not JSON ends this stream (the next one may do better)
            if not opened:
                raise
        return n

    def _deliver(self, data: bytes) -> int:
        """Hand the requests and notifications of one event on the standalone stream to
        ``on_message`` (a response there answers nothing we wait for); how many there were."""
        if not data.strip():
            return 0
        obj = parse_message(data, self.errors, "an event on the server's event stream")
        n = 0
        for m in obj if isinstance(obj, list) else [obj]:
            if isinstance(m, dict) and is_jsonrpc(m) and "method" in m and self.on_message is not None:
                n += 1
                self.on_message(m)
        return n

    async def send_message(self, msg: dict[str, Any], action: str = "a message") -> None:
        """POST one message as it is (a notification, or a reply to a server request)."""
        assert self.client is not None
        try:
            async with self.client.stream(
                "POST", self.url, content=dumps(msg).encode("utf-8"), headers=self._request_headers()
            ) as resp:
                await self._check(resp, action)
        except httpx2.HTTPError as e:
            raise self._broken(self.errors.exception(e, action)) from None

    async def close(self) -> None:
        listener, self._listener = self._listener, None
        if listener is not None:
            listener.cancel()
            with contextlib.suppress(BaseException):
                await listener
        client, self.client = self.client, None
        if client is None:
            return
        try:
            if self.session_id:
                with contextlib.suppress(Exception):
                    async with asyncio.timeout(CLOSE_TIMEOUT):
                        r = await client.delete(self.url, headers=self._request_headers())
                        await r.aclose()
        finally:
            with contextlib.suppress(Exception):
                await client.aclose()


def _no_stream(cursor: SseCursor) -> int | None:
    """What a GET answered with no event stream means: after a stream whose events had ids,
    only that it will not resume (0 messages; a fresh stream next time); else that the server
    offers none (None)."""
    if cursor.last_id is not None:
        cursor.last_id = None
        return 0
    return None
