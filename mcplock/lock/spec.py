"""How to reach one MCP server: the part of a lock entry that a probe needs.

A ``ServerSpec`` holds only what may be written to the lock: header and env values
are literal non-secret strings or ``${VAR}`` / ``${VAR:-default}`` templates.
Secret values taken from a host config live in ``secrets`` (memory only, never
written, never printed) and are used as the first source when templates expand.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

# re-exported: the spec's transport is this type (a leaf, so that packages/ can use it too)
from mcplock.model.transports import TRANSPORTS as TRANSPORTS
from mcplock.model.transports import Transport as Transport

if TYPE_CHECKING:
    from mcplock.packages.pin import PackagePin, RegistryRef


@dataclass(frozen=True, slots=True)
class ClientIdentity:
    """The client a server is probed and run as (its ``clientInfo``): the lock's ``client``
    table (``{name = "…", version = "…"}``, the version optional) and a launched spec's."""

    name: str
    version: str | None = None  # None: mcplock's own version, when the server is launched

    def stored(self) -> dict[str, str]:
        """The lock's ``client`` table."""
        return {"name": self.name, **({"version": self.version} if self.version is not None else {})}

    def info(self, default_version: str) -> dict[str, str]:
        """The ``clientInfo`` announced: ``default_version`` where none is recorded."""
        return {"name": self.name, "version": self.version if self.version is not None else default_version}


# The client capabilities a server is probed with, by name (mcplock.model.client_capabilities): the
# lock's `client-capabilities` and a launched spec's
ClientCapabilities = tuple[str, ...]


_TEMPLATE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class ServerSpec:
    name: str
    transport: Transport
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None
    # Names of variables passed through from mcplock's environment as they are (opt-in, beyond
    # the minimal environment of mcplock.probe.launch); names only, never values.
    pass_env: tuple[str, ...] = ()
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    source: str | None = None  # host config path, relative to the lock's directory
    pin_resources: bool = False
    # Values for ${VAR} templates taken from a host config: memory only.
    secrets: Mapping[str, str] = field(default_factory=dict, compare=False, repr=False)
    auth: AuthSpec | None = None  # OAuth (mcplock.auth); None: headers only, or none
    # The client to announce (clientInfo); None: ProbeOptions' (mcplock by default). A locked
    # spec's (ServerEntry.spec) is the lock's `client`, its version None for mcplock's own (filled
    # in by ServerEntry.as_launched). Not part of stored(): it is not the host config's.
    client: ClientIdentity | None = None
    # The exact artefact the command runs (mcplock.packages.PackagePin), or None: part of the
    # launch (a changed pin is a changed launch). A host config never has one, so config-hash
    # (taken over an imported spec) is unaffected.
    package: PackagePin | None = None
    # The MCP Registry entry the server was added from (mcplock.packages.pin.RegistryRef), or None.
    # Not part of stored() nor of the launch: what runs is the command and its package pin.
    registry: RegistryRef | None = None
    # The client capabilities it is probed with: the lock's `client-capabilities` (None: not
    # recorded, the default is declared). Not part of stored() either.
    client_capabilities: ClientCapabilities | None = None

    def __post_init__(self) -> None:
        if type(self.transport) is not Transport:  # a name from a file or the command line
            object.__setattr__(self, "transport", Transport(self.transport))

    @property
    def stdio(self) -> bool:
        """Launched here as a child process (a command, its environment and directory)."""
        return self.transport is Transport.STDIO

    @property
    def remote(self) -> bool:
        """Reached at a URL (headers, OAuth)."""
        return self.transport is not Transport.STDIO

    def launch_cwd(self, base: str) -> str | None:
        """Where the server runs: a stdio server in its ``cwd`` resolved against ``base`` (the
        lock's directory), or in ``base`` itself; a remote one has no directory of its own."""
        if not self.stdio:
            return self.cwd
        return os.path.join(base, self.cwd) if self.cwd else base

    def stored(self) -> dict[str, object]:
        """The spec as written to the lock and hashed for ``config-hash`` (no secrets, no client)."""
        out: dict[str, object] = {"transport": str(self.transport)}
        for key, attr, shape in _STORED_FIELDS:
            value = getattr(self, attr)
            if isinstance(value, str) or value:  # a string even empty, a non-empty collection, a true flag
                out[key] = shape(value)
        return out


def _as_is(value: Any) -> Any:
    return value


def _sorted_map(value: Mapping[str, str]) -> dict[str, str]:
    return dict(sorted(value.items()))


def _sorted_names(value: tuple[str, ...]) -> list[str]:
    return sorted(set(value))


def _stored_part(value: Any) -> Any:
    """A part of the spec with its own stored shape (its auth, its package pin)."""
    return value.stored()


