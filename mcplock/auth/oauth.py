"""OAuth through the MCP SDK: authorization code + PKCE (interactive login) and client
credentials (CI), with tokens in :class:`mcplock.auth.store.TokenStore`.

Imports the SDK (``mcp``, ``httpx2``): only the OAuth path may import this module.

Two ways in:

- :func:`make_client` — the HTTP client a probe uses for a server on the OAuth path. It is
  never interactive: a stored token is used, refreshed when it has expired (the refresh
  goes to the token endpoint discovered at login, remembered in the store), client
  credentials are exchanged, but when a person would have to log in it raises a
  :class:`ProbeError` that names the command to run (``mcplock auth login NAME``).
- :func:`login` — the interactive authorization-code flow (``mcplock auth login``, or
  ``--login`` / a TTY on the probing commands): protected-resource and authorization-server
  metadata discovery, dynamic client registration or a pre-registered client, a loopback
  callback on a free port, the authorization URL opened with :mod:`webbrowser` (``BROWSER``
  chooses the browser) and printed for copy-paste.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import json
import logging
import re
import threading
import time
import warnings
import webbrowser
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, AsyncIterator, Callable, Mapping
from urllib.parse import parse_qs, urlsplit

import httpx
import httpx2
from mcp.client.auth import OAuthClientProvider, OAuthFlowError, OAuthRegistrationError, OAuthTokenError
from mcp.client.auth.extensions.client_credentials import ClientCredentialsOAuthProvider
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthMetadata,
    OAuthToken,
    ProtectedResourceMetadata,
)
from pydantic import ValidationError

import mcplock
from mcplock.auth.store import TokenStore
from mcplock.errors import ProbeError
from mcplock.spec import AuthSpec, ServerSpec, expand

# The SDK logs a traceback ("OAuth flow error") before re-raising; mcplock reports the error itself.
for _name in ("mcp.client.auth", "mcp.client.auth.oauth2"):
    _log = logging.getLogger(_name)
    _log.addHandler(logging.NullHandler())
    _log.propagate = False

CALLBACK_PATH = "/callback"
DEFAULT_LOGIN_TIMEOUT = 300.0


# --- storage ---------------------------------------------------------------------------------


class FileTokenStorage:
    """The SDK's ``TokenStorage`` protocol over the token store (one file per server URL)."""

    def __init__(self, store: TokenStore, url: str, method: str) -> None:
        self.store = store
        self.url = url
        self.method = method
        self.provider: OAuthClientProvider | None = None  # set by the provider, for its metadata

    def data(self) -> dict[str, Any]:
        return self.store.load(self.url) or {}

    async def get_tokens(self) -> OAuthToken | None:
        t = self.data().get("tokens")
        if not isinstance(t, dict):
            return None
        try:
            return OAuthToken.model_validate(t)
        except ValidationError:
            return None

    async def set_tokens(self, tokens: OAuthToken) -> None:
        fields: dict[str, Any] = {
            "method": self.method,
            "tokens": tokens.model_dump(mode="json", exclude_none=True),
            "expires_at": (time.time() + tokens.expires_in) if tokens.expires_in else None,
            "obtained_at": int(time.time()),
        }
        ctx = self.provider.context if self.provider is not None else None
        if ctx is not None:
            if ctx.oauth_metadata is not None:
                fields["oauth_metadata"] = ctx.oauth_metadata.model_dump(mode="json", exclude_none=True)
            if ctx.protected_resource_metadata is not None:
                fields["protected_resource_metadata"] = ctx.protected_resource_metadata.model_dump(
                    mode="json", exclude_none=True)
            if ctx.auth_server_url:
                fields["auth_server_url"] = ctx.auth_server_url
        self.store.update(self.url, **fields)

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        c = self.data().get("client_info")
        if not isinstance(c, dict):
            return None
        try:
            return OAuthClientInformationFull.model_validate(c)
        except ValidationError:
            return None

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.store.update(self.url, client_info=client_info.model_dump(mode="json", exclude_none=True))


# --- providers -------------------------------------------------------------------------------


