"""Enterprise-managed OAuth (SEP-990, "cross-app access"): an ID token from the company's
identity provider becomes an MCP access token, with no browser and no long-lived secret.

Leg 1 (:func:`exchange_id_token`, here): an RFC 8693 token exchange at the identity
provider's token endpoint turns the ID token (a ``${VAR}``: CI's OIDC token, an SSO ID token)
into an ID-JAG (an Identity Assertion Authorization Grant) for the MCP authorization server.
Leg 2 (the SDK's ``IdentityAssertionOAuthProvider``): the ID-JAG goes to that authorization
server's token endpoint (RFC 7523 jwt-bearer grant, the client authenticated with its secret)
and comes back as an access token, kept in the token store like the others and exchanged
again when it has expired.

The authorization server is configuration (``--oauth-issuer``, or the one the lock records);
when neither names it, it is read from the resource's protected-resource metadata (RFC 9728)
and the lock records it when the server is added (docs/oauth.md: the trust trade-off).
Neither the ID token, the ID-JAG nor a secret reaches a message, the lock or the store.
"""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncGenerator, Mapping
from typing import Any
from urllib.parse import quote

import httpx2
from mcp.client.auth import OAuthFlowError, OAuthTokenError
from mcp.client.auth.extensions.identity_assertion import IdentityAssertionOAuthProvider
from mcp.client.auth.utils import (
    build_protected_resource_metadata_discovery_urls,
    create_oauth_metadata_request,
    extract_resource_metadata_from_www_auth,
    handle_protected_resource_response,
)
from mcp.shared.auth_utils import check_resource_allowed

from mcplock.auth.oauth_errors import oauth_error, translate, translated
from mcplock.auth.store import TokenStore
from mcplock.auth.token_storage import FileTokenStorage
from mcplock.errors import ProbeError
from mcplock.lock.auth_spec import AuthSpec
from mcplock.lock.spec import ServerSpec
from mcplock.lock.templates import expand, secure_url
from mcplock.text.untrusted import sanitize

TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
ID_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:id_token"
ID_JAG_TYPE = "urn:ietf:params:oauth:token-type:id-jag"
EXCHANGE_TIMEOUT = 30.0
MAX_BODY = 64 * 1024


def _secret(spec: ServerSpec, template: str, what: str, environ: Mapping[str, str], hint: str) -> str:
    value = expand(template, environ, spec.secrets).strip()
    if not value:
        raise ProbeError(
            "config", f"server `{spec.name}`: the {what} `{template}` is empty: the variable is not set", hint=hint
        )
    return value


def _redact(text: str, *secrets: str) -> str:
    for s in secrets:
        if s:
            text = text.replace(s, "[redacted]")
    return text


async def exchange_id_token(spec: ServerSpec, environ: Mapping[str, str], audience: str, resource: str) -> str:
    """Leg 1: the ID-JAG for ``audience`` (the MCP authorization server's issuer) and
    ``resource`` (the MCP server), from the identity provider. Raises ProbeError."""
    auth = spec.auth
    assert auth is not None and auth.id_token and auth.idp_token_endpoint
    id_token = _secret(
        spec,
        auth.id_token,
        "ID token",
        environ,
        "export the variable (in GitHub Actions: request the job's OIDC token into it)",
    )
    if not secure_url(auth.idp_token_endpoint):
        raise ProbeError(
            "config",
            f"server `{spec.name}`: the identity provider's token endpoint must be https://",
            hint="fix --oauth-idp-token-endpoint (http:// is allowed to localhost only)",
        )
    data = {
        "grant_type": TOKEN_EXCHANGE,
        "subject_token": id_token,
        "subject_token_type": ID_TOKEN_TYPE,
        "requested_token_type": ID_JAG_TYPE,
        "audience": audience,
        "resource": resource,
    }
    if auth.scopes:
        data["scope"] = auth.scopes
    headers = {"Accept": "application/json"}
    idp_secret = _authenticate_client(spec, auth, environ, data, headers)
    status, body = await _post(spec.name, auth.idp_token_endpoint, data, headers)
    if status != 200:
        raise _refusal(spec.name, auth, status, _redact(oauth_error(body) or f"HTTP {status}", id_token, idp_secret))
    return _id_jag(spec.name, body)


