"""Options shared by several commands, declared once.

:func:`probing` adds the probing options (``--timeout``, ``--client-name``,
``--client-version``, ``--login`` and, with ``oauth=True``, the OAuth options, ``--oauth-client-id`` and the rest) to a
command and hands them to it as one :class:`ProbeArgs` in its ``probe`` parameter.
"""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, TypeVar, cast

import typer

from mcplock.cli.context import Cli
from mcplock.cli.help_sections import LAUNCH, OAUTH, PROBE
from mcplock.model.client_capabilities import HELP as CAPABILITIES_HELP

if TYPE_CHECKING:
    from mcplock.lock.auth_spec import AuthSpec
    from mcplock.lock.spec import ClientIdentity
    from mcplock.probe import ProbeOptions

F = TypeVar("F", bound=Callable[..., Any])

FORMAT_HELP = "text, json, markdown (step summaries, PR comments), sarif (code scanning) or github (annotations)."
OUTPUT_HELP = "Write the report to FILE instead of stdout."
LOGIN_HELP = "Allow a browser login off a terminal too."
# one line each: what the option takes; docs/oauth.md#command-line-options explains them
CLIENT_ID_HELP = "A pre-registered client id."
CLIENT_SECRET_HELP = "The client secret, as a ${VAR} template."
SCOPES_HELP = "Scopes to ask for (default: the server's)."
GRANT_HELP = "authorization-code, client-credentials, identity-assertion."
CLIENT_KEY_HELP = "A PEM key (private_key_jwt): path or ${VAR}."
SIGNING_ALG_HELP = "Its JWT algorithm (default: the key's)."
CLIENT_METADATA_URL_HELP = "Its client ID metadata document's URL."
ID_TOKEN_HELP = "SEP-990: your IdP's ID token, as a ${VAR}."
IDP_TOKEN_ENDPOINT_HELP = "The IdP's token endpoint (RFC 8693)."
IDP_CLIENT_ID_HELP = "mcplock's client id at the IdP."
IDP_CLIENT_SECRET_HELP = "Its secret at the IdP, as a ${VAR}."
ISSUER_HELP = "The issuer to use (default: as discovered)."

POLICY = typer.Option(
    "all",
    "--policy",
    show_default=False,
    help=("Approval: all (ask before each call), writes (read-only tools do not), none."),
)
ORG_POLICY = typer.Option(
    None,
    "--policy",
    metavar="FILE",
    help=(
        "The organisation's policy file (docs/policy.md); it adds to $MCPLOCK_POLICY, never replaces it. It "
        "outranks the lock; an "
        "unreadable policy, or one with a key this mcplock does not know, is exit 2."
    ),
)
MIN_AGE = typer.Option(
    None,
    "--min-age",
    metavar="DAYS",
    help="Propose no release younger than DAYS (default: the policy's updates.min-age, else 7; 0: any age).",
)
ALLOW_CODE_ENV = typer.Option(
    None,
    "--allow-code-env",
    metavar="VAR",
    help="Launch servers that set this variable although it loads code (NODE_OPTIONS, LD_PRELOAD …) "
    "when no person trusted that launch here (`mcplock trust NAME`); repeat for each.",
)
YES = typer.Option(
    False,
    "--yes",
    "-y",
    help="Answer yes to every question (critical findings stay pending).",
)
TRUST = typer.Option(
    False,
    "--trust",
    help="Trust the host config's commands to run here.",
)
PASS_ENV = typer.Option(
    [],
    "--pass-env",
    metavar="NAME",
    help="Pass this variable as it is (its name is locked, not its value).",
    rich_help_panel=LAUNCH,
)
OAUTH_CLIENT_ID = typer.Option(None, "--oauth-client-id", help=CLIENT_ID_HELP, rich_help_panel=OAUTH)
OAUTH_CLIENT_SECRET = typer.Option(
    None, "--oauth-client-secret", metavar="${VAR}", help=CLIENT_SECRET_HELP, rich_help_panel=OAUTH
)
OAUTH_SCOPES = typer.Option(None, "--oauth-scopes", help=SCOPES_HELP, rich_help_panel=OAUTH)
OAUTH_GRANT = typer.Option(None, "--oauth-grant", help=GRANT_HELP, rich_help_panel=OAUTH)
OAUTH_CLIENT_METADATA_URL = typer.Option(
    None, "--oauth-client-metadata-url", help=CLIENT_METADATA_URL_HELP, rich_help_panel=OAUTH
)
OAUTH_CLIENT_KEY = typer.Option(
    None, "--oauth-client-key", metavar="FILE|${VAR}", help=CLIENT_KEY_HELP, rich_help_panel=OAUTH
)
OAUTH_SIGNING_ALG = typer.Option(
    None, "--oauth-signing-alg", metavar="ALG", help=SIGNING_ALG_HELP, rich_help_panel=OAUTH
)
OAUTH_ID_TOKEN = typer.Option(None, "--oauth-id-token", metavar="${VAR}", help=ID_TOKEN_HELP, rich_help_panel=OAUTH)
OAUTH_IDP_TOKEN_ENDPOINT = typer.Option(
    None, "--oauth-idp-token-endpoint", metavar="URL", help=IDP_TOKEN_ENDPOINT_HELP, rich_help_panel=OAUTH
)
OAUTH_IDP_CLIENT_ID = typer.Option(
    None, "--oauth-idp-client-id", metavar="ID", help=IDP_CLIENT_ID_HELP, rich_help_panel=OAUTH
)
OAUTH_IDP_CLIENT_SECRET = typer.Option(
    None, "--oauth-idp-client-secret", metavar="${VAR}", help=IDP_CLIENT_SECRET_HELP, rich_help_panel=OAUTH
)
OAUTH_ISSUER = typer.Option(None, "--oauth-issuer", metavar="URL", help=ISSUER_HELP, rich_help_panel=OAUTH)