class _Restoring:
    """What a later process needs from an earlier login: the token's absolute expiry (so an
    expired token is refreshed before it is sent) and the discovered metadata (so the refresh
    goes to the right token endpoint). Also remembers why a flow ended, for the messages."""

    context: Any
    had_token = False
    refresh_error: str | None = None
    fixed_client: OAuthClientInformationFull | None = None

    async def _initialize(self) -> None:
        await super()._initialize()  # type: ignore[misc]
        storage: FileTokenStorage = self.context.storage
        data = storage.data()
        if self.fixed_client is not None:  # never stored: its secret comes from the environment each time
            self.context.client_info = self.fixed_client
        self.had_token = self.context.current_tokens is not None
        exp = data.get("expires_at")
        if self.context.current_tokens is not None and isinstance(exp, (int, float)):
            self.context.token_expiry_time = float(exp)
        with contextlib.suppress(ValidationError, TypeError):
            if isinstance(data.get("oauth_metadata"), dict):
                self.context.oauth_metadata = OAuthMetadata.model_validate(data["oauth_metadata"])
            if isinstance(data.get("protected_resource_metadata"), dict):
                self.context.protected_resource_metadata = ProtectedResourceMetadata.model_validate(
                    data["protected_resource_metadata"])
        if isinstance(data.get("auth_server_url"), str):
            self.context.auth_server_url = data["auth_server_url"]

    async def _handle_refresh_response(self, response: httpx2.Response) -> bool:
        if response.status_code != 200:
            body = await response.aread()
            self.refresh_error = _oauth_error(body) or f"HTTP {response.status_code}"
        return await super()._handle_refresh_response(response)  # type: ignore[misc]


class AuthCodeProvider(_Restoring, OAuthClientProvider):
    wanted_scopes: str | None = None  # --oauth-scopes / a step-up: added to what the server challenges with

    async def _perform_authorization(self) -> httpx2.Request:
        if self.wanted_scopes:
            from mcp.client.auth.utils import union_scopes

            self.context.client_metadata.scope = union_scopes(self.context.client_metadata.scope, self.wanted_scopes)
        return await super()._perform_authorization()

    def _confidential_auth(self) -> None:
        """A pre-registered confidential client authenticates at the token endpoint the way the
        authorization server says it supports: client_secret_basic (RFC 8414's default when
        it says nothing), else client_secret_post."""
        info = self.context.client_info
        if self.fixed_client is None or info is None or not info.client_secret:
            return
        meta = self.context.oauth_metadata
        supported = (meta.token_endpoint_auth_methods_supported if meta is not None else None) or []
        method = "client_secret_basic"
        if supported and "client_secret_basic" not in supported and "client_secret_post" in supported:
            method = "client_secret_post"
        if info.token_endpoint_auth_method != method:
            self.context.client_info = info.model_copy(update={"token_endpoint_auth_method": method})

    async def _exchange_token_authorization_code(self, auth_code: str, code_verifier: str) -> httpx2.Request:
        self._confidential_auth()
        return await super()._exchange_token_authorization_code(auth_code, code_verifier)

    async def _refresh_token(self) -> httpx2.Request:
        self._confidential_auth()
        return await super()._refresh_token()


class ClientCredentialsProvider(_Restoring, ClientCredentialsOAuthProvider):
    pass


def _oauth_error(body: bytes) -> str | None:
    """``error`` (and ``error_description``) of an OAuth error body, sanitized."""
    from mcplock.untrusted import sanitize

    try:
        obj = json.loads(body.decode("utf-8", "replace"))
    except ValueError:
        return None
    if not isinstance(obj, dict) or not isinstance(obj.get("error"), str):
        return None
    out = sanitize(obj["error"], 60)
    if isinstance(obj.get("error_description"), str) and obj["error_description"].strip():
        out += ": " + sanitize(obj["error_description"].strip(), 200)
    return out


# --- loopback callback -----------------------------------------------------------------------


class _CallbackServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True  # the port of an earlier login may be in TIME_WAIT
    result: dict[str, str] | None = None
    done: threading.Event


