"""HTTP failures as ProbeErrors that name the next action: statuses with the server's own
words from the body, connection / DNS / TLS errors, HTML login pages, oversized messages.

A leaf: it imports only httpx2 and mcplock's error, spec and untrusted-text modules, so
both the probe transports and :mod:`mcplock.auth` (the OAuth login) can use it.
"""

from __future__ import annotations

import contextlib
import json
import socket
import ssl
from collections.abc import Callable
from typing import Any, ClassVar, Protocol
from urllib.parse import urlsplit

import httpx2

from mcplock.errors import COMMAND, Action, ProbeError
from mcplock.lock.spec import ServerSpec, Transport
from mcplock.probe._common import size_limit_hint
from mcplock.text.untrusted import sanitize, shell_word

__all__ = ["HttpErrors", "body_explanation", "login_action", "origin"]

_ERROR_BODY_BYTES = 64 * 1024
# what a resolver's failure says, across platforms and libcs
_DNS_WORDS = (
    "Name or service not known",
    "nodename nor servname",
    "getaddrinfo",
    "Temporary failure in name resolution",
    "No address associated",
)


class _Step(Protocol):
    step: str  # what the probe waits for, e.g. "the answer to tools/list"


def origin(url: str) -> str:
    p = urlsplit(url)
    return f"{p.scheme}://{p.netloc}"


def _chain(e: BaseException) -> list[BaseException]:
    out: list[BaseException] = []
    cur: BaseException | None = e
    while cur is not None and cur not in out and len(out) < 10:
        out.append(cur)
        cur = cur.__cause__ or cur.__context__
    return out


def login_action(
    spec: ServerSpec, text: str, *, scopes: str | None = None, offers_retry: bool = False, again: bool = False
) -> Action:
    """The "log in with OAuth" step for ``spec``: ``text`` shows the command where it holds
    ``{command}``; the CLI may swap in a command that also names the URL and the options.
    ``again``: the server asks after a login too (it moved to another authorization server)."""
    target = spec.url if spec.name == "inspect" and spec.url else spec.name
    return Action(
        "login",
        text,
        command=f"mcplock auth login {shell_word(target)}",
        scopes=scopes,
        offers_retry=offers_retry,
        again=again,
    )


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
        return _json_explanation(obj)
    if obj is not None:
        return None
    if "html" in content_type.lower() or text.lstrip().startswith("<"):
        return None
    return sanitize(" ".join(text.split()), 300)


def _json_explanation(obj: dict[str, Any]) -> str | None:
    """The words of a JSON error body: a JSON-RPC error's message, else the first text field of
    OAuth's and the usual API error shapes."""
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