@dataclass(frozen=True)
class ProbeArgs:
    """The probing options of one command run."""

    timeout: float = 30.0
    client_name: str | None = None
    client_version: str | None = None
    client_capabilities: str | None = None
    strict: bool = False
    login: bool = False
    oauth_client_id: str | None = None
    oauth_client_secret: str | None = None
    oauth_scopes: str | None = None
    oauth_grant: str | None = None
    oauth_client_metadata_url: str | None = None
    oauth_client_key: str | None = None
    oauth_signing_alg: str | None = None
    oauth_id_token: str | None = None
    oauth_idp_token_endpoint: str | None = None
    oauth_idp_client_id: str | None = None
    oauth_idp_client_secret: str | None = None
    oauth_issuer: str | None = None

    def options(self, cli: Cli) -> ProbeOptions:
        """The ProbeOptions of this run (built by the core)."""
        from mcplock.core.probing import probe_options
        from mcplock.model.client_capabilities import parse

        cli.strict = self.strict
        return probe_options(
            lockfile=cli.lockfile,
            timeout=self.timeout,
            client_name=self.client_name,
            client_version=self.client_version,
            verbose=cli.verbose,
            client_capabilities=parse(self.client_capabilities),
        )

    def auth(self) -> AuthSpec | None:
        """The ``auth`` the OAuth options (``--oauth-client-id`` …) describe (None without them)."""
        from mcplock.core.auth_options import auth_spec

        return auth_spec(
            self.oauth_client_id,
            self.oauth_client_secret,
            self.oauth_scopes,
            self.oauth_grant,
            self.oauth_client_metadata_url,
            client_key=self.oauth_client_key,
            signing_alg=self.oauth_signing_alg,
            assertion=self.assertion(),
        )

    def assertion(self) -> dict[str, str | None]:
        return {
            "id_token": self.oauth_id_token,
            "idp_token_endpoint": self.oauth_idp_token_endpoint,
            "idp_client_id": self.oauth_idp_client_id,
            "idp_client_secret": self.oauth_idp_client_secret,
            "issuer": self.oauth_issuer,
        }

    def client(self) -> ClientIdentity | None:
        from mcplock.core.specs import client_identity

        return client_identity(self.client_name, self.client_version)