class _CallbackHandler(BaseHTTPRequestHandler):
    server: _CallbackServer

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        pass

    def do_GET(self) -> None:  # noqa: N802 - stdlib name
        parts = urlsplit(self.path)
        if parts.path != CALLBACK_PATH:
            self.send_error(404)
            return
        q = {k: v[0] for k, v in parse_qs(parts.query).items()}
        if "code" in q or "error" in q:
            if self.server.result is None:
                self.server.result = q
            self.server.done.set()
        ok = "code" in q
        text = ("mcplock: logged in. You can close this window." if ok
                else f"mcplock: the login failed ({html.escape(q.get('error', 'no code'))}). You can close this window.")
        body = f"<!doctype html><meta charset=utf-8><title>mcplock</title><p>{text}</p>\n".encode()
        self.send_response(200 if ok else 400)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class LoopbackCallback:
    """An HTTP listener on 127.0.0.1 that receives the authorization redirect."""

    def __init__(self, port: int = 0) -> None:
        self.server = _CallbackServer(("127.0.0.1", port), _CallbackHandler)
        self.server.done = threading.Event()
        self.port = self.server.server_address[1]
        self.redirect_uri = f"http://127.0.0.1:{self.port}{CALLBACK_PATH}"
        self._thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
        self._thread.start()

    async def wait(self, timeout: float, name: str, login_cmd: str) -> AuthorizationCodeResult:
        got = await asyncio.to_thread(self.server.done.wait, timeout)
        q = self.server.result
        self.server.result = None  # ready for another authorization in the same login (a scope step-up)
        self.server.done.clear()
        if not got or q is None:
            raise ProbeError(
                "auth",
                f"server `{name}`: the OAuth callback timed out: no answer from the browser within {timeout:g} s",
                hint=f"finish the login in the browser within the time, or run `{login_cmd}` again "
                "(`--timeout SECONDS` gives more time)",
            )
        if "error" in q:
            from mcplock.untrusted import sanitize

            why = sanitize(q["error"], 60)
            if q.get("error_description"):
                why += ": " + sanitize(q["error_description"], 200)
            denied = q["error"] == "access_denied"
            raise ProbeError(
                "auth",
                f"server `{name}`: the authorization server {'denied the login' if denied else 'rejected the login'} ({why})",
                hint="log in again and approve the access" if denied
                else "check the client (`--oauth-client-id`) and the scopes (`--oauth-scopes`)",
            )
        return AuthorizationCodeResult(code=q["code"], state=q.get("state"), iss=q.get("iss"))

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


# --- building the provider -------------------------------------------------------------------


def login_command(spec: ServerSpec) -> str:
    if spec.name == "inspect" and spec.url:
        return f"mcplock auth login {spec.url}"
    return f"mcplock auth login {spec.name}"


def _client_secret(spec: ServerSpec, auth: AuthSpec, environ: Mapping[str, str]) -> str | None:
    if auth.client_secret is None:
        return None
    value = expand(auth.client_secret, environ, spec.secrets)
    if not value:
        raise ProbeError(
            "config",
            f"server `{spec.name}`: the OAuth client secret `{auth.client_secret}` is empty: the variable is not set",
            hint="export the variable the template names",
        )
    return value


def build_provider(
    spec: ServerSpec,
    environ: Mapping[str, str],
    *,
    redirect_uri: str | None = None,
    redirect_handler: Callable[[str], Any] | None = None,
    callback_handler: Callable[[], Any] | None = None,
    store: TokenStore | None = None,
) -> OAuthClientProvider:
    """The SDK provider for ``spec`` (client credentials, or authorization code)."""
    url = expand(spec.url or "", environ, spec.secrets)
    store = store or TokenStore(environ)
    auth = spec.auth or AuthSpec("oauth")
    if auth.method == "client-credentials":
        if not auth.client_id:
            raise ProbeError("config", f"server `{spec.name}`: client credentials need a client id",
                             hint="pass --oauth-client-id ID --oauth-client-secret '${VAR}'")
        secret = _client_secret(spec, auth, environ)
        if secret is None:
            raise ProbeError("config", f"server `{spec.name}`: client credentials need a client secret",
                             hint="pass --oauth-client-secret '${VAR}' and export VAR")
        storage = FileTokenStorage(store, url, "client-credentials")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # `issuer` omitted: discovery names the authorization server
            provider: OAuthClientProvider = ClientCredentialsProvider(
                server_url=url, storage=storage, client_id=auth.client_id, client_secret=secret,
                token_endpoint_auth_method="client_secret_basic", scope=auth.scopes,
            )
        storage.provider = provider
        return provider
    storage = FileTokenStorage(store, url, "oauth")
    uri = redirect_uri or "http://127.0.0.1/callback"
    metadata = OAuthClientMetadata(
        redirect_uris=[uri],  # type: ignore[list-item]
        client_name="mcplock",
        software_id="mcplock",
        software_version=mcplock.__version__,
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        token_endpoint_auth_method="none",
        scope=auth.scopes,
    )
    try:
        provider = AuthCodeProvider(url, metadata, storage, redirect_handler, callback_handler,
                                    client_metadata_url=auth.client_metadata_url)
    except ValueError as e:  # the SDK's check of a client ID metadata document URL
        raise ProbeError("config", f"server `{spec.name}`: {e}",
                         hint="--oauth-client-metadata-url takes an https:// URL with a path") from None
    provider.wanted_scopes = auth.scopes
    if auth.client_id:
        secret = _client_secret(spec, auth, environ)
        provider.fixed_client = OAuthClientInformationFull(
            client_id=auth.client_id, client_secret=secret, redirect_uris=[uri],  # type: ignore[list-item]
            token_endpoint_auth_method="client_secret_basic" if secret else "none",  # see _confidential_auth
            grant_types=["authorization_code", "refresh_token"], scope=auth.scopes,
        )
    storage.provider = provider
    return provider