def _authenticate_client(
    spec: ServerSpec, auth: AuthSpec, environ: Mapping[str, str], data: dict[str, str], headers: dict[str, str]
) -> str:
    """The client at the identity provider: with its secret, HTTP Basic (RFC 6749 §2.3.1, both
    parts form-encoded); without one, its ``client_id`` in the form. Returns the secret ("" for a
    public client), so that no message repeats it."""
    if not auth.idp_client_secret:
        if auth.idp_client_id:
            data["client_id"] = auth.idp_client_id
        return ""
    secret = _secret(
        spec,
        auth.idp_client_secret,
        "identity provider client secret",
        environ,
        "export the variable --oauth-idp-client-secret names",
    )
    pair = f"{quote(auth.idp_client_id or '', safe='')}:{quote(secret, safe='')}"
    headers["Authorization"] = "Basic " + base64.b64encode(pair.encode()).decode()
    return secret


async def _post(name: str, endpoint: str, data: dict[str, str], headers: dict[str, str]) -> tuple[int, bytes]:
    """The token endpoint's status and its body, read no further than :data:`MAX_BODY` (a flood
    is cut, not held)."""
    try:
        async with (
            httpx2.AsyncClient(timeout=EXCHANGE_TIMEOUT, follow_redirects=False) as client,
            client.stream("POST", endpoint, data=data, headers=headers) as resp,
        ):
            buf = bytearray()
            async for chunk in resp.aiter_bytes():
                buf.extend(chunk)
                if len(buf) > MAX_BODY:
                    break
            return resp.status_code, bytes(buf[:MAX_BODY])
    except httpx2.HTTPError as e:
        raise ProbeError(
            "unreachable",
            f"server `{name}`: the identity provider's token endpoint did not answer ({type(e).__name__})",
            hint="check --oauth-idp-token-endpoint and the network",
        ) from None


def _refusal(name: str, auth: AuthSpec, status: int, why: str) -> ProbeError:
    """What the identity provider's refusal (``why``, redacted) says to do: get a fresh ID token,
    fix the client, or let it issue ID-JAGs."""
    low = why.lower()
    if low.startswith("invalid_grant") or (low.startswith("invalid_request") and "token" in low):
        return ProbeError(
            "auth",
            f"server `{name}`: the identity provider refused the ID token in `{auth.id_token}` ({why})",
            hint="it has expired or was issued for another client: get a fresh one (in CI: the "
            "job's OIDC token, requested in the same job, with the audience the identity "
            "provider expects) and check --oauth-idp-client-id",
        )
    if low.startswith(("invalid_client", "unauthorized_client")) or status == 401:
        return ProbeError(
            "auth",
            f"server `{name}`: the identity provider rejected the client ({why})",
            hint="check --oauth-idp-client-id (and --oauth-idp-client-secret if it needs one)",
        )
    return ProbeError(
        "auth",
        f"server `{name}`: the token exchange at the identity provider failed ({why})",
        hint="check --oauth-idp-token-endpoint; the identity provider must allow this client "
        "to request ID-JAGs (SEP-990) for the MCP authorization server",
    )


def _id_jag(name: str, body: bytes) -> str:
    """The ID-JAG of a successful exchange: ``access_token``, issued as an ID-JAG (or untyped)."""
    jag, issued = _exchanged(body)
    if isinstance(jag, str) and jag and issued in (None, ID_JAG_TYPE):
        return jag
    got = f" (it issued {sanitize(str(issued), 100)})" if issued not in (None, ID_JAG_TYPE) else ""
    raise ProbeError(
        "auth",
        f"server `{name}`: the identity provider answered the token exchange without an ID-JAG{got}",
        hint="the identity provider may not support SEP-990 identity assertions for this client",
    )


def _exchanged(body: bytes) -> tuple[Any, Any]:
    """The ``access_token`` and ``issued_token_type`` of an exchange's answer (None for what it
    lacks, or both for an answer that is no JSON object)."""
    try:
        answer = json.loads(body)
    except ValueError:
        return None, None
    if not isinstance(answer, dict):
        return None, None
    return answer.get("access_token"), answer.get("issued_token_type")


class _Storage(FileTokenStorage):
    """The token store, also remembering the authorization server the tokens came from."""

    issuer: str | None = None

    async def set_tokens(self, tokens: Any) -> None:
        await super().set_tokens(tokens)
        if self.issuer:
            self.store.update(self.url, auth_server_url=self.issuer)