_COMMON: list[tuple[str, Any, Any]] = [
    (
        "timeout",
        float,
        typer.Option(
            30.0,
            "--timeout",
            help="Seconds per server for the whole probe (30).",
            show_default=False,
            rich_help_panel=PROBE,
        ),
    ),
    (
        "client_name",
        str | None,
        typer.Option(
            None,
            "--client-name",
            help="The client name to probe as (as a host does).",
            rich_help_panel=PROBE,
        ),
    ),
    (
        "client_version",
        str | None,
        typer.Option(
            None, "--client-version", help="The version to announce with --client-name.", rich_help_panel=PROBE
        ),
    ),
    (
        "client_capabilities",
        str | None,
        typer.Option(None, "--client-capabilities", metavar="LIST", help=CAPABILITIES_HELP, rich_help_panel=PROBE),
    ),
    (
        "strict",
        bool,
        typer.Option(
            False,
            "--strict",
            help="Exit 2 on an unset ${VAR} without a default.",
            rich_help_panel=PROBE,
        ),
    ),
]
_LOGIN = ("login", bool, typer.Option(False, "--login", help=LOGIN_HELP, rich_help_panel=PROBE))
_OAUTH: list[tuple[str, Any, Any]] = [
    ("oauth_client_id", str | None, OAUTH_CLIENT_ID),
    ("oauth_client_secret", str | None, OAUTH_CLIENT_SECRET),
    ("oauth_scopes", str | None, OAUTH_SCOPES),
    ("oauth_grant", str | None, OAUTH_GRANT),
    ("oauth_client_metadata_url", str | None, OAUTH_CLIENT_METADATA_URL),
    ("oauth_client_key", str | None, OAUTH_CLIENT_KEY),
    ("oauth_signing_alg", str | None, OAUTH_SIGNING_ALG),
    ("oauth_id_token", str | None, OAUTH_ID_TOKEN),
    ("oauth_idp_token_endpoint", str | None, OAUTH_IDP_TOKEN_ENDPOINT),
    ("oauth_idp_client_id", str | None, OAUTH_IDP_CLIENT_ID),
    ("oauth_idp_client_secret", str | None, OAUTH_IDP_CLIENT_SECRET),
    ("oauth_issuer", str | None, OAUTH_ISSUER),
]
_NAMES = {f.name for f in fields(ProbeArgs)}


def probing(*, oauth: bool = False, login: bool = True) -> Callable[[F], F]:
    """Give a command the probing options; it receives them as ``probe: ProbeArgs``."""
    extra = list(_COMMON) + ([_LOGIN] if login else []) + (_OAUTH if oauth else [])

    def deco(fn: F) -> F:
        sig = inspect.signature(fn)
        hints = typing.get_type_hints(fn)
        own = [p for name, p in sig.parameters.items() if name != "probe"]
        added = [
            inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=opt, annotation=ann)
            for name, ann, opt in extra
        ]

        @functools.wraps(fn)
        def wrapper(*args: Any, **kw: Any) -> Any:
            given = {k: kw.pop(k) for k in list(kw) if k in _NAMES}
            return fn(*args, probe=ProbeArgs(**given), **kw)

        # typer reads the signature a function carries
        wrapper.__signature__ = sig.replace(parameters=own + added)  # type: ignore[attr-defined]  # typeshed has no function __signature__
        wrapper.__annotations__ = {
            **{k: v for k, v in hints.items() if k != "probe"},
            **{name: ann for name, ann, _ in extra},
        }
        return cast(F, wrapper)  # the command as typer must see it: its own options, then the probing ones

    return deco


def fail_on_severity(value: str | None, example: str) -> str | None:
    """``--fail-on``: one of the severities, any case; ``example`` is the command the hint shows."""
    from mcplock.errors import UsageError
    from mcplock.model.severity import SEVERITIES

    if value is None:
        return None
    if value.lower() not in SEVERITIES:
        raise UsageError(
            f"unknown severity `{value}` for --fail-on",
            hint=f"use --fail-on {'|'.join(SEVERITIES)}, e.g. `{example}`",
        )
    return value.lower()