def _not_interactive(spec: ServerSpec, provider: Any) -> tuple[Callable[[str], Any], Callable[[], Any]]:
    """Handlers for a probe: a person would have to log in, so stop with the command that does it."""

    async def redirect(auth_url: str) -> None:
        cmd = login_command(spec)
        hint = f"run `{cmd}` (or this command again with --login)"
        wanted = parse_qs(urlsplit(auth_url).query).get("scope", [""])[0].split()
        granted = set(((provider.context.current_tokens and provider.context.current_tokens.scope) or "").split())
        missing = [x for x in wanted if x not in granted]
        if provider.had_token and granted and missing:  # a scope step-up (403 insufficient_scope)
            scopes = " ".join(wanted)
            err = ProbeError(
                "auth",
                f"server `{spec.name}` needs more OAuth scopes than the stored login grants: {' '.join(missing)}",
                hint=f"run `{cmd} --oauth-scopes '{scopes}'` (or this command again with --login)",
            )
            err.oauth_scopes = scopes  # type: ignore[attr-defined]
            raise err
        if provider.refresh_error:
            raise ProbeError(
                "auth",
                f"server `{spec.name}`: the authorization server refused to refresh the stored OAuth token "
                f"({provider.refresh_error}): it was revoked or has expired; a new login is required",
                hint=hint,
            )
        if provider.had_token:
            raise ProbeError(
                "auth",
                f"server `{spec.name}` rejected the stored OAuth token: it was revoked or has expired; "
                "a new login is required",
                hint=hint,
            )
        raise ProbeError("auth", f"server `{spec.name}` needs credentials: an OAuth login is required", hint=hint)

    async def callback() -> AuthorizationCodeResult:  # pragma: no cover - redirect() always raises first
        raise ProbeError("auth", f"server `{spec.name}`: login required", hint=f"run `{login_command(spec)}`")

    return redirect, callback


# --- errors ----------------------------------------------------------------------------------


def translate(e: BaseException, spec: ServerSpec, *, cc: bool = False) -> BaseException:
    """An SDK / httpx2 exception as what the probe code expects: a ProbeError, or an httpx error."""
    if isinstance(e, ProbeError):
        return e
    if isinstance(e, httpx2.HTTPError):
        cls = getattr(httpx, type(e).__name__, None)
        if not (isinstance(cls, type) and issubclass(cls, httpx.HTTPError)):
            cls = httpx.TransportError
        try:
            new = cls(str(e))
        except TypeError:  # pragma: no cover - HTTPStatusError etc. need more arguments
            new = httpx.TransportError(str(e))
        new.__cause__ = e
        return new
    from mcplock.untrusted import sanitize

    name = spec.name
    text = sanitize(str(e), 300)
    login = login_command(spec)
    if isinstance(e, OAuthRegistrationError):
        return ProbeError(
            "auth",
            f"server `{name}`: the authorization server rejected the client registration: {text}",
            hint="register a client with the provider and pass it with --oauth-client-id",
        )
    if isinstance(e, OAuthTokenError):
        low = text.lower()
        if "invalid_client" in low or "unauthorized_client" in low or "(401)" in low:
            hint = ("check --oauth-client-id and that the secret variable holds the right value" if cc
                    else f"check --oauth-client-id, or drop it to register dynamically; then run `{login}`")
            return ProbeError("auth", f"server `{name}`: the authorization server rejected the client: {text}", hint=hint)
        if "invalid_scope" in low:
            return ProbeError("auth", f"server `{name}`: the authorization server rejected the scopes: {text}",
                              hint="check --oauth-scopes")
        return ProbeError("auth", f"server `{name}`: the OAuth token request failed: {text}",
                          hint=f"run `{login}` again" if not cc else "check the client id and secret")
    if isinstance(e, OAuthFlowError):
        return ProbeError("auth", f"server `{name}`: OAuth failed: {text}",
                          hint=f"run `{login}` again; if it persists, the server's OAuth set-up may be broken")
    if isinstance(e, ValidationError):
        return ProbeError("auth", f"server `{name}`: the authorization server sent invalid OAuth metadata or tokens",
                          hint="the server's OAuth set-up looks broken; ask its operators")
    return e


