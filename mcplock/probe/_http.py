"""HTTP transports: Streamable HTTP (POST per message, JSON or SSE body) and the
legacy HTTP+SSE transport (GET event stream + POST endpoint), with error
translation to messages that name an action (DESIGN §6)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import ssl
from typing import TYPE_CHECKING, Any, AsyncIterator
from urllib.parse import urljoin, urlsplit

import httpx

from mcplock.errors import ProbeError
from mcplock.probe._common import (
    PendingRequests,
    BadConstant,
    State,
    answer_server_request,
    dumps,
    fmt_seconds,
    is_jsonrpc,
    is_response,
    is_server_request,
    loads,
)
from mcplock.spec import ServerSpec, expand
from mcplock.untrusted import sanitize

if TYPE_CHECKING:
    from mcplock.probe import ProbeOptions

_ERROR_BODY_BYTES = 64 * 1024
_CLOSE_TIMEOUT = 2.0


# --- SSE parsing (bounded) -------------------------------------------------------------------


async def iter_sse(chunks: AsyncIterator[bytes], max_bytes: int, too_large: Any) -> AsyncIterator[tuple[str, bytes]]:
    """Yield ``(event, data)`` for each Server-Sent Event (data as raw bytes, decoded by the
    strict JSON parser); an event or line larger than ``max_bytes`` raises ``too_large()``."""
    buf = bytearray()
    event = ""
    data: list[bytes] = []
    size = 0

    def field(line: bytes) -> tuple[str, bytes] | None:
        nonlocal event, size
        if not line:
            if not data:
                event = ""
                return None
            out = (event or "message", b"\n".join(data))
            event = ""
            data.clear()
            size = 0
            return out
        if line.startswith(b":"):
            return None
        name, sep, value = line.partition(b":")
        if sep and value.startswith(b" "):
            value = value[1:]
        if name == b"event":
            event = value.decode("utf-8", errors="replace")
        elif name == b"data":
            size += len(value) + 1
            if size > max_bytes:
                raise too_large()
            data.append(value)
        return None  # id / retry / unknown fields: ignored

    async for chunk in chunks:
        buf += chunk
        pos = 0
        n = len(buf)
        while pos < n:
            i_n = buf.find(b"\n", pos)
            i_r = buf.find(b"\r", pos)
            if i_n == -1 and i_r == -1:
                break
            if i_r != -1 and (i_n == -1 or i_r < i_n):
                if i_r + 1 == n:
                    break  # a lone \r at the end: maybe \r\n, wait for more
                end, nxt = i_r, (i_r + 2 if buf[i_r + 1] == 0x0A else i_r + 1)
            else:
                end, nxt = i_n, i_n + 1
            got = field(bytes(buf[pos:end]))
            pos = nxt
            if got is not None:
                yield got
        del buf[:pos]
        if len(buf) > max_bytes + 16:
            raise too_large()
    if buf:
        got = field(bytes(buf).rstrip(b"\r"))
        if got is not None:
            yield got
    got = field(b"")
    if got is not None:
        yield got


# --- error translation -----------------------------------------------------------------------


def _chain(e: BaseException) -> list[BaseException]:
    out: list[BaseException] = []
    cur: BaseException | None = e
    while cur is not None and cur not in out and len(out) < 10:
        out.append(cur)
        cur = cur.__cause__ or cur.__context__
    return out


def _origin(url: str) -> str:
    p = urlsplit(url)
    return f"{p.scheme}://{p.netloc}"


def body_explanation(body: bytes, content_type: str = "") -> str | None:
    """The server's own words in an error body: a JSON ``error_description`` / ``message`` /
    ``error`` / ``detail`` field, or a short plain text; sanitized, at most 300 characters."""
    text = body.decode("utf-8", errors="replace").strip()
    if not text:
        return None
    try:
        obj = json.loads(text)
    except ValueError:
        obj = None
    if isinstance(obj, dict):
        err = obj.get("error")
        if isinstance(err, dict):  # JSON-RPC error body
            m = err.get("message")
            if isinstance(m, str) and m.strip():
                return sanitize(m.strip(), 300)
        for key in ("error_description", "message", "detail", "error", "title"):
            v = obj.get(key)
            if isinstance(v, str) and v.strip():
                return sanitize(v.strip(), 300)
        return None
    if obj is not None:
        return None
    if "html" in content_type.lower() or text.lstrip().startswith("<"):
        return None
    return sanitize(" ".join(text.split()), 300)


class HttpErrors:
    """Translate HTTP statuses and httpx exceptions for one server into ProbeErrors."""

    def __init__(self, spec: ServerSpec, opts: ProbeOptions, state: State) -> None:
        self.spec = spec
        self.opts = opts
        self.state = state
        self.url = spec.url or ""  # the template: never the expanded URL (it may hold secrets)

    def too_large(self) -> ProbeError:
        return ProbeError(
            "too-large",
            f"server `{self.spec.name}` sent a message larger than {self.opts.max_response_bytes} bytes "
            f"(answering {self.waiting()})",
            hint="raise the response size limit if the server really sends that much",
        )

    def waiting(self) -> str:
        return self.state.step.removeprefix("the answer to ")

    def _mcp_hint(self) -> str | None:
        p = urlsplit(self.url)
        if p.path.rstrip("/").endswith("/mcp"):
            return None
        return f"try {p.scheme}://{p.netloc}/mcp"

    async def check(self, resp: httpx.Response, action: str) -> None:
        """Raise a ProbeError for a non-2xx status, reading a short part of the body."""
        status = resp.status_code
        if 200 <= status < 300:
            return
        body = b""
        with contextlib.suppress(Exception):
            async for chunk in resp.aiter_bytes():
                body += chunk
                if len(body) >= _ERROR_BODY_BYTES:
                    break
        ctype = resp.headers.get("content-type", "")
        said = body_explanation(body, ctype)
        name, url = self.spec.name, self.url
        header_names = [k for k in self.spec.headers]
        if status == 401:
            www = resp.headers.get("www-authenticate", "")
            oauth = www.lower().startswith("bearer") or "resource_metadata" in www.lower()
            auth_headers = [k for k in header_names if k.lower() in ("authorization", "proxy-authorization")]
            if auth_headers or (header_names and not oauth):
                sent = ", ".join(f"`{k}`" for k in (auth_headers or header_names))
                msg = f"server `{name}` needs credentials: {url} rejected the ones sent in {sent} (401 on {action})"
                hint = "check that the variables the header uses are set and the token is still valid"
                if oauth:
                    hint += f"; or log in with OAuth: run `mcplock auth login {name}`"
            elif oauth:
                msg = f"server `{name}` needs credentials: {url} asks for an OAuth login (401 on {action})"
                hint = f"OAuth: run `mcplock auth login {name}` (or set a header, e.g. --header 'Authorization: Bearer ${{TOKEN}}' for CI)"
            else:
                msg = f"server `{name}` needs credentials: {url} answered 401 Unauthorized ({action})"
                hint = "set a header, e.g. --header 'Authorization: Bearer ${TOKEN}'"
            if said:
                msg += f": {said}"
            raise ProbeError("auth", msg, hint=hint)
        if status == 403:
            msg = f"server `{name}`: {url} refused access (403 Forbidden on {action})"
            if said:
                msg += f": {said}"
            raise ProbeError(
                "forbidden",
                msg,
                hint="the credentials are not allowed to use this server, or it blocks this client or address",
            )
        if status == 404:
            if action != "initialize" and self._has_session():
                raise ProbeError(
                    "protocol",
                    f"server `{name}`: {url} forgot the session mid-probe (404 on {action})",
                    hint="the server may run several instances without shared sessions; try again",
                )
            if self.spec.transport == "sse":
                hint = "check the URL: legacy SSE servers usually serve `/sse`; newer servers `/mcp` with `--transport http`"
            else:
                hint = self._mcp_hint()
                if urlsplit(url).path.rstrip("/").endswith("/sse"):
                    hint = (hint + ", or " if hint else "") + "`--transport sse` for a legacy SSE server"
                hint = hint or "check the URL: the server's documentation names its MCP endpoint"
            raise ProbeError("not-found", f"no MCP endpoint at {url} (404 Not Found on {action})", hint=hint)
        if status == 405:
            if self.spec.transport == "sse" and resp.request.method == "GET":
                raise ProbeError(
                    "legacy-sse",
                    f"{url} does not accept GET (405 on {action}): "
                    "this looks like a Streamable HTTP endpoint, not a legacy SSE one",
                    hint="use `--transport http`",
                )
            raise ProbeError(
                "legacy-sse",
                f"{url} does not accept POST (405 on {action}): this looks like a legacy SSE endpoint",
                hint="use `--transport sse`, or the server's /mcp endpoint",
            )
        if status == 410:
            msg = f"the server retired this endpoint: {url} answered 410 Gone ({action})"
            if said:
                msg += f": “{said}”"
            raise ProbeError("gone", msg, hint="update the server's URL in the configuration")
        reason = resp.reason_phrase or ""
        msg = f"server `{name}`: {url} answered HTTP {status}{(' ' + reason) if reason else ''} ({action})"
        if said:
            msg += f": {said}"
        hint = None
        if self.spec.transport == "sse" and resp.request.method == "GET" and status in (400, 406):
            hint = "this may be a Streamable HTTP endpoint: try `--transport http`"
        elif status in (406, 415):
            hint = "the server does not accept MCP's Streamable HTTP request format; is this an MCP endpoint?"
        elif status >= 500:
            hint = "the server failed; try again later or ask its operators"
        raise ProbeError("http", msg, hint=hint)

    def _has_session(self) -> bool:
        return False

    def html(self, action: str) -> ProbeError:
        return ProbeError(
            "html",
            f"server `{self.spec.name}`: got an HTML page, not MCP (a login page?) from {self.url} on {action}",
            hint="check the URL; if the server sits behind a login, it needs a header or OAuth",
        )

    def exception(self, e: BaseException, action: str) -> ProbeError:
        name, url = self.spec.name, self.url
        chain = _chain(e)
        text = " ".join(str(x) for x in chain)
        if isinstance(e, httpx.TimeoutException):
            return ProbeError(
                "timeout",
                f"server `{name}`: no answer within {fmt_seconds(self.opts.timeout)} s (waiting for {self.waiting()})",
            )
        if isinstance(e, (httpx.UnsupportedProtocol, httpx.InvalidURL)):
            return ProbeError("config", f"server `{name}`: `{url}` is not a valid http(s) URL")
        if isinstance(e, httpx.TooManyRedirects):
            return ProbeError("http", f"server `{name}`: {url} redirects too many times ({action})")
        if isinstance(e, httpx.ConnectError):
            host = urlsplit(url).hostname or url
            if any(isinstance(x, socket.gaierror) for x in chain) or any(
                s in text
                for s in (
                    "Name or service not known",
                    "nodename nor servname",
                    "getaddrinfo",
                    "Temporary failure in name resolution",
                    "No address associated",
                )
            ):
                return ProbeError(
                    "dns",
                    f"server `{name}`: cannot resolve host `{host}` of {url}",
                    hint="check the host name and your network / DNS",
                )
            if any(isinstance(x, ssl.SSLError) for x in chain) or "SSL" in text or "CERTIFICATE" in text:
                detail = "certificate verification failed" if "CERTIFICATE_VERIFY_FAILED" in text else "TLS handshake failed"
                return ProbeError(
                    "tls",
                    f"server `{name}`: {detail} for {url}",
                    hint="check the certificate (a corporate proxy may need SSL_CERT_FILE), or the URL scheme",
                )
            return ProbeError(
                "connect",
                f"server `{name}`: cannot connect to {url}: connection refused ({action})",
                hint="is the server running, and is the host and port right?",
            )
        if isinstance(e, (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError, httpx.CloseError)):
            return ProbeError(
                "connect",
                f"server `{name}`: the connection to {url} broke while mcplock waited for {self.waiting()}",
                hint="the server closed the connection: it may have crashed; see its logs",
            )
        return ProbeError("connect", f"server `{name}`: HTTP request to {url} failed ({action}): {type(e).__name__}")


def _expanded_headers(spec: ServerSpec, environ: Any) -> dict[str, str]:
    out: dict[str, str] = {}
    for k, v in spec.headers.items():
        value = expand(v, environ, spec.secrets)
        try:
            value.encode("ascii")
        except UnicodeEncodeError:
            raise ProbeError(
                "config", f"server `{spec.name}`: header `{k}` has a value that is not ASCII"
            ) from None
        if "\n" in value or "\r" in value:
            raise ProbeError("config", f"server `{spec.name}`: header `{k}` has a value with a line break")
        out[k] = value
    return out


def _make_client(opts: ProbeOptions, spec: ServerSpec | None = None, environ: Any = None) -> httpx.AsyncClient:
    # OAuth (mcplock.auth): the SDK's httpx2 client with its auth, imported only on that path.
    if spec is not None and environ is not None:
        from mcplock.auth import wants_oauth

        if wants_oauth(spec, environ):
            from mcplock.auth.oauth import make_client

            return make_client(spec, opts, environ)  # type: ignore[return-value]
    return httpx.AsyncClient(
        timeout=httpx.Timeout(opts.timeout),
        follow_redirects=True,
        headers={"User-Agent": f"{opts.client_name}/{opts.client_version}"},
    )


def _check_url(spec: ServerSpec, url: str) -> None:
    p = urlsplit(url)
    if p.scheme not in ("http", "https") or not p.netloc:
        raise ProbeError(
            "config", f"server `{spec.name}`: `{spec.url}` is not an http(s) URL", hint="fix the server's `url`"
        )


def _parse_message(data: bytes | str, errors: HttpErrors, where: str) -> Any:
    try:
        return loads(data)
    except BadConstant as e:
        raise ProbeError("protocol", f"server `{errors.spec.name}` sent invalid JSON ({where}): {e}") from None
    except ValueError:
        sample = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
        raise ProbeError(
            "protocol",
            f"server `{errors.spec.name}` sent something that is not JSON ({where}): {sanitize(sample.strip(), 120)}",
        ) from None


def _matches(obj: Any, rid: int) -> bool:
    if not (isinstance(obj, dict) and is_jsonrpc(obj) and is_response(obj)):
        return False
    got = obj.get("id")
    return (got == rid and not isinstance(got, bool)) or got == str(rid)


# --- Streamable HTTP ------------------------------------------------------------------------


def _target(spec: ServerSpec, environ: Any) -> tuple[str, dict[str, str]]:
    """The expanded URL (checked) and headers of a remote server: memory only, never printed."""
    if not spec.url:
        raise ProbeError("config", f"server `{spec.name}` has no url")
    url = expand(spec.url, environ, spec.secrets)
    _check_url(spec, url)
    return url, _expanded_headers(spec, environ)


class StreamableHttpTransport:
    def __init__(self, spec: ServerSpec, opts: ProbeOptions, environ: Any) -> None:
        self.spec = spec
        self.opts = opts
        self.state = State()
        self.errors = HttpErrors(spec, opts, self.state)
        self.errors._has_session = lambda: self.session_id is not None  # type: ignore[method-assign]
        self.url, self.headers = _target(spec, environ)
        self.environ = environ
        self.session_id: str | None = None
        self.protocol_version: str | None = None
        self.client: httpx.AsyncClient | None = None
        self._next_id = 0

    async def start(self) -> None:
        self.client = _make_client(self.opts, self.spec, self.environ)

    def set_protocol_version(self, version: str) -> None:
        self.protocol_version = version

    def _request_headers(self) -> dict[str, str]:
        h = dict(self.headers)
        h["Accept"] = "application/json, text/event-stream"
        h["Content-Type"] = "application/json"
        if self.session_id:
            h["Mcp-Session-Id"] = self.session_id
        if self.protocol_version:
            h["MCP-Protocol-Version"] = self.protocol_version
        return h

    async def request(self, method: str, params: dict[str, Any] | None) -> dict[str, Any]:
        assert self.client is not None
        self._next_id += 1
        rid = self._next_id
        msg: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            msg["params"] = params
        action = self.errors.waiting()
        try:
            async with self.client.stream(
                "POST", self.url, content=dumps(msg).encode("utf-8"), headers=self._request_headers()
            ) as resp:
                await self.errors.check(resp, action)
                if method == "initialize":
                    sid = resp.headers.get("mcp-session-id")
                    if sid:
                        self.session_id = sid
                return await self._read_answer(resp, rid, action)
        except httpx.HTTPError as e:
            raise self.errors.exception(e, action) from None

    async def _read_answer(self, resp: httpx.Response, rid: int, action: str) -> dict[str, Any]:
        if resp.status_code == 202:
            raise ProbeError(
                "protocol", f"server `{self.spec.name}` accepted {action} (202) but sent no answer"
            )
        ctype = resp.headers.get("content-type", "").split(";")[0].strip().lower()
        if ctype == "text/event-stream":
            async for _event, data in iter_sse(resp.aiter_bytes(), self.opts.max_response_bytes, self.errors.too_large):
                if not data.strip():
                    continue
                obj = _parse_message(data, self.errors, f"an SSE event answering {action}")
                for m in obj if isinstance(obj, list) else [obj]:
                    if _matches(m, rid):
                        return m
                    if isinstance(m, dict) and is_jsonrpc(m) and is_server_request(m):
                        await self._post_reply(answer_server_request(m))
            raise ProbeError(
                "protocol", f"server `{self.spec.name}`: the event stream ended without an answer to {action}"
            )
        if ctype == "application/json" or ctype.endswith("+json"):
            body = await self._read_body(resp)
            obj = _parse_message(body, self.errors, f"the body answering {action}")
            msgs = obj if isinstance(obj, list) else [obj]
            for m in msgs:
                if _matches(m, rid):
                    return m
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

    async def _read_body(self, resp: httpx.Response) -> bytes:
        body = bytearray()
        async for chunk in resp.aiter_bytes():
            body += chunk
            if len(body) > self.opts.max_response_bytes:
                raise self.errors.too_large()
        return bytes(body)

    async def _post_reply(self, reply: dict[str, Any]) -> None:
        assert self.client is not None
        with contextlib.suppress(httpx.HTTPError):
            r = await self.client.post(self.url, content=dumps(reply).encode(), headers=self._request_headers())
            await r.aclose()

    async def notify(self, method: str, params: dict[str, Any] | None) -> None:
        assert self.client is not None
        msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        action = f"the notification {method}"
        try:
            async with self.client.stream(
                "POST", self.url, content=dumps(msg).encode("utf-8"), headers=self._request_headers()
            ) as resp:
                await self.errors.check(resp, action)
        except httpx.HTTPError as e:
            raise self.errors.exception(e, action) from None

    async def close(self) -> None:
        client, self.client = self.client, None
        if client is None:
            return
        try:
            if self.session_id:
                with contextlib.suppress(Exception):
                    async with asyncio.timeout(_CLOSE_TIMEOUT):
                        r = await client.delete(self.url, headers=self._request_headers())
                        await r.aclose()
        finally:
            with contextlib.suppress(Exception):
                await client.aclose()


# --- legacy HTTP+SSE ------------------------------------------------------------------------


class LegacySseTransport(PendingRequests):
    def __init__(self, spec: ServerSpec, opts: ProbeOptions, environ: Any) -> None:
        self.spec = spec
        self.opts = opts
        self.state = State()
        self.errors = HttpErrors(spec, opts, self.state)
        self.url, self.headers = _target(spec, environ)
        self.environ = environ
        self.client: httpx.AsyncClient | None = None
        self.endpoint: str | None = None
        self._stream: Any = None
        self._reader: asyncio.Task[None] | None = None
        self._endpoint_fut: asyncio.Future[str] | None = None
        self._init_requests()

    async def start(self) -> None:
        self.client = _make_client(self.opts, self.spec, self.environ)
        loop = asyncio.get_running_loop()
        self._endpoint_fut = loop.create_future()
        self.state.step = "the SSE stream to open"
        action = "opening the SSE stream"
        headers = dict(self.headers)
        headers["Accept"] = "text/event-stream"
        headers["Cache-Control"] = "no-cache"
        stream = self.client.stream("GET", self.url, headers=headers)
        try:
            resp: httpx.Response = await stream.__aenter__()
        except httpx.HTTPError as e:
            raise self.errors.exception(e, action) from None
        self._stream = stream  # entered: close() exits it
        await self.errors.check(resp, action)
        ctype = resp.headers.get("content-type", "").split(";")[0].strip().lower()
        if ctype in ("text/html", "application/xhtml+xml"):
            raise self.errors.html(action)
        if ctype != "text/event-stream":
            raise ProbeError(
                "protocol",
                f"server `{self.spec.name}`: {self.spec.url} answered GET with `{sanitize(ctype or 'no Content-Type', 80)}`, "
                "not an event stream: it is not a legacy SSE endpoint",
                hint="if it is a Streamable HTTP endpoint, use `--transport http`",
            )
        final_url = str(resp.url)
        self._reader = asyncio.create_task(self._read(resp))
        self.state.step = "the SSE `endpoint` event"
        endpoint = await self._endpoint_fut
        resolved = urljoin(final_url, endpoint.strip())
        if _origin(resolved) != _origin(final_url):
            raise ProbeError(
                "protocol",
                f"server `{self.spec.name}`: the SSE `endpoint` event points to another origin "
                f"({sanitize(_origin(resolved), 100)}); mcplock does not send its headers there",
            )
        self.endpoint = resolved

    def set_protocol_version(self, version: str) -> None:
        pass

    def _fail(self, err: BaseException) -> None:
        if self._endpoint_fut is not None and not self._endpoint_fut.done():
            self._endpoint_fut.set_exception(err)
            self._endpoint_fut.exception()
        super()._fail(err)

    async def _read(self, resp: httpx.Response) -> None:
        try:
            async for event, data in iter_sse(resp.aiter_bytes(), self.opts.max_response_bytes, self.errors.too_large):
                if event == "endpoint":
                    if self._endpoint_fut is not None and not self._endpoint_fut.done():
                        self._endpoint_fut.set_result(data.decode("utf-8", errors="replace"))
                    continue
                if event != "message" or not data.strip():
                    continue
                obj = _parse_message(data, self.errors, f"an SSE event while waiting for {self.errors.waiting()}")
                for m in obj if isinstance(obj, list) else [obj]:
                    if not (isinstance(m, dict) and is_jsonrpc(m)):
                        continue
                    if is_response(m):
                        rid = m.get("id")
                        fut = self._pending.get(rid) if isinstance(rid, int) and not isinstance(rid, bool) else None
                        if fut is not None and not fut.done():
                            fut.set_result(m)
                    elif is_server_request(m):
                        asyncio.create_task(self._post_quiet(answer_server_request(m)))
            self._fail(
                ProbeError(
                    "connect",
                    f"server `{self.spec.name}`: the SSE stream closed while mcplock waited for {self.errors.waiting()}",
                    hint="the server ended the stream: it may have crashed; see its logs",
                )
            )
        except asyncio.CancelledError:
            raise
        except ProbeError as e:
            self._fail(e)
        except httpx.HTTPError as e:
            self._fail(self.errors.exception(e, "reading the SSE stream"))
        except Exception as e:  # pragma: no cover - defensive
            self._fail(ProbeError("protocol", f"reading the SSE stream failed: {type(e).__name__}"))

    async def _post(self, msg: dict[str, Any], action: str) -> None:
        assert self.client is not None and self.endpoint is not None
        headers = dict(self.headers)
        headers["Content-Type"] = "application/json"
        try:
            async with self.client.stream("POST", self.endpoint, content=dumps(msg).encode("utf-8"), headers=headers) as r:
                await self.errors.check(r, action)
        except httpx.HTTPError as e:
            raise self.errors.exception(e, action) from None

    async def _post_quiet(self, msg: dict[str, Any]) -> None:
        with contextlib.suppress(Exception):
            await self._post(msg, "a reply")

    async def request(self, method: str, params: dict[str, Any] | None) -> dict[str, Any]:
        rid, msg, fut = self._new_request(method, params)
        try:
            await self._post(msg, self.errors.waiting())
            return await fut
        finally:
            self._pending.pop(rid, None)

    async def notify(self, method: str, params: dict[str, Any] | None) -> None:
        if self._failure is not None:
            raise self._failure
        msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        await self._post(msg, f"the notification {method}")

    async def close(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(BaseException):
                await self._reader
        if self._stream is not None:
            with contextlib.suppress(Exception):
                async with asyncio.timeout(_CLOSE_TIMEOUT):
                    await self._stream.__aexit__(None, None, None)
            self._stream = None
        client, self.client = self.client, None
        if client is not None:
            with contextlib.suppress(Exception):
                await client.aclose()
