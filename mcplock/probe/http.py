"""What the two HTTP transports share: the client (built here, or given by
``ProbeOptions.http_client``), the expanded target, a bounded Server-Sent Events parser and
strict JSON-RPC message parsing."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import httpx2

from mcplock.errors import ProbeError
from mcplock.lock.param_headers import headers as mcp_headers
from mcplock.lock.spec import ServerSpec
from mcplock.lock.templates import expand
from mcplock.probe import era
from mcplock.probe._common import is_jsonrpc, is_response
from mcplock.probe._json import INVALID_JSON_HINT, BadConstant, bad_constant_message, loads
from mcplock.probe.errors import HttpErrors
from mcplock.text.untrusted import sanitize

if TYPE_CHECKING:
    from mcplock.probe.options import ProbeOptions

__all__ = ["client_for", "iter_sse", "mcp_headers", "new_client"]

CLOSE_TIMEOUT = 2.0


#: the most of one HTTP answer that is not an event stream mcplock reads (OAuth metadata, token
#: answers, a JSON-RPC body — which the probe caps lower, per message); an event stream is
#: bounded per event instead (docs/failing-safe.md, "Round 4", 13)
MAX_BODY = 64 * 1024 * 1024


class _CappedStream(httpx2.AsyncByteStream):
    def __init__(self, inner: httpx2.AsyncByteStream, limit: int, url: str) -> None:
        self.inner, self.limit, self.url = inner, limit, url

    async def __aiter__(self) -> AsyncIterator[bytes]:
        n = 0
        async for chunk in self.inner:
            n += len(chunk)
            if n > self.limit:
                raise httpx2.ReadError(
                    f"the answer of {self.url} is larger than {self.limit >> 20} MiB, the most "
                    "mcplock reads of one answer"
                )
            yield chunk

    async def aclose(self) -> None:
        await self.inner.aclose()


async def cap_body(response: httpx2.Response) -> None:
    """A response hook: an answer that is not an event stream is read no further than
    :data:`MAX_BODY` (the SDK's OAuth provider reads metadata and token answers whole)."""
    if "text/event-stream" in response.headers.get("content-type", ""):
        return
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_BODY:
        raise httpx2.ReadError(
            f"the answer of {response.request.url} is larger than {MAX_BODY >> 20} MiB "
            "(its Content-Length), the most mcplock reads of one answer"
        )
    if isinstance(response.stream, httpx2.AsyncByteStream):  # an async client reads no other kind
        response.stream = _CappedStream(response.stream, MAX_BODY, str(response.request.url))


def new_client(
    opts: ProbeOptions, auth: httpx2.Auth | None = None, cls: type[httpx2.AsyncClient] = httpx2.AsyncClient
) -> httpx2.AsyncClient:
    """The HTTP client of a probe: the whole-probe timeout, redirects followed, mcplock's
    User-Agent, every answer that is not an event stream capped (:func:`cap_body`); ``auth``
    (e.g. the SDK's OAuth provider) signs each request."""
    return cls(
        auth=auth,
        timeout=httpx2.Timeout(opts.timeout),
        follow_redirects=True,
        headers={"User-Agent": f"{opts.client_name}/{opts.client_version}"},
        event_hooks={"response": [cap_body]},
    )


def client_for(spec: ServerSpec, opts: ProbeOptions, environ: Mapping[str, str]) -> httpx2.AsyncClient:
    """The client for ``spec``: from the injected factory when there is one, else plain."""
    if opts.http_client is not None:
        return opts.http_client(spec, opts, environ)
    return new_client(opts)


def relay_timeout(opts: ProbeOptions) -> httpx2.Timeout:
    """A long-lived session's streams: no read timeout (a stream idles, a tool runs long; the
    guard bounds each request itself), the probe's timeout for connecting and writing."""
    return httpx2.Timeout(opts.timeout, read=None)


def errors_for(spec: ServerSpec, opts: ProbeOptions, state: Any) -> HttpErrors:
    return HttpErrors(spec, opts.timeout, opts.max_response_bytes, state)


# --- target ---------------------------------------------------------------------------------


def _expanded_headers(spec: ServerSpec, environ: Any) -> dict[str, str]:
    out: dict[str, str] = {}
    for k, v in spec.headers.items():
        value = expand(v, environ, spec.secrets)
        try:
            value.encode("ascii")
        except UnicodeEncodeError:
            raise ProbeError("config", f"server `{spec.name}`: header `{k}` has a value that is not ASCII") from None
        if "\n" in value or "\r" in value:
            raise ProbeError("config", f"server `{spec.name}`: header `{k}` has a value with a line break")
        out[k] = value
    return out


def target(spec: ServerSpec, environ: Any) -> tuple[str, dict[str, str]]:
    """The expanded URL (checked) and headers of a remote server: memory only, never printed."""
    if not spec.url:
        raise ProbeError("config", f"server `{spec.name}` has no url")
    url = expand(spec.url, environ, spec.secrets)
    p = urlsplit(url)
    if p.scheme not in ("http", "https") or not p.netloc:
        raise ProbeError(
            "config", f"server `{spec.name}`: `{spec.url}` is not an http(s) URL", hint="fix the server's `url`"
        )
    return url, _expanded_headers(spec, environ)


# --- messages -------------------------------------------------------------------------------


def parse_message(data: bytes | str, errors: HttpErrors, where: str) -> Any:
    try:
        return loads(data)
    except BadConstant as e:
        raise ProbeError(
            "protocol",
            f"server `{errors.spec.name}` ({where}): {bad_constant_message(data, e)}",
            hint=INVALID_JSON_HINT,
        ) from None
    except ValueError:
        sample = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
        raise ProbeError(
            "protocol",
            f"server `{errors.spec.name}` sent something that is not JSON ({where}): {sanitize(sample.strip(), 120)}",
        ) from None


def matches(obj: Any, rid: int) -> bool:
    """``obj`` is the JSON-RPC response to request ``rid``."""
    if not (isinstance(obj, dict) and is_jsonrpc(obj) and is_response(obj)):
        return False
    got = obj.get("id")
    return (got == rid and not isinstance(got, bool)) or got == str(rid)


def content_type(resp: httpx2.Response) -> str:
    return resp.headers.get("content-type", "").split(";")[0].strip().lower()


# --- SSE parsing (bounded) ------------------------------------------------------------------


class SseCursor:
    """Where a stream can be resumed: the last event ``id`` and the ``retry`` delay it gave."""

    last_id: str | None = None
    retry_ms: int | None = None


async def iter_sse(
    chunks: AsyncIterator[bytes], max_bytes: int, too_large: Any, cursor: SseCursor | None = None
) -> AsyncIterator[tuple[str, bytes]]:
    """Yield ``(event, data)`` for each Server-Sent Event (data as raw bytes, decoded by the
    strict JSON parser); an event or line larger than ``max_bytes`` raises ``too_large()``.
    ``cursor`` (if given) follows the ``id`` and ``retry`` fields.
    (httpx2's own EventSource decodes text and has no size bound, so it is not used.)"""
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
        elif cursor is not None and name == b"id" and len(value) <= 256 and value.isascii() and b"\0" not in value:
            cursor.last_id = value.decode("ascii") or None  # (an empty id resets it: nothing to resume)
        elif cursor is not None and name == b"retry" and value.isdigit() and len(value) <= 9:
            cursor.retry_ms = int(value)
        return None  # unknown fields: ignored

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


def request_headers(
    base: Mapping[str, str],
    session_id: str | None,
    protocol_version: str | None,
    msg: dict[str, Any] | None = None,
    tools: Mapping[str, Any] | None = None,
) -> dict[str, str]:
    """The headers of a Streamable HTTP POST: the server's own (``base``), what it accepts, the
    session and protocol version it named, and for a modern request the headers that mirror its
    body (SEP-2243, ``tools``: the listed tools whose parameters name some)."""
    h = dict(base)
    h["Accept"] = "application/json, text/event-stream"
    h["Content-Type"] = "application/json"
    if session_id:
        h["Mcp-Session-Id"] = session_id
    if protocol_version:
        h["MCP-Protocol-Version"] = protocol_version
    if msg is not None and "method" in msg:
        version = era.request_version(msg.get("params"))
        if version is not None:  # a modern request: the headers mirror its body (SEP-2243)
            h.update(mcp_headers(msg, version, tools or {}))
    return h


def jsonrpc_error(body: bytes) -> dict[str, Any] | None:
    """A body that is a JSON-RPC error (a modern server's way to refuse with a 400 / 404); None else."""
    try:
        obj = loads(body)
    except (ValueError, RecursionError):
        return None
    if (
        isinstance(obj, dict)
        and obj.get("jsonrpc") == "2.0"
        and isinstance(obj.get("error"), dict)
        and isinstance(obj["error"].get("code"), int)
    ):
        return obj
    return None
