"""How a remote server is authorized, as the lock records it (``auth``: the method only, or a
table of ``${VAR}`` templates and URLs — tokens live in the user's token store, never in the lock):
:class:`AuthSpec`, and what is wrong with an ``auth`` table as written (:func:`auth_table_problem`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from mcplock.lock.templates import is_template, secure_url, template_names

AUTH_METHODS: tuple[str, ...] = ("oauth", "client-credentials", "identity-assertion")


# JWS algorithms of a private_key_jwt client assertion (RFC 7518; EdDSA: RFC 8037)
SIGNING_ALGS: tuple[str, ...] = (
    "RS256",
    "RS384",
    "RS512",
    "PS256",
    "PS384",
    "PS512",
    "ES256",
    "ES384",
    "ES512",
    "EdDSA",
)


@dataclass(frozen=True)
class AuthSpec:
    """How a remote server is authorized. ``client_secret`` is a ``${VAR}`` template only.

    ``method = "oauth"``: authorization code + PKCE — dynamic registration, or a pre-registered
    client (``client_id``; with ``client_secret`` a confidential one), or a client ID metadata
    document (``client_metadata_url``, an HTTPS URL that is the client id).
    ``method = "client-credentials"``: the client_credentials grant (CI), id and secret — or id
    and a private key (``client_key``: a file path or a ``${VAR}`` template, never the key; the
    client authenticates with a JWT it signs, RFC 7523 ``private_key_jwt``; ``signing_alg``
    chooses the algorithm, else the key's type does).
    ``method = "identity-assertion"``: enterprise-managed OAuth (SEP-990): the ID token
    (``id_token``, a ``${VAR}`` template) is exchanged at the identity provider's token endpoint
    (``idp_token_endpoint``, as ``idp_client_id``, with ``idp_client_secret`` if it needs one) for
    an ID-JAG, which the client (``client_id`` / ``client_secret``) presents to the MCP
    authorization server ``issuer`` (RFC 7523 jwt-bearer).
    """

    method: str  # "oauth" (authorization code + PKCE) | "client-credentials" | "identity-assertion"
    client_id: str | None = None
    client_secret: str | None = None
    scopes: str | None = None
    client_metadata_url: str | None = None
    client_key: str | None = None
    signing_alg: str | None = None
    id_token: str | None = None
    idp_token_endpoint: str | None = None
    idp_client_id: str | None = None
    idp_client_secret: str | None = None
    issuer: str | None = None

    def stored(self) -> str | dict[str, str]:
        """``"oauth"``, or a table ``{method, client-id, client-secret, client-key, signing-alg,
        client-metadata-url, scopes}`` (lock key ``auth``)."""
        out: dict[str, str] = {"method": self.method}
        for key, attr in _AUTH_FIELDS:
            v = getattr(self, attr)
            if v is not None:
                out[key] = v
        return self.method if len(out) == 1 else out

    @classmethod
    def from_stored(cls, value: str | Mapping[str, str]) -> AuthSpec:
        if isinstance(value, str):
            return cls(method=value)
        return cls(method=value["method"], **{attr: value.get(key) for key, attr in _AUTH_FIELDS})


# an auth table's keys after `method`, in the order the lock writes them: (key, AuthSpec attribute)
_AUTH_FIELDS = (
    ("client-id", "client_id"),
    ("client-secret", "client_secret"),
    ("client-key", "client_key"),
    ("signing-alg", "signing_alg"),
    ("client-metadata-url", "client_metadata_url"),
    ("id-token", "id_token"),
    ("idp-token-endpoint", "idp_token_endpoint"),
    ("idp-client-id", "idp_client_id"),
    ("idp-client-secret", "idp_client_secret"),
    ("issuer", "issuer"),
    ("scopes", "scopes"),
)


Problem = tuple[str, str, str | None]  # (the key, what is wrong with it, a hint or None)


_ASSERTION_KEYS = ("id-token", "idp-token-endpoint", "idp-client-id", "idp-client-secret", "issuer")


def _assertion_problem(v: Mapping[str, str]) -> Problem | None:
    """What is wrong with the identity-assertion keys of an ``auth`` table; None if nothing."""
    if v.get("method") != "identity-assertion":
        extra = next((k for k in _ASSERTION_KEYS if k in v), None)
        return (extra, "belongs to an `identity-assertion` server", None) if extra else None
    return _first_problem((_assertion_templates, _assertion_required, _assertion_urls), v)


def _assertion_templates(v: Mapping[str, str]) -> Problem | None:
    """The ID token and the IdP client secret: ${VAR} templates only."""
    for k in ("id-token", "idp-client-secret"):
        if v.get(k) is not None and not is_template(v[k]):
            return (
                k,
                "must be a ${VAR} template, never the token or secret itself",
                f'write {k} = "${{MY_VAR}}" and export the variable',
            )
    return None


def _assertion_required(v: Mapping[str, str]) -> Problem | None:
    for k in ("id-token", "idp-token-endpoint", "client-id", "client-secret"):
        if not v.get(k):
            return k, "is required by an `identity-assertion` server", None
    return None


def _assertion_urls(v: Mapping[str, str]) -> Problem | None:
    for k in ("idp-token-endpoint", "issuer"):
        if v.get(k) is not None and not secure_url(v[k]):
            return k, "must be an https:// URL (http:// only to localhost)", None
    return None


def auth_table_problem(v: Mapping[str, str]) -> Problem | None:
    """What is wrong with an ``auth`` table of a lock, as (key, what, hint); None if nothing.
    The checks in order: the client secret, the client key (and its signing algorithm), the
    identity-assertion keys, the client ID metadata document."""
    return _first_problem((_secret_problem, _key_problem, _assertion_problem, _metadata_url_problem), v)


def _first_problem(
    checks: tuple[Callable[[Mapping[str, str]], Problem | None], ...], v: Mapping[str, str]
) -> Problem | None:
    """The problem the first failing check finds (the checks in order); None if none does."""
    for check in checks:
        problem = check(v)
        if problem is not None:
            return problem
    return None


def _secret_problem(v: Mapping[str, str]) -> Problem | None:
    secret = v.get("client-secret")
    if secret is None:
        return None
    names = template_names(secret)
    if not names or secret != "".join(f"${{{n}}}" for n in names):
        return (
            "client-secret",
            "must be a ${VAR} template, never a secret",
            'write client-secret = "${MY_CLIENT_SECRET}" and export the variable',
        )
    return None


def _key_problem(v: Mapping[str, str]) -> Problem | None:
    """A client key: a path or template, of a `client-credentials` server with a client-id and
    no secret; its signing algorithm one of SIGNING_ALGS (and only with a key)."""
    key = v.get("client-key")
    if key is not None and _key_misplaced(key, v):
        return (
            "client-key",
            "must be the path or ${VAR} template of a key (never the key) of a "
            "`client-credentials` server with a client-id and no client-secret",
            'write client-key = "${MY_CLIENT_KEY}" and export the variable',
        )
    if v.get("signing-alg") is not None and (key is None or v["signing-alg"] not in SIGNING_ALGS):
        return "signing-alg", f"must be one of {', '.join(SIGNING_ALGS)}, with a client-key", None
    return None


def _key_misplaced(key: str, v: Mapping[str, str]) -> bool:
    """A client key that is the key itself, or not of a `client-credentials` server with a
    client-id and no secret."""
    return (
        "PRIVATE KEY" in key
        or v.get("method") != "client-credentials"
        or v.get("client-secret") is not None
        or not v.get("client-id")
    )


def _metadata_url_problem(v: Mapping[str, str]) -> Problem | None:
    cimd = v.get("client-metadata-url")
    if cimd is not None and (v.get("method") != "oauth" or not cimd.startswith("https://")):
        return "client-metadata-url", "must be an https:// URL of an `oauth` server", None
    return None
