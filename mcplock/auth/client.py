"""The HTTP client a probe uses for a server on the OAuth path: httpx2 carrying the SDK's
provider. :func:`oauth_client` is never interactive: a stored token is used, refreshed when it
has expired (at the token endpoint discovered at login, remembered in the store), client
credentials are exchanged; when a person would have to log in, the probe fails with a
ProbeError whose next action is the command that logs in (``mcplock auth login NAME``).

:func:`login_client` is for a run that may log in (``mcplock call --login``, or at a
terminal): the browser flow runs inside the request that needed it — a first login, or a
scope step-up when the server answers ``403 insufficient_scope`` (say, on ``tools/call``
only) — and the SDK sends that request again with the new token."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlsplit

import httpx2
from mcp.shared.auth import AuthorizationCodeResult

from mcplock.auth.provider import AuthCodeProvider, build_provider
from mcplock.auth.store import TokenStore
from mcplock.errors import COMMAND, ProbeError
from mcplock.lock.spec import ServerSpec, Transport
from mcplock.lock.templates import expand
from mcplock.probe import ProbeOptions
from mcplock.probe.errors import login_action
from mcplock.probe.http import new_client
from mcplock.text.untrusted import sanitize

if TYPE_CHECKING:
    from mcplock.auth.callback import LoopbackCallback

NO_LOGIN = ("client-credentials", "identity-assertion")  # grants without a person at a browser


def _not_interactive(spec: ServerSpec, provider: AuthCodeProvider) -> tuple[Callable[[str], Any], Callable[[], Any]]:
    """Handlers for a probe: a person would have to log in, so stop with the command that does it."""
    retry = f"run `{COMMAND}` (or this command again with --login)"

    async def redirect(auth_url: str) -> None:
        wanted = parse_qs(urlsplit(auth_url).query).get("scope", [""])[0].split()
        granted = set(((provider.context.current_tokens and provider.context.current_tokens.scope) or "").split())
        missing = [x for x in wanted if x not in granted]
        if provider.had_token and granted and missing:  # a scope step-up (403 insufficient_scope)
            raise ProbeError(
                "auth",
                f"server `{spec.name}` needs more OAuth scopes than the stored login grants: {' '.join(missing)}",
                action=login_action(spec, retry, scopes=" ".join(wanted), offers_retry=True),
            )
        now, then = provider.context.auth_server_url, provider.token_server
        if provider.had_token and then and now and now.rstrip("/") != then.rstrip("/"):
            # the resource names another authorization server now (SEP-2352): the stored token
            # and registration belong to the old one; the login registers with the new one
            raise ProbeError(
                "auth",
                f"server `{spec.name}` now uses another authorization server ({sanitize(now, 200)}; the stored "
                f"login is from {sanitize(then, 200)}): a new login is required",
                action=login_action(spec, retry, offers_retry=True, again=True),
            )
        if provider.refresh_error:
            raise ProbeError(
                "auth",
                f"server `{spec.name}`: the authorization server refused to refresh the stored OAuth token "
                f"({provider.refresh_error}): it was revoked or has expired; a new login is required",
                action=login_action(spec, retry, offers_retry=True),
            )
        if provider.had_token:
            raise ProbeError(
                "auth",
                f"server `{spec.name}` rejected the stored OAuth token: it was revoked or has expired; "
                "a new login is required",
                action=login_action(spec, retry, offers_retry=True),
            )
        raise ProbeError(
            "auth",
            f"server `{spec.name}` needs credentials: an OAuth login is required",
            action=login_action(spec, retry, offers_retry=True),
        )

    async def callback() -> AuthorizationCodeResult:  # pragma: no cover - redirect() always raises first
        raise ProbeError("auth", f"server `{spec.name}`: login required", action=login_action(spec, f"run `{COMMAND}`"))

    return redirect, callback


def oauth_client(spec: ServerSpec, opts: ProbeOptions, environ: Mapping[str, str]) -> httpx2.AsyncClient:
    """The probe's client for a server on the OAuth path (never interactive)."""
    if spec.transport is not Transport.HTTP:
        raise ProbeError(
            "config",
            f"server `{spec.name}`: OAuth is supported over Streamable HTTP only",
            hint="use the server's /mcp endpoint with --transport http",
        )
    provider = build_provider(spec, environ)
    if isinstance(provider, AuthCodeProvider):  # a grant with a person at a browser: never one here
        provider.context.redirect_handler, provider.context.callback_handler = _not_interactive(spec, provider)
    return new_client(opts, auth=provider)


class _ClientWithCallback(httpx2.AsyncClient):
    """An httpx2 client that closes the login's loopback listener with itself."""

    callback: LoopbackCallback | None = None

    async def aclose(self) -> None:
        try:
            await super().aclose()
        finally:
            if self.callback is not None:
                self.callback.close()
                self.callback = None


def _no_login(spec: ServerSpec) -> bool:
    """Whether a run of this server cannot log in on the way: it is not over Streamable HTTP,
    or its grant has no person in it (client credentials, an identity assertion)."""
    return spec.transport is not Transport.HTTP or (spec.auth is not None and spec.auth.method in NO_LOGIN)


def login_client(
    spec: ServerSpec, opts: ProbeOptions, environ: Mapping[str, str], say: Callable[[str], None]
) -> httpx2.AsyncClient:
    """The client of a run that may log in: when the server asks for a login or for more scopes,
    the authorization URL is shown through ``say`` and opened in the browser, the loopback
    callback receives the code, and the request goes out again. The wait for the browser is
    bounded by the run's timeout (the error then says to raise ``--timeout``)."""
    if _no_login(spec):
        return oauth_client(spec, opts, environ)  # (nothing to log in to: no person in these grants, or the SSE error)
    from mcplock.auth.callback import LoopbackCallback, open_in_browser
    from mcplock.auth.login import _read_stored_port

    store = TokenStore(environ)
    url = expand(spec.url or "", environ, spec.secrets)
    # the port the client was registered with when it is free; else any (RFC 8252 §7.3: loopback
    # redirects match on any port). Unlike `auth login`, the registration is never dropped here:
    # most runs need no login at all, and another run may hold the port right now.
    try:
        callback = LoopbackCallback(_read_stored_port(store, url))
    except OSError:
        callback = LoopbackCallback(0)
    try:

        async def redirect(auth_url: str) -> None:
            scope = parse_qs(urlsplit(auth_url).query).get("scope", [""])[0]
            say(
                f"Log in to `{spec.name}` in your browser{f' (scopes: {scope})' if scope else ''}. "
                f"If no browser opens, open this URL:\n\n  {auth_url}\n"
            )
            await open_in_browser(auth_url)

        async def wait() -> AuthorizationCodeResult:
            return await callback.wait(max(opts.timeout * 0.9, 1.0), spec)

        provider = build_provider(
            spec,
            environ,
            redirect_uri=callback.redirect_uri,
            redirect_handler=redirect,
            callback_handler=wait,
            store=store,
        )
        client = new_client(opts, auth=provider, cls=_ClientWithCallback)
        assert isinstance(client, _ClientWithCallback)
    except BaseException:
        callback.close()
        raise
    client.callback = callback
    return client
