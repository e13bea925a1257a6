"""The interactive authorization-code flow (``mcplock auth login``, or ``--login`` / a TTY on
the probing commands): protected-resource and authorization-server metadata discovery,
dynamic client registration or a pre-registered client, a loopback callback on a free port,
the authorization URL opened in the browser and printed for copy-paste; tokens stored."""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urlsplit

import httpx2
from mcp.shared.auth import AuthorizationCodeResult

from mcplock._version import __version__
from mcplock.auth.callback import LoopbackCallback, open_in_browser
from mcplock.auth.provider import build_provider
from mcplock.auth.store import StagedStore, TokenStore, describe
from mcplock.errors import ProbeError
from mcplock.lock.auth_spec import AuthSpec
from mcplock.lock.spec import ServerSpec, Transport
from mcplock.lock.templates import expand
from mcplock.probe.errors import HttpErrors
from mcplock.text.untrusted import sanitize

DEFAULT_LOGIN_TIMEOUT = 300.0
_HANDSHAKE_TIMEOUT = 30.0


class _Step:
    step = "the OAuth login"


def _read_stored_port(store: TokenStore, url: str) -> int:
    """Reads the token store: the loopback port a stored registration redirects to (0: none)."""
    uri = _first_redirect_uri((store.load(url) or {}).get("client_info"))
    if uri is None:
        return 0
    p = urlsplit(uri)
    return p.port if p.hostname in ("127.0.0.1", "localhost") and p.port else 0


def _first_redirect_uri(client_info: Any) -> str | None:
    """The first redirect URI a stored client registration lists (None: it lists none)."""
    c = client_info
    if isinstance(c, dict) and isinstance(c.get("redirect_uris"), list) and c["redirect_uris"]:
        return str(c["redirect_uris"][0])
    return None


def _open_callback(store: TokenStore, url: str, fixed_client: bool) -> LoopbackCallback:
    """Listen on the port a dynamically registered client was registered with when it is free
    (authorization servers compare redirect URIs); otherwise on a free port, and forget that
    registration so a new one carries the new redirect URI."""
    port = _read_stored_port(store, url)
    if port:
        try:
            return LoopbackCallback(port)
        except OSError:
            if not fixed_client:
                store.update(url, client_info=None)
    return LoopbackCallback(0)


async def login(
    spec: ServerSpec,
    environ: Mapping[str, str],
    *,
    timeout: float = DEFAULT_LOGIN_TIMEOUT,
    say: Callable[[str], None] = lambda s: None,
    open_browser: bool = True,
    client_name: str = "mcplock",
) -> dict[str, Any]:
    """Log in to ``spec`` and store the tokens. Returns what `auth status` would show.

    Sends one ``initialize`` to the server without the stored token, so the server asks
    for authorization and the whole flow runs (discovery, registration, browser, callback,
    token exchange); the session the request opened is closed again. The stored entry is
    replaced (atomically) only when the login succeeds; a failed login (denied, timed out,
    client rejected, interrupted) leaves the earlier token and its client registration in
    place, except a stored dynamic registration the token endpoint rejects (``invalid_client``),
    which is forgotten so the next login registers again.
    """
    url = expand(_http_url(spec), environ, spec.secrets)
    saved = TokenStore(environ)
    # the flow runs on a copy without the stored token (so the server asks for a login); the
    # copy replaces the stored entry only once the login succeeded: a failed one loses nothing
    store = StagedStore(saved, url, drop=("tokens", "expires_at"))
    auth = spec.auth or AuthSpec("oauth")
    callback: LoopbackCallback | None = None
    provider: Any = None
    try:
        if auth.method in ("client-credentials", "identity-assertion"):
            provider = build_provider(spec, environ, store=store)
        else:
            callback = _open_callback(store, url, fixed_client=bool(auth.client_id))
            provider = _browser_provider(spec, environ, store, callback, timeout, say, open_browser)
        resp = await _through(provider, spec, url, environ, client_name)
        if resp.status_code in (401, 403):
            raise _still_refused(spec, resp)
        return _read_and_commit(store, url)
    except BaseException:
        _read_and_forget_rejected(provider, saved, url)
        raise
    finally:
        if callback is not None:
            callback.close()