# --- the probe's client ----------------------------------------------------------------------


class OAuthHttpClient:
    """The subset of ``httpx.AsyncClient`` the probe uses, over an ``httpx2.AsyncClient`` with
    the SDK's auth; httpx2 errors come out as httpx errors, SDK errors as ProbeErrors."""

    def __init__(self, client: httpx2.AsyncClient, spec: ServerSpec, cc: bool) -> None:
        self._client = client
        self._spec = spec
        self._cc = cc

    @contextlib.asynccontextmanager
    async def stream(self, method: str, url: str, **kw: Any) -> AsyncIterator[httpx2.Response]:
        try:
            async with self._client.stream(method, url, **kw) as resp:
                yield resp
        except ProbeError:
            raise
        except Exception as e:
            new = translate(e, self._spec, cc=self._cc)
            if new is e:
                raise
            raise new from (e if isinstance(new, httpx.HTTPError) else None)

    async def post(self, url: str, **kw: Any) -> httpx2.Response:
        async with self.stream("POST", url, **kw) as r:
            await r.aread()
        return r

    async def delete(self, url: str, **kw: Any) -> httpx2.Response:
        async with self.stream("DELETE", url, **kw) as r:
            await r.aread()
        return r

    async def aclose(self) -> None:
        await self._client.aclose()


def make_client(spec: ServerSpec, opts: Any, environ: Mapping[str, str]) -> OAuthHttpClient:
    """The probe's client for a server on the OAuth path (never interactive)."""
    if spec.transport != "http":
        raise ProbeError("config", f"server `{spec.name}`: OAuth is supported over Streamable HTTP only",
                         hint="use the server's /mcp endpoint with --transport http")
    provider = build_provider(spec, environ)
    if not (spec.auth and spec.auth.method == "client-credentials"):
        provider.context.redirect_handler, provider.context.callback_handler = _not_interactive(spec, provider)
    client = httpx2.AsyncClient(
        auth=provider,
        timeout=httpx2.Timeout(opts.timeout),
        follow_redirects=True,
        headers={"User-Agent": f"{opts.client_name}/{opts.client_version}"},
    )
    return OAuthHttpClient(client, spec, cc=bool(spec.auth and spec.auth.method == "client-credentials"))


# --- interactive login -----------------------------------------------------------------------


def _stored_port(store: TokenStore, url: str) -> int:
    c = (store.load(url) or {}).get("client_info")
    if isinstance(c, dict) and isinstance(c.get("redirect_uris"), list) and c["redirect_uris"]:
        p = urlsplit(str(c["redirect_uris"][0]))
        if p.hostname in ("127.0.0.1", "localhost") and p.port:
            return p.port
    return 0