class IdentityAssertionProvider(IdentityAssertionOAuthProvider):
    """The SDK's leg 2, with leg 1 as its assertion provider; a stored token is used until its
    absolute expiry; the authorization server read from the resource's metadata when not
    configured; SDK failures turned into ProbeErrors that name the next step."""

    def __init__(
        self, spec: ServerSpec, environ: Mapping[str, str], url: str, storage: _Storage, client_secret: str
    ) -> None:
        auth = spec.auth
        assert auth is not None and auth.client_id
        self.spec, self.environ, self.url = spec, dict(environ), url
        self.storage = storage  # the SDK keeps it as a TokenStorage: ours also records the issuer
        self.discover = auth.issuer is None  # (the SDK compares issuers as strings, RFC 8414 §3.3: kept as given)
        super().__init__(
            server_url=url,
            storage=storage,
            client_id=auth.client_id,
            client_secret=client_secret,
            issuer=auth.issuer or "-",
            assertion_provider=self._leg1,
            scope=auth.scopes,
            token_endpoint_auth_method="client_secret_basic",
        )

    async def _leg1(self, audience: str, resource: str) -> str:
        self.storage.issuer = audience
        return await exchange_id_token(self.spec, self.environ, audience, resource)

    async def _restore(self) -> None:
        if self._initialized:
            return
        self._tokens = await self.storage.get_tokens()
        exp = self.storage.load().get("expires_at")
        self._expiry = float(exp) if self._tokens is not None and isinstance(exp, (int, float)) else None
        self._initialized = True

    async def _auth_flow(self, request: httpx2.Request) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        await self._restore()
        flow = super()._auth_flow(request)
        try:
            outgoing = await flow.__anext__()
            while True:
                response = yield outgoing
                if self.discover and outgoing is request and response.status_code in (401, 403):
                    urls = build_protected_resource_metadata_discovery_urls(
                        extract_resource_metadata_from_www_auth(response), self.url
                    )
                    prm = None
                    for u in urls:
                        prm = await handle_protected_resource_response((yield create_oauth_metadata_request(u)))
                        if prm is not None:
                            break
                    self._issuer = self._discovered(prm)
                    self.discover = False
                outgoing = await flow.asend(response)
        except StopAsyncIteration:
            return
        finally:
            await flow.aclose()

    def _discovered(self, prm: Any) -> str:
        name = self.spec.name
        if prm is None or not prm.authorization_servers:
            raise ProbeError(
                "auth",
                f"server `{name}` names no authorization server (no protected-resource metadata)",
                hint="pass the MCP authorization server's issuer: --oauth-issuer URL",
            )
        if not check_resource_allowed(self._resource, str(prm.resource)):
            raise ProbeError(
                "auth",
                f"server `{name}`: its protected-resource metadata is for another resource "
                f"({sanitize(str(prm.resource), 200)})",
                hint="check the server URL, or pass --oauth-issuer URL",
            )
        return str(prm.authorization_servers[0])

    def async_auth_flow(self, request: httpx2.Request) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        return translated(super().async_auth_flow(request), self._error)

    def _error(self, e: Exception) -> BaseException:
        if isinstance(e, OAuthFlowError) and not isinstance(e, OAuthTokenError):
            return ProbeError(
                "auth",
                f"server `{self.spec.name}`: OAuth failed at the authorization server "
                f"{sanitize(self._issuer, 200)}: {sanitize(str(e), 300)}",
                hint="check --oauth-issuer (the MCP authorization server's issuer URL)",
            )
        # the authorization server refused the client or the grant (OAuthTokenError), or anything else
        return translate(e, self.spec, cc=True)


def build(spec: ServerSpec, environ: Mapping[str, str], url: str, store: TokenStore) -> IdentityAssertionProvider:
    """The provider of an ``identity-assertion`` server."""
    auth = spec.auth or AuthSpec("identity-assertion")
    if not (auth.client_id and auth.client_secret and auth.id_token and auth.idp_token_endpoint):
        raise ProbeError(
            "config",
            f"server `{spec.name}`: identity assertion needs an ID token, the identity "
            "provider's token endpoint, a client id and a client secret",
            hint="pass --oauth-id-token '${VAR}' --oauth-idp-token-endpoint URL --oauth-client-id ID "
            "--oauth-client-secret '${VAR}'",
        )
    secret = _secret(spec, auth.client_secret, "OAuth client secret", environ, "export the variable the template names")
    storage = _Storage(store, url, "identity-assertion")
    return IdentityAssertionProvider(spec, environ, url, storage, secret)
