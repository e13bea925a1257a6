"""The ``auth`` of a server from the command line's options (:func:`auth_spec`): the grant (an
authorization code, client credentials, an identity assertion) chosen from what was given, each
option checked — a secret only as a ``${VAR}`` template, a client key as a file or a template,
never the key, https:// URLs — with an error that names the option to fix. No I/O."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from mcplock.errors import SecretError, UsageError
from mcplock.lock.auth_spec import AuthSpec
from mcplock.lock.templates import template_names

GRANTS = ("authorization-code", "client-credentials", "identity-assertion")


@dataclass(frozen=True)
class _Client:
    """The client the options name (each as given, None when not)."""

    client_id: str | None
    client_secret: str | None
    scopes: str | None
    grant: str | None
    client_metadata_url: str | None
    client_key: str | None
    signing_alg: str | None


def auth_spec(
    client_id: str | None,
    client_secret: str | None,
    scopes: str | None,
    grant: str | None = None,
    client_metadata_url: str | None = None,
    *,
    client_key: str | None = None,
    signing_alg: str | None = None,
    assertion: Mapping[str, str | None] | None = None,
) -> AuthSpec | None:
    """The ``auth`` of a server from the command-line options (None when none is given).

    A secret means the client_credentials grant unless ``--oauth-grant authorization-code``
    asks for a confidential client in the authorization-code flow. A client key (a path or a
    ``${VAR}`` template) means client credentials with a signed JWT (``private_key_jwt``).
    ``assertion``: the identity-assertion options (``id_token``, ``idp_token_endpoint``,
    ``idp_client_id``, ``idp_client_secret``, ``issuer``); an ID token means that grant."""
    _check_grant(grant)
    c = _Client(client_id, client_secret, scopes, grant, client_metadata_url, client_key, signing_alg)
    given = _assertion_given(assertion)
    if given or grant == "identity-assertion":
        return _assertion_spec(c, given)
    if client_secret is not None:
        _check_secret(client_id, client_secret)
    c = replace(c, signing_alg=_key_options(client_id, client_secret, client_key, signing_alg, grant))
    _check_credentials_given(client_secret, client_key, grant)
    if client_metadata_url is not None:
        _check_metadata_url(client_metadata_url, alone=not _names_a_client(client_id, client_secret, client_key, grant))
    return _chosen(c)


def _check_grant(grant: str | None) -> None:
    """``--oauth-grant``: one of :data:`GRANTS`."""
    if grant is not None and grant not in GRANTS:
        raise UsageError(f"--oauth-grant takes {', '.join(GRANTS[:-1])} or {GRANTS[-1]}")


def _assertion_given(assertion: Mapping[str, str | None] | None) -> dict[str, str]:
    """The identity-assertion options given (those not None)."""
    return {k: v for k, v in (assertion or {}).items() if v is not None}


def _check_credentials_given(client_secret: str | None, client_key: str | None, grant: str | None) -> None:
    """``--oauth-grant client-credentials`` needs a secret or a key to authenticate with."""
    if client_secret is None and client_key is None and grant == "client-credentials":
        raise UsageError(
            "--oauth-grant client-credentials needs --oauth-client-id and --oauth-client-secret '${VAR}' "
            "(or --oauth-client-key)"
        )


def _names_a_client(
    client_id: str | None, client_secret: str | None, client_key: str | None, grant: str | None
) -> bool:
    """Whether the options name a client other than a metadata URL: an id, a secret, a key or
    client credentials."""
    return bool(client_id or grant == "client-credentials" or client_secret is not None or client_key is not None)


def _chosen(c: _Client) -> AuthSpec | None:
    """The auth the checked options name, None when none is given. The checks before leave only
    options that go together: a key or secret comes with a client id, a key without a secret,
    a metadata URL alone, a signing algorithm with a key."""
    if not any((c.client_id, c.client_secret, c.client_key, c.scopes, c.client_metadata_url, c.grant)):
        return None
    return AuthSpec(
        _method(c.client_secret, c.client_key, c.grant),
        client_id=c.client_id or None,
        client_secret=c.client_secret,
        scopes=c.scopes or None,
        client_metadata_url=c.client_metadata_url,
        client_key=c.client_key,
        signing_alg=c.signing_alg,
    )


def _method(client_secret: str | None, client_key: str | None, grant: str | None) -> str:
    """Client credentials for a key, or a secret outside the authorization-code grant; else OAuth."""
    if client_key is not None or (client_secret is not None and grant != "authorization-code"):
        return "client-credentials"
    return "oauth"


def _check_secret(client_id: str | None, client_secret: str) -> None:
    """``--oauth-client-secret``: a ``${VAR}`` template (never the secret), with a client id."""
    names = template_names(client_secret)
    if not names or client_secret != "".join(f"${{{n}}}" for n in names):
        raise _secret_value_error()
    if not client_id:
        raise UsageError("--oauth-client-secret needs --oauth-client-id")


def _secret_value_error() -> SecretError:
    """The refusal of a client secret given as itself, not as a ``${VAR}`` template."""
    return SecretError(
        "--oauth-client-secret takes a ${VAR} template, never the secret itself",
        hint="export it (export MCP_CLIENT_SECRET=…) and pass --oauth-client-secret '${MCP_CLIENT_SECRET}'",
    )


def _check_metadata_url(url: str, *, alone: bool) -> None:
    """``--oauth-client-metadata-url``: an https URL with a path, and a client id of its own
    (``alone``: no other client id, secret, key or client credentials)."""
    from urllib.parse import urlsplit

    p = urlsplit(url)
    if p.scheme != "https" or not p.netloc or p.path in ("", "/"):
        raise UsageError(
            "--oauth-client-metadata-url takes an https:// URL with a path "
            "(e.g. https://example.com/mcplock/client.json)"
        )
    if not alone:
        raise UsageError(
            "--oauth-client-metadata-url is a client id of its own: not with --oauth-client-id, "
            "a secret, a key or client credentials"
        )


_ID_TOKEN_HINT = (
    "export it (in GitHub Actions: the job's OIDC token; GitLab: an id_tokens: entry) and pass "
    "--oauth-id-token '${MCP_ID_TOKEN}'"
)


# the assertion's secrets given as templates: (option, key in the options given, hint)
_ASSERTION_SECRETS = (
    ("--oauth-id-token", "id_token", _ID_TOKEN_HINT),
    (
        "--oauth-idp-client-secret",
        "idp_client_secret",
        "export it (export MCP_IDP_SECRET=…) and pass --oauth-idp-client-secret '${MCP_IDP_SECRET}'",
    ),
)


def _assertion_spec(c: _Client, given: Mapping[str, str]) -> AuthSpec:
    """Enterprise-managed OAuth (SEP-990): check the options, never echo a token or secret."""
    if c.grant not in (None, "identity-assertion"):
        raise UsageError(f"--oauth-id-token is for --oauth-grant identity-assertion, not {c.grant}")
    _check_assertion_templates(c.client_secret, given)
    if c.client_key is not None or c.signing_alg is not None or c.client_metadata_url is not None:
        raise UsageError(
            "identity assertion authenticates the client with --oauth-client-secret: "
            "not with --oauth-client-key, --oauth-signing-alg or --oauth-client-metadata-url"
        )
    _check_assertion_complete(c.client_id, c.client_secret, given)
    _check_assertion_urls(given)
    return AuthSpec(
        "identity-assertion",
        client_id=c.client_id,
        client_secret=c.client_secret,
        scopes=c.scopes or None,
        id_token=given["id_token"],
        idp_token_endpoint=given["idp_token_endpoint"],
        idp_client_id=given.get("idp_client_id"),
        idp_client_secret=given.get("idp_client_secret"),
        issuer=given.get("issuer"),
    )


def _check_assertion_templates(client_secret: str | None, given: Mapping[str, str]) -> None:
    """The ID token and both client secrets: ``${VAR}`` templates, never the values."""
    from mcplock.lock.templates import is_template

    for opt, key, hint in _ASSERTION_SECRETS:
        if key in given and not is_template(given[key]):
            raise SecretError(f"{opt} takes a ${{VAR}} template, never the token or secret itself", hint=hint)
    if client_secret is not None and not is_template(client_secret):
        raise _secret_value_error()


def _check_assertion_complete(client_id: str | None, client_secret: str | None, given: Mapping[str, str]) -> None:
    """Every option the grant needs given, the missing ones named."""
    need = (
        "--oauth-id-token '${VAR}' --oauth-idp-token-endpoint URL --oauth-client-id ID --oauth-client-secret '${VAR}'"
    )
    missing = [
        opt
        for opt, v in (
            ("--oauth-id-token", given.get("id_token")),
            ("--oauth-idp-token-endpoint", given.get("idp_token_endpoint")),
            ("--oauth-client-id", client_id),
            ("--oauth-client-secret", client_secret),
        )
        if not v
    ]
    if missing:
        raise UsageError(f"identity assertion needs {', '.join(missing)}", hint=f"pass {need}")


def _check_assertion_urls(given: Mapping[str, str]) -> None:
    """Where a token is sent: https (http only to localhost)."""
    from mcplock.lock.templates import secure_url

    for opt, key in (("--oauth-idp-token-endpoint", "idp_token_endpoint"), ("--oauth-issuer", "issuer")):
        if key in given and not secure_url(given[key]):
            raise UsageError(f"{opt} takes an https:// URL (http:// only to localhost): a token is sent to it")


def _key_options(
    client_id: str | None, client_secret: str | None, client_key: str | None, signing_alg: str | None, grant: str | None
) -> str | None:
    """Check ``--oauth-client-key`` / ``--oauth-signing-alg``; the algorithm as spelled in JWS."""
    if client_key is None:
        if signing_alg is not None:
            raise UsageError("--oauth-signing-alg needs --oauth-client-key")
        return None
    alg = None if signing_alg is None else _jws_alg(signing_alg)
    _check_client_key(client_key, client_id, client_secret, grant)
    return alg


def _jws_alg(signing_alg: str) -> str:
    """``--oauth-signing-alg`` in any case, as JWS spells it; one it does not know is refused."""
    from mcplock.lock.auth_spec import SIGNING_ALGS

    known = {a.lower(): a for a in SIGNING_ALGS}
    if signing_alg.lower() not in known:
        raise UsageError(
            f"--oauth-signing-alg takes one of {', '.join(SIGNING_ALGS)}",
            hint="or leave it out: the key's type chooses (RSA: RS256, EC: ES256/384/512, Ed25519: EdDSA)",
        )
    return known[signing_alg.lower()]


def _check_client_key(client_key: str, client_id: str | None, client_secret: str | None, grant: str | None) -> None:
    """``--oauth-client-key``: a path or a ``${VAR}`` template (never the PEM itself), for a client
    id, alone (no secret), in the client_credentials grant."""
    if _looks_like_a_key(client_key):
        raise SecretError(
            "--oauth-client-key takes the path of the key file or a ${VAR} template, never the key itself",
            hint="pass --oauth-client-key path/to/key.pem, or export MCP_CLIENT_KEY=… (the PEM, or "
            "its path) and pass --oauth-client-key '${MCP_CLIENT_KEY}'",
        )
    if not client_key.strip():
        raise UsageError("--oauth-client-key is empty", hint="pass the path of a PEM private key, or '${VAR}'")
    if not client_id:
        raise UsageError("--oauth-client-key needs --oauth-client-id (the key signs as that client)")
    if client_secret is not None:
        raise UsageError("--oauth-client-key and --oauth-client-secret are two ways to authenticate: give one")
    if grant == "authorization-code":
        raise UsageError(
            "--oauth-client-key is for the client_credentials grant", hint="drop --oauth-grant authorization-code"
        )


def _looks_like_a_key(text: str) -> bool:
    """Whether ``text`` is a PEM private key itself rather than where to find one."""
    return "-----BEGIN" in text or "PRIVATE KEY" in text