def _open_callback(store: TokenStore, url: str, fixed_client: bool) -> LoopbackCallback:
    """Listen on the port a dynamically registered client was registered with when it is free
    (authorization servers compare redirect URIs); otherwise on a free port, and forget that
    registration so a new one carries the new redirect URI."""
    port = _stored_port(store, url)
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

    Sends one ``initialize`` to the server with any stored token dropped, so the server asks
    for authorization and the whole flow runs (discovery, registration, browser, callback,
    token exchange); the session the request opened is closed again.
    """
    from mcplock.auth.store import describe

    if spec.transport != "http" or not spec.url:
        raise ProbeError("config", f"server `{spec.name}`: OAuth is supported over Streamable HTTP only",
                         hint="use the server's /mcp endpoint with --transport http")
    url = expand(spec.url, environ, spec.secrets)
    store = TokenStore(environ)
    auth = spec.auth or AuthSpec("oauth")
    cc = auth.method == "client-credentials"
    if store.exists(url):
        store.update(url, tokens=None, expires_at=None)
    callback: LoopbackCallback | None = None
    cmd = login_command(spec)
    try:
        if cc:
            provider = build_provider(spec, environ, store=store)
        else:
            callback = _open_callback(store, url, fixed_client=bool(auth.client_id))
            cb = callback

            async def redirect_handler(auth_url: str) -> None:
                say(f"Log in to `{spec.name}` in your browser. If no browser opens, open this URL:\n\n  {auth_url}\n")
                if open_browser:
                    with contextlib.suppress(Exception):
                        await asyncio.to_thread(webbrowser.open, auth_url)

            async def callback_handler() -> AuthorizationCodeResult:
                return await cb.wait(timeout, spec.name, cmd)

            provider = build_provider(spec, environ, redirect_uri=callback.redirect_uri,
                                      redirect_handler=redirect_handler, callback_handler=callback_handler, store=store)
        headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
                   **{k: expand(v, environ, spec.secrets) for k, v in spec.headers.items()}}
        async with httpx2.AsyncClient(auth=provider, timeout=httpx2.Timeout(30.0), follow_redirects=True) as client:
            try:
                resp = await _handshake(client, url, headers, client_name)
            except ProbeError:
                raise
            except httpx2.HTTPError as e:
                from mcplock.probe._http import HttpErrors
                from mcplock.probe._common import State

                raise HttpErrors(spec, _Opts(), State()).exception(translate(e, spec), "the OAuth login") from None
            except Exception as e:
                new = translate(e, spec, cc=cc)
                if new is e:
                    raise
                raise new from None
        if resp.status_code in (401, 403):
            from mcplock.untrusted import sanitize

            www = resp.headers.get("www-authenticate", "")
            why = f"HTTP {resp.status_code}"
            if "insufficient_scope" in www:
                m = re.search(r'scope="([^"]*)"', www)
                why += ": insufficient_scope" + (f", it asks for {sanitize(m.group(1), 200)}" if m else "")
            raise ProbeError("auth", f"server `{spec.name}` still refuses access after the login ({why})",
                             hint="the account may lack access to this server, or it needs other scopes (--oauth-scopes)")
        state = describe(store.load(url))
        if not state.get("token"):
            state["note"] = "the server did not ask for a login: nothing was stored"
        return state
    finally:
        if callback is not None:
            callback.close()


class _Opts:
    timeout = 30.0


def _rpc_result(resp: httpx2.Response) -> dict[str, Any]:
    """The ``result`` of a JSON-RPC answer sent as JSON or as a (finished) SSE stream; {} if none."""
    text = resp.text
    bodies = [text]
    if "text/event-stream" in resp.headers.get("content-type", ""):
        bodies = [line[5:].strip() for line in text.splitlines() if line.startswith("data:")]
    for b in bodies:
        with contextlib.suppress(ValueError):
            obj = json.loads(b)
            if isinstance(obj, dict) and isinstance(obj.get("result"), dict):
                return obj["result"]
    return {}


async def _handshake(client: httpx2.AsyncClient, url: str, headers: dict[str, str], client_name: str) -> httpx2.Response:
    """What a probe sends, through the OAuth client: ``initialize``, ``notifications/initialized``
    and the list methods the server announces, so a login happens (and a scope step-up with it)
    whichever of them the server protects — many answer ``initialize`` without a token and
    want one from ``tools/list`` on. Stops at the first answer that is not a success and
    returns it (else the last one); a session that went well is closed again."""
    body = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": client_name, "version": mcplock.__version__}}}
    resp = await client.post(url, content=json.dumps(body).encode(), headers=headers)
    if resp.status_code >= 300:
        return resp
    result = _rpc_result(resp)
    sid = resp.headers.get("mcp-session-id")
    version = result.get("protocolVersion")
    h = {**headers, **({"Mcp-Session-Id": sid} if sid else {}),
         **({"MCP-Protocol-Version": version} if isinstance(version, str) and re.fullmatch(r"[0-9A-Za-z._-]{1,40}", version)
            else {})}
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    r = await client.post(url, content=json.dumps(note).encode(), headers=h)
    caps = result.get("capabilities") if isinstance(result.get("capabilities"), dict) else {}
    methods = [m for cap, m in (("tools", "tools/list"), ("prompts", "prompts/list"), ("resources", "resources/list"))
               if cap in caps] or ["tools/list"]
    for i, method in enumerate(methods, 2):
        if r.status_code >= 300:
            break
        req = {"jsonrpc": "2.0", "id": i, "method": method, "params": {}}
        r = await client.post(url, content=json.dumps(req).encode(), headers=h)
    if sid and r.status_code < 300:  # (never after a refusal: a DELETE would only be refused again)
        with contextlib.suppress(Exception):
            await client.delete(url, headers=h)
    return r