# what ServerSpec.stored writes, in its order: (key, ServerSpec attribute, the stored shape)
_STORED_FIELDS: tuple[tuple[str, str, Callable[[Any], Any]], ...] = (
    ("command", "command", _as_is),
    ("args", "args", list),
    ("env", "env", _sorted_map),
    ("pass-env", "pass_env", _sorted_names),
    ("cwd", "cwd", _as_is),
    ("url", "url", _as_is),
    ("headers", "headers", _sorted_map),
    ("pin-resources", "pin_resources", bool),
    ("auth", "auth", _stored_part),
    ("package", "package", _stored_part),
)


# --- auth (the method only: tokens live in the user's token store, never in the lock) ------

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


def is_template(value: str) -> bool:
    """Whether ``value`` is only ``${VAR}`` templates (a secret's only allowed form)."""
    names = template_names(value)
    return bool(names) and value == "".join(f"${{{n}}}" for n in names)


def secure_url(url: str) -> bool:
    """An https:// URL, or http:// to this machine (a secret may be sent to it)."""
    from urllib.parse import urlsplit

    p = urlsplit(url)
    return bool(p.netloc) and (
        p.scheme == "https" or (p.scheme == "http" and p.hostname in ("localhost", "127.0.0.1", "::1"))
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


def expand(value: str, environ: Mapping[str, str] | None = None, secrets: Mapping[str, str] | None = None) -> str:
    """Expand ``${VAR}`` and ``${VAR:-default}`` like Claude Code does.

    ``secrets`` (values from a host config) win over the environment. An unset
    variable without a default expands to the empty string for a probe; callers
    that must report it use :func:`missing_variables`.
    """
    env = os.environ if environ is None else environ
    sec = secrets or {}

    def sub(m: re.Match[str]) -> str:
        name, default = m.group(1), m.group(2)
        if name in sec:
            return sec[name]
        got = env.get(name)
        if got is None or (got == "" and default is not None):
            return default if default is not None else ""
        return got

    return _TEMPLATE.sub(sub, value)


def template_names(value: str) -> list[str]:
    return [m.group(1) for m in _TEMPLATE.finditer(value)]


def missing_variables(spec: ServerSpec, environ: Mapping[str, str] | None = None) -> list[str]:
    """Template variables the spec uses that have no value and no default."""
    env = os.environ if environ is None else environ
    missing: list[str] = []
    for v in _templated(spec):
        for m in _TEMPLATE.finditer(v):
            name, default = m.group(1), m.group(2)
            if default is None and name not in spec.secrets and name not in env and name not in missing:
                missing.append(name)
    return missing


def _templated(spec: ServerSpec) -> list[str]:
    """The values of a spec whose templates a launch expands: args, env, headers, URL, command, cwd."""
    values = [*spec.args, *spec.env.values(), *spec.headers.values()]
    if spec.url:
        values.append(spec.url)
    if spec.command:
        values.append(spec.command)
    if spec.cwd:
        values.append(spec.cwd)
    return values


# --- secrets -----------------------------------------------------------------------------

_SECRET_KEY = re.compile(r"(?i)(token|secret|passw(or)?d|api[-_]?key|auth|credential|cookie|session|private)")
_SECRET_VALUE = re.compile(
    r"(?x)("
    r"gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|sk-[A-Za-z0-9_-]{16,}|xox[abprs]-[A-Za-z0-9-]{10,}"
    r"|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{30,}|glpat-[A-Za-z0-9_-]{16,}|eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}"
    r")"
)


def looks_secret(key: str, value: str) -> bool:
    """Whether a literal header/env value must not be stored.

    A value that is entirely made of templates is never a secret. A value under a
    secret-sounding key (``Authorization``, ``*_TOKEN``, ``API_KEY`` …) or shaped like a
    known credential is one, unless it is empty.
    """
    literal = _TEMPLATE.sub("", value).strip()
    if not literal:
        return False
    if _SECRET_VALUE.search(value):
        return True
    if _SECRET_KEY.search(key):
        # "Bearer ${TOKEN}" leaves "Bearer" after removing the template: not a secret.
        return not (_TEMPLATE.search(value) and re.fullmatch(r"(?i)(bearer|basic|token)", literal))
    return False


def env_var_name(key: str) -> str:
    """A template variable name derived from a header or env key (``X-Api-Key`` → ``X_API_KEY``)."""
    name = re.sub(r"[^A-Za-z0-9]+", "_", key).strip("_").upper()
    if name == "AUTHORIZATION":
        return "AUTHORIZATION"
    if not name or name[0].isdigit():
        name = "V_" + name
    return name
