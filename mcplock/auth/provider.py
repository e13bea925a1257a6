"""The MCP SDK's OAuth providers (an ``httpx2.Auth`` each) over mcplock's token store:
authorization code + PKCE, and client credentials for CI.

Imports the SDK (``mcp``): only the OAuth path may import this module. Every SDK failure
that comes out of a provider's auth flow is a :class:`ProbeError` naming the next step, so
the HTTP client carrying a provider needs no wrapper: httpx2 errors stay httpx2 errors and
the probe's own translation (:mod:`mcplock.probe.errors`) handles them. The token storage they
share is :mod:`mcplock.auth.token_storage`, the translation of their failures
:mod:`mcplock.auth.oauth_errors` (both also used by :mod:`mcplock.auth.assertion`).
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import AsyncGenerator, Callable, Mapping
from typing import TYPE_CHECKING, Any

import httpx2
from mcp.client.auth import OAuthClientProvider
from mcp.client.auth.extensions.client_credentials import (
    ClientCredentialsOAuthProvider,
    PrivateKeyJWTOAuthProvider,
    SignedJWTParameters,
)
from mcp.shared.auth import (
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthMetadata,
    ProtectedResourceMetadata,
)
from pydantic import AnyUrl, ValidationError

from mcplock._version import __version__
from mcplock.auth.oauth_errors import oauth_error, translate, translated
from mcplock.auth.store import TokenStore
from mcplock.auth.token_storage import FileTokenStorage
from mcplock.errors import ProbeError
from mcplock.lock.auth_spec import AuthSpec
from mcplock.lock.spec import ServerSpec
from mcplock.lock.templates import expand

if TYPE_CHECKING:
    from mcplock.auth.assertion import IdentityAssertionProvider


# --- providers -------------------------------------------------------------------------------


class _Restoring(OAuthClientProvider):
    """What a later process needs from an earlier login: the token's absolute expiry (so an
    expired token is refreshed before it is sent) and the discovered metadata (so the refresh
    goes to the right token endpoint). Also remembers why a flow ended, for the messages, and
    turns SDK exceptions into ProbeErrors as they leave the auth flow."""

    spec: ServerSpec
    had_token = False
    token_server: str | None = None  # the authorization server that issued the stored token
    refresh_error: str | None = None
    fixed_client: OAuthClientInformationFull | None = None

    async def _initialize(self) -> None:
        await super()._initialize()
        storage = self.context.storage
        assert isinstance(storage, FileTokenStorage)  # every provider here is built with one
        data = storage.load()
        if self.fixed_client is not None:  # never stored: its secret comes from the environment each time
            self.context.client_info = self.fixed_client
        self.had_token = self.context.current_tokens is not None
        exp = data.get("expires_at")
        if self.context.current_tokens is not None and isinstance(exp, (int, float)):
            self.context.token_expiry_time = float(exp)
        self._restore_discovery(data)

    def _restore_discovery(self, data: dict[str, Any]) -> None:
        """What an earlier flow discovered, from the stored entry: the authorization server's
        and the resource's metadata (what does not validate is left out), the authorization
        server's URL (and, with a stored token, it as the token's issuer)."""
        with contextlib.suppress(ValidationError, TypeError):
            if isinstance(data.get("oauth_metadata"), dict):
                self.context.oauth_metadata = OAuthMetadata.model_validate(data["oauth_metadata"])
            if isinstance(data.get("protected_resource_metadata"), dict):
                self.context.protected_resource_metadata = ProtectedResourceMetadata.model_validate(
                    data["protected_resource_metadata"]
                )
        if isinstance(data.get("auth_server_url"), str):
            self.context.auth_server_url = data["auth_server_url"]
            if self.had_token:
                self.token_server = data["auth_server_url"]

    async def _handle_refresh_response(self, response: httpx2.Response) -> bool:
        if response.status_code != 200:
            body = await response.aread()
            self.refresh_error = oauth_error(body) or f"HTTP {response.status_code}"
        return await super()._handle_refresh_response(response)

    def async_auth_flow(self, request: httpx2.Request) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        cc = isinstance(self, (ClientCredentialsProvider, JWTClientCredentialsProvider))
        return translated(
            super().async_auth_flow(request),
            lambda e: translate(e, self.spec, cc=cc, registered=getattr(self, "client_rejected", False)),
        )


class AuthCodeProvider(_Restoring):
    wanted_scopes: str | None = None  # --oauth-scopes / a step-up: added to what the server challenges with
    client_rejected = False  # the token endpoint refused a registered (not a configured) client

    async def _handle_token_response(self, response: httpx2.Response) -> None:
        if response.status_code in (400, 401) and self.fixed_client is None:
            why = oauth_error(await response.aread()) or ""
            self.client_rejected = why.split(":")[0] in ("invalid_client", "unauthorized_client")
        await super()._handle_token_response(response)

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
        method = _secret_method(self.context.oauth_metadata)
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


class JWTClientCredentialsProvider(_Restoring, PrivateKeyJWTOAuthProvider):
    """Client credentials, the client authenticated by a JWT signed with its key (RFC 7523)."""


def _secret_method(meta: OAuthMetadata | None) -> str:
    """How a confidential client sends its secret to this authorization server:
    client_secret_basic (RFC 8414's default when the metadata says nothing), unless only
    client_secret_post is supported."""
    supported = (meta.token_endpoint_auth_methods_supported if meta is not None else None) or []
    if supported and "client_secret_basic" not in supported and "client_secret_post" in supported:
        return "client_secret_post"
    return "client_secret_basic"


# --- building the provider -------------------------------------------------------------------


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
) -> _Restoring | IdentityAssertionProvider:
    """The SDK provider for ``spec`` (client credentials, identity assertion, or authorization code)."""
    url = expand(spec.url or "", environ, spec.secrets)
    store = store or TokenStore(environ)
    auth = spec.auth or AuthSpec("oauth")
    if auth.method == "identity-assertion":
        from mcplock.auth.assertion import build

        return build(spec, environ, url, store)
    if auth.method == "client-credentials":
        provider = _client_credentials(spec, auth, environ, url, store)
        provider.spec = spec
        return provider
    return _authorization_code(spec, auth, environ, url, store, redirect_uri, redirect_handler, callback_handler)


def _authorization_code(
    spec: ServerSpec,
    auth: AuthSpec,
    environ: Mapping[str, str],
    url: str,
    store: TokenStore,
    redirect_uri: str | None,
    redirect_handler: Callable[[str], Any] | None,
    callback_handler: Callable[[], Any] | None,
) -> AuthCodeProvider:
    """The authorization-code provider: a client registered dynamically (or named by its
    metadata document's URL), else the one ``--oauth-client-id`` names."""
    storage = FileTokenStorage(store, url, "oauth")
    uri = redirect_uri or "http://127.0.0.1/callback"
    metadata = OAuthClientMetadata(
        redirect_uris=[AnyUrl(uri)],
        client_name="mcplock",
        software_id="mcplock",
        software_version=__version__,
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        token_endpoint_auth_method="none",
        scope=auth.scopes,
    )
    try:
        code = AuthCodeProvider(
            url, metadata, storage, redirect_handler, callback_handler, client_metadata_url=auth.client_metadata_url
        )
    except ValueError as e:  # the SDK's check of a client ID metadata document URL
        raise ProbeError(
            "config", f"server `{spec.name}`: {e}", hint="--oauth-client-metadata-url takes an https:// URL with a path"
        ) from None
    code.spec = spec
    code.wanted_scopes = auth.scopes
    if auth.client_id:
        code.fixed_client = _fixed_client(spec, auth, auth.client_id, environ, uri)
    storage.provider = code
    return code


def _fixed_client(
    spec: ServerSpec, auth: AuthSpec, client_id: str, environ: Mapping[str, str], uri: str
) -> OAuthClientInformationFull:
    """The pre-registered client ``--oauth-client-id`` names (confidential when it has a secret)."""
    secret = _client_secret(spec, auth, environ)
    return OAuthClientInformationFull(
        client_id=client_id,
        client_secret=secret,
        redirect_uris=[AnyUrl(uri)],
        token_endpoint_auth_method="client_secret_basic" if secret else "none",  # see _confidential_auth
        grant_types=["authorization_code", "refresh_token"],
        scope=auth.scopes,
    )


def _client_credentials(
    spec: ServerSpec, auth: AuthSpec, environ: Mapping[str, str], url: str, store: TokenStore
) -> _Restoring:
    if not auth.client_id:
        raise ProbeError(
            "config",
            f"server `{spec.name}`: client credentials need a client id",
            hint="pass --oauth-client-id ID --oauth-client-secret '${VAR}'",
        )
    storage = FileTokenStorage(store, url, "client-credentials")
    provider: _Restoring
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # `issuer` omitted: discovery names the authorization server
        if auth.client_key is not None:
            from mcplock.auth.keys import load_client_key

            pem, alg = load_client_key(spec, environ)
            signer = SignedJWTParameters(
                issuer=auth.client_id,
                subject=auth.client_id,
                signing_key=pem,
                signing_algorithm=alg,
                lifetime_seconds=120,
            ).create_assertion_provider()
            provider = JWTClientCredentialsProvider(
                server_url=url, storage=storage, client_id=auth.client_id, assertion_provider=signer, scope=auth.scopes
            )
        else:
            secret = _client_secret(spec, auth, environ)
            if secret is None:
                raise ProbeError(
                    "config",
                    f"server `{spec.name}`: client credentials need a client secret",
                    hint="pass --oauth-client-secret '${VAR}' and export VAR (or --oauth-client-key)",
                )
            provider = ClientCredentialsProvider(
                server_url=url,
                storage=storage,
                client_id=auth.client_id,
                client_secret=secret,
                token_endpoint_auth_method="client_secret_basic",
                scope=auth.scopes,
            )
    storage.provider = provider
    return provider
