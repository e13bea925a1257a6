"""OAuth for remote MCP servers.

- :mod:`mcplock.auth.store`: the token store outside the repo (light: no SDK import).
- :mod:`mcplock.auth.provider`: the MCP SDK's OAuth providers (an ``httpx2.Auth`` each:
  authorization code + PKCE, client credentials for CI) over that store, through
  :mod:`mcplock.auth.token_storage`; their failures as next steps: :mod:`mcplock.auth.oauth_errors`.
- :mod:`mcplock.auth.assertion`: the identity-assertion provider (an ID token exchanged at the
  identity provider).
- :mod:`mcplock.auth.client`: the probe's HTTP client on the OAuth path (never interactive).
- :mod:`mcplock.auth.callback`: the loopback callback and the browser of an interactive login.
- :mod:`mcplock.auth.login`: the interactive login flow.

This package module stays light: the SDK is imported only when a probe really uses OAuth,
because importing it costs more than a whole fast probe. :func:`http_client` is what the
layer that builds ``ProbeOptions`` passes as ``http_client``; the probe never imports auth.

The lock records only which method a server uses (``auth = "oauth"``); tokens, refresh
tokens and dynamically registered client secrets live in the store, one 0600 file per
server URL.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from mcplock.lock.spec import Transport

if TYPE_CHECKING:
    import httpx2

    from mcplock.lock.spec import ServerSpec
    from mcplock.probe import HttpClientFactory, ProbeOptions

__all__ = ["LOGIN_ENV", "http_client", "login_http_client", "read_uses_oauth"]

# Set (to "1") in ProbeOptions.environ by `--login` / `mcplock auth login`: a browser flow may
# start even without a TTY. "0" forbids it even on a TTY.
LOGIN_ENV = "MCPLOCK_LOGIN"


def read_uses_oauth(spec: ServerSpec, environ: Mapping[str, str]) -> bool:
    """Whether a probe of ``spec`` goes through the SDK's OAuth client; reads the token store
    (an authorization-code server only).

    Client credentials and identity assertion: always. Authorization code: when the token store holds a token for
    the server's URL (a login happened) and no ``Authorization`` header is configured.
    Without a token the fast path runs, and a 401 comes back as "needs credentials" with the
    command that logs in (the CLI runs that login itself with ``--login`` or on a TTY).
    """
    if not spec.remote or not spec.url:
        return False
    if spec.auth is not None and (
        spec.auth.method in ("client-credentials", "identity-assertion") or spec.transport is Transport.SSE
    ):
        return True  # (over SSE: to say that OAuth needs Streamable HTTP)
    if spec.transport is not Transport.HTTP or any(k.lower() == "authorization" for k in spec.headers):
        return False
    from mcplock.auth.store import TokenStore
    from mcplock.lock.templates import expand

    return TokenStore(environ).exists(expand(spec.url, environ, spec.secrets))


def http_client(spec: ServerSpec, opts: ProbeOptions, environ: Mapping[str, str]) -> httpx2.AsyncClient:
    """A ``ProbeOptions.http_client`` factory: the OAuth client (httpx2 carrying the SDK's
    provider) for a server that uses OAuth, the plain probe client otherwise. Called at each
    connection, it reads the token store then (:func:`read_uses_oauth`)."""
    if read_uses_oauth(spec, environ):
        from mcplock.auth.client import oauth_client

        return oauth_client(spec, opts, environ)
    from mcplock.probe.http import new_client

    return new_client(opts)


def login_http_client(say: Callable[[str], None]) -> HttpClientFactory:
    """A ``ProbeOptions.http_client`` factory for a run that may log in in the browser
    (``mcplock call --login``, or at a terminal): a server that uses OAuth (its ``auth`` is
    set, or a login is stored) gets :func:`mcplock.auth.client.login_client`, so a login or a
    scope step-up happens inside the request that needs it; every other server as with
    :func:`http_client`. ``say`` shows the authorization URL."""

    def factory(spec: ServerSpec, opts: ProbeOptions, environ: Mapping[str, str]) -> httpx2.AsyncClient:
        header = any(k.lower() == "authorization" for k in spec.headers)
        if (
            spec.transport is Transport.HTTP
            and spec.url
            and not header
            and (spec.auth is not None or read_uses_oauth(spec, environ))
        ):
            from mcplock.auth.client import login_client

            return login_client(spec, opts, environ, say)
        return http_client(spec, opts, environ)

    return factory