def _http_url(spec: ServerSpec) -> str:
    """The URL of a server OAuth can log in to: one over Streamable HTTP (others are refused)."""
    if spec.transport is not Transport.HTTP or not spec.url:
        raise ProbeError(
            "config",
            f"server `{spec.name}`: OAuth is supported over Streamable HTTP only",
            hint="use the server's /mcp endpoint with --transport http",
        )
    return spec.url


def _read_and_forget_rejected(provider: Any, saved: TokenStore, url: str) -> None:
    """Reads the token store after a failed login: a stored registration the token endpoint
    rejected is forgotten, so the next login registers anew."""
    if getattr(provider, "client_rejected", False) and saved.exists(url):
        saved.update(url, client_info=None)


async def _through(
    provider: Any, spec: ServerSpec, url: str, environ: Mapping[str, str], client_name: str
) -> httpx2.Response:
    """The handshake sent through the OAuth client (so the login happens on the way), with the
    server's own headers; a transport failure as the probe words it."""
    headers = {
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
        **{k: expand(v, environ, spec.secrets) for k, v in spec.headers.items()},
    }
    async with httpx2.AsyncClient(
        auth=provider, timeout=httpx2.Timeout(_HANDSHAKE_TIMEOUT), follow_redirects=True
    ) as client:
        try:
            return await _handshake(client, url, headers, client_name)
        except httpx2.HTTPError as e:
            errors = HttpErrors(spec, _HANDSHAKE_TIMEOUT, 64 * 1024, _Step())
            raise errors.exception(e, "the OAuth login") from None


def _read_and_commit(store: StagedStore, url: str) -> dict[str, Any]:
    """What the login stored, committed over the earlier entry — or, when the server asked for
    no login, nothing (the stored entry, any earlier token, is left as it was)."""
    state = describe(store.load(url))
    if not state.get("token"):
        state["note"] = "the server did not ask for a login: nothing was stored"
        return state
    store.commit()
    return state


def _browser_provider(
    spec: ServerSpec,
    environ: Mapping[str, str],
    store: StagedStore,
    callback: LoopbackCallback,
    timeout: float,
    say: Callable[[str], None],
    open_browser: bool,
) -> httpx2.Auth:
    """The authorization-code provider: the login URL said (and opened), the code awaited at
    ``callback``."""

    async def redirect_handler(auth_url: str) -> None:
        say(f"Log in to `{spec.name}` in your browser. If no browser opens, open this URL:\n\n  {auth_url}\n")
        if open_browser:
            await open_in_browser(auth_url)

    async def callback_handler() -> AuthorizationCodeResult:
        return await callback.wait(timeout, spec)

    return build_provider(
        spec,
        environ,
        redirect_uri=callback.redirect_uri,
        redirect_handler=redirect_handler,
        callback_handler=callback_handler,
        store=store,
    )


def _still_refused(spec: ServerSpec, resp: httpx2.Response) -> ProbeError:
    """A refusal after the login: the scopes the server asks for, when it says."""
    www = resp.headers.get("www-authenticate", "")
    why = f"HTTP {resp.status_code}"
    if "insufficient_scope" in www:
        m = re.search(r'scope="([^"]*)"', www)
        why += ": insufficient_scope" + (f", it asks for {sanitize(m.group(1), 200)}" if m else "")
    return ProbeError(
        "auth",
        f"server `{spec.name}` still refuses access after the login ({why})",
        hint="the account may lack access to this server, or it needs other scopes (--oauth-scopes)",
    )


def _rpc_result(resp: httpx2.Response) -> dict[str, Any]:
    """The ``result`` of a JSON-RPC answer sent as JSON or as a (finished) SSE stream; {} if none."""
    for b in _bodies(resp):
        with contextlib.suppress(ValueError):
            obj = json.loads(b)
            res = obj.get("result") if isinstance(obj, dict) else None
            if isinstance(res, dict):
                return res
    return {}