class HttpErrors:
    """Translate HTTP statuses and httpx2 exceptions for one server into ProbeErrors.

    ``state.step`` names what the probe waits for; ``has_session()`` says whether the server
    gave a session id (a 404 then means it forgot the session)."""

    def __init__(self, spec: ServerSpec, timeout: float, max_bytes: int, state: _Step) -> None:
        self.spec = spec
        self.timeout = timeout
        self.max_bytes = max_bytes
        self.state = state
        self.url = spec.url or ""  # the template: never the expanded URL (it may hold secrets)
        self.has_session: Callable[[], bool] = lambda: False

    def too_large(self) -> ProbeError:
        return ProbeError(
            "too-large",
            f"server `{self.spec.name}` sent a message larger than {self.max_bytes} bytes (answering {self.waiting()})",
            hint=size_limit_hint(self.max_bytes),
        )

    def waiting(self) -> str:
        return self.state.step.removeprefix("the answer to ")

    def _mcp_hint(self) -> str | None:
        p = urlsplit(self.url)
        if p.path.rstrip("/").endswith("/mcp"):
            return None
        return f"try {p.scheme}://{p.netloc}/mcp"

    async def check(self, resp: httpx2.Response, action: str) -> None:
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
        raise self.status_error(resp, body, action)

    def status_error(self, resp: Any, body: bytes, action: str) -> ProbeError:
        """The ProbeError for a non-2xx response whose (first) body bytes are ``body``: one
        reading per status that has its own next step, the generic one for the rest."""
        said = body_explanation(body, resp.headers.get("content-type", ""))
        reading = self._BY_STATUS.get(resp.status_code, HttpErrors._other_status)
        return reading(self, resp, said, action)

    @staticmethod
    def _with(msg: str, said: str | None, quoted: bool = False) -> str:
        if not said:
            return msg
        return msg + (f": “{said}”" if quoted else f": {said}")

    def _unauthorized(self, resp: Any, said: str | None, action: str) -> ProbeError:
        """401: the credentials sent were refused, or an OAuth login is wanted, or a header."""
        name, url = self.spec.name, self.url
        header_names = list(self.spec.headers)
        www = resp.headers.get("www-authenticate", "").lower()
        oauth = www.startswith("bearer") or "resource_metadata" in www
        auth_headers = [k for k in header_names if k.lower() in ("authorization", "proxy-authorization")]
        if auth_headers or (header_names and not oauth):
            sent = ", ".join(f"`{k}`" for k in (auth_headers or header_names))
            msg = f"server `{name}` needs credentials: {url} rejected the ones sent in {sent} (401 on {action})"
            hint = "check that the variables the header uses are set and the token is still valid"
            step = (
                login_action(self.spec, hint + f"; or log in with OAuth: run `{COMMAND}`")
                if oauth
                else Action("advice", hint)
            )
        elif oauth:
            msg = f"server `{name}` needs credentials: {url} asks for an OAuth login (401 on {action})"
            step = login_action(
                self.spec,
                f"OAuth: run `{COMMAND}` (or set a header, e.g. --header 'Authorization: Bearer ${{TOKEN}}' for CI)",
            )
        else:
            msg = f"server `{name}` needs credentials: {url} answered 401 Unauthorized ({action})"
            step = Action("advice", "set a header, e.g. --header 'Authorization: Bearer ${TOKEN}'")
        return ProbeError("auth", self._with(msg, said), action=step)

    def _forbidden(self, resp: Any, said: str | None, action: str) -> ProbeError:
        msg = f"server `{self.spec.name}`: {self.url} refused access (403 Forbidden on {action})"
        hint = "the credentials are not allowed to use this server, or it blocks this client or address"
        return ProbeError("forbidden", self._with(msg, said), hint=hint)

    def _not_found(self, resp: Any, said: str | None, action: str) -> ProbeError:
        """404: a session the server forgot, or no MCP endpoint at this URL (with the likely one)."""
        url = self.url
        if action != "initialize" and self.has_session():
            return ProbeError(
                "protocol",
                f"server `{self.spec.name}`: {url} forgot the session mid-probe (404 on {action})",
                hint="the server may run several instances without shared sessions; try again",
            )
        if self.spec.transport is Transport.SSE:
            hint = (
                "check the URL: legacy SSE servers usually serve `/sse`; newer servers `/mcp` with `--transport http`"
            )
        else:
            sse = urlsplit(url).path.rstrip("/").endswith("/sse")
            parts = [p for p in (self._mcp_hint(), "`--transport sse` for a legacy SSE server" if sse else None) if p]
            hint = ", or ".join(parts) or "check the URL: the server's documentation names its MCP endpoint"
        return ProbeError("not-found", f"no MCP endpoint at {url} (404 Not Found on {action})", hint=hint)

    def _not_allowed(self, resp: Any, said: str | None, action: str) -> ProbeError:
        """405: the other HTTP transport's endpoint."""
        if self.spec.transport is Transport.SSE and resp.request.method == "GET":
            return ProbeError(
                "legacy-sse",
                f"{self.url} does not accept GET (405 on {action}): "
                "this looks like a Streamable HTTP endpoint, not a legacy SSE one",
                hint="use `--transport http`",
            )
        return ProbeError(
            "legacy-sse",
            f"{self.url} does not accept POST (405 on {action}): this looks like a legacy SSE endpoint",
            hint="use `--transport sse`, or the server's /mcp endpoint",
        )

    def _gone(self, resp: Any, said: str | None, action: str) -> ProbeError:
        msg = f"the server retired this endpoint: {self.url} answered 410 Gone ({action})"
        return ProbeError(
            "gone", self._with(msg, said, quoted=True), hint="update the server's URL in the configuration"
        )

    def _other_status(self, resp: Any, said: str | None, action: str) -> ProbeError:
        status = resp.status_code
        reason = f" {resp.reason_phrase}" if resp.reason_phrase else ""
        msg = f"server `{self.spec.name}`: {self.url} answered HTTP {status}{reason} ({action})"
        hint: str | None = None
        if self.spec.transport is Transport.SSE and resp.request.method == "GET" and status in (400, 406):
            hint = "this may be a Streamable HTTP endpoint: try `--transport http`"
        elif status in (406, 415):
            hint = "the server does not accept MCP's Streamable HTTP request format; is this an MCP endpoint?"
        elif status >= 500:
            hint = "the server failed; try again later or ask its operators"
        return ProbeError("http", self._with(msg, said), hint=hint)

    _BY_STATUS: ClassVar[dict[int, Callable[[HttpErrors, Any, str | None, str], ProbeError]]] = {
        401: _unauthorized,
        403: _forbidden,
        404: _not_found,
        405: _not_allowed,
        410: _gone,
    }

    def html(self, action: str) -> ProbeError:
        return ProbeError(
            "html",
            f"server `{self.spec.name}`: got an HTML page, not MCP (a login page?) from {self.url} on {action}",
            hint="check the URL; if the server sits behind a login, it needs a header or OAuth",
        )

    def exception(self, e: BaseException, action: str) -> ProbeError:
        """The ProbeError for an httpx2 exception raised while doing ``action``."""
        name, url = self.spec.name, self.url
        if isinstance(e, httpx2.TimeoutException):
            return ProbeError(
                "timeout",
                f"server `{name}`: no answer within {self.timeout:g} s (waiting for {self.waiting()})",
            )
        if isinstance(e, (httpx2.UnsupportedProtocol, httpx2.InvalidURL)):
            return ProbeError("config", f"server `{name}`: `{url}` is not a valid http(s) URL")
        if isinstance(e, httpx2.TooManyRedirects):
            return ProbeError("http", f"server `{name}`: {url} redirects too many times ({action})")
        if isinstance(e, httpx2.ConnectError):
            return self._not_connected(_chain(e), action)
        if isinstance(e, (httpx2.RemoteProtocolError, httpx2.ReadError, httpx2.WriteError, httpx2.CloseError)):
            return ProbeError(
                "connect",
                f"server `{name}`: the connection to {url} broke while mcplock waited for {self.waiting()}",
                hint="the server closed the connection: it may have crashed; see its logs",
            )
        return ProbeError("connect", f"server `{name}`: HTTP request to {url} failed ({action}): {type(e).__name__}")

    def _not_connected(self, chain: list[BaseException], action: str) -> ProbeError:
        """Why a connection could not be made, from the exception and its causes: the host name
        does not resolve, the TLS handshake or the certificate failed, or nothing answered."""
        name, url = self.spec.name, self.url
        text = " ".join(str(x) for x in chain)
        host = urlsplit(url).hostname or url
        if any(isinstance(x, socket.gaierror) for x in chain) or any(s in text for s in _DNS_WORDS):
            return ProbeError(
                "dns",
                f"server `{name}`: cannot resolve host `{host}` of {url}",
                hint="check the host name and your network / DNS",
            )
        if any(isinstance(x, ssl.SSLError) for x in chain) or "SSL" in text or "CERTIFICATE" in text:
            verify = "CERTIFICATE_VERIFY_FAILED" in text
            detail = "certificate verification failed" if verify else "TLS handshake failed"
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