def _bodies(resp: httpx2.Response) -> list[str]:
    """The JSON texts of an answer: its body, or each ``data:`` line of an SSE stream."""
    text = resp.text
    if "text/event-stream" in resp.headers.get("content-type", ""):
        return [line[5:].strip() for line in text.splitlines() if line.startswith("data:")]
    return [text]


def _list_methods(caps: Any) -> list[str]:
    caps = caps if isinstance(caps, dict) else {}
    return [
        m
        for cap, m in (("tools", "tools/list"), ("prompts", "prompts/list"), ("resources", "resources/list"))
        if cap in caps
    ] or ["tools/list"]


async def _handshake(
    client: httpx2.AsyncClient, url: str, headers: dict[str, str], client_name: str
) -> httpx2.Response:
    """What a probe sends, through the OAuth client, in the server's era: ``server/discover``
    and the list methods with the 2026-07-28 envelope, or (a legacy server) ``initialize``,
    ``notifications/initialized`` and the list methods, so a login happens (and a scope
    step-up with it) whichever of them the server protects — many answer the opening without
    a token and want one from ``tools/list`` on. Stops at the first answer that is not a
    success and returns it (else the last one); a session that went well is closed again."""
    from mcplock.lock.param_headers import headers as mcp_headers
    from mcplock.probe import era

    env = era.envelope(era.MODERN, {}, {"name": client_name, "version": __version__})
    req = {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": env}}
    r = await client.post(
        url, content=json.dumps(req).encode(), headers={**headers, **mcp_headers(req, era.MODERN, {})}
    )
    if r.status_code in (401, 403):
        return r
    found = _rpc_result(r) if r.status_code < 300 else {}
    versions = found.get("supportedVersions")
    if isinstance(versions, list) and era.MODERN in versions:
        return await _modern_lists(client, url, headers, env, found.get("capabilities"))
    return await _legacy_session(client, url, headers, client_name)


async def _modern_lists(
    client: httpx2.AsyncClient, url: str, headers: dict[str, str], env: dict[str, Any], caps: Any
) -> httpx2.Response:
    """The list methods in the 2026-07-28 envelope, up to the first that is not a success."""
    from mcplock.lock.param_headers import headers as mcp_headers
    from mcplock.probe import era

    r: httpx2.Response | None = None
    for i, method in enumerate(_list_methods(caps), 2):
        req = {"jsonrpc": "2.0", "id": i, "method": method, "params": {"_meta": env}}
        r = await client.post(
            url, content=json.dumps(req).encode(), headers={**headers, **mcp_headers(req, era.MODERN, {})}
        )
        if r.status_code >= 300:
            break
    assert r is not None  # _list_methods names one at least
    return r


async def _legacy_session(
    client: httpx2.AsyncClient, url: str, headers: dict[str, str], client_name: str
) -> httpx2.Response:
    """``initialize``, ``notifications/initialized`` and the list methods in the session the
    server opens, up to the first answer that is not a success; a session that went well is
    closed (never after a refusal: a DELETE would only be refused again)."""
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": client_name, "version": __version__},
        },
    }
    resp = await client.post(url, content=json.dumps(body).encode(), headers=headers)
    if resp.status_code >= 300:
        return resp
    result = _rpc_result(resp)
    sid = resp.headers.get("mcp-session-id")
    h = {**headers, **({"Mcp-Session-Id": sid} if sid else {}), **_version_header(result.get("protocolVersion"))}
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    r = await client.post(url, content=json.dumps(note).encode(), headers=h)
    for i, method in enumerate(_list_methods(result.get("capabilities")), 2):
        if r.status_code >= 300:
            break
        req = {"jsonrpc": "2.0", "id": i, "method": method, "params": {}}
        r = await client.post(url, content=json.dumps(req).encode(), headers=h)
    if sid and r.status_code < 300:
        with contextlib.suppress(Exception):
            await client.delete(url, headers=h)
    return r


def _version_header(version: Any) -> dict[str, str]:
    """``MCP-Protocol-Version`` for the version the server chose, when it is a plausible one."""
    if isinstance(version, str) and re.fullmatch(r"[0-9A-Za-z._-]{1,40}", version):
        return {"MCP-Protocol-Version": version}
    return {}
