"""The HTTP client a probe uses for a server on the OAuth path: httpx2 carrying the SDK's
provider. Never interactive: a stored token is used, refreshed when it has expired (at the
token endpoint discovered at login, remembered in the store), client credentials are
exchanged; when a person would have to log in, the probe fails with a ProbeError whose
next action is the command that logs in (``mcplock auth login NAME``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx2
from mcp.shared.auth import AuthorizationCodeResult

from mcplock.auth.provider import build_provider
from mcplock.errors import COMMAND, ProbeError
from mcplock.probe import ProbeOptions
from mcplock.probe.errors import login_action
from mcplock.probe.http import new_client
from mcplock.spec import ServerSpec


def _not_interactive(spec: ServerSpec, provider: Any) -> tuple[Callable[[str], Any], Callable[[], Any]]:
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
        raise ProbeError("auth", f"server `{spec.name}` needs credentials: an OAuth login is required",
                         action=login_action(spec, retry, offers_retry=True))

    async def callback() -> AuthorizationCodeResult:  # pragma: no cover - redirect() always raises first
        raise ProbeError("auth", f"server `{spec.name}`: login required", action=login_action(spec, f"run `{COMMAND}`"))

    return redirect, callback


def oauth_client(spec: ServerSpec, opts: ProbeOptions, environ: Mapping[str, str]) -> httpx2.AsyncClient:
    """The probe's client for a server on the OAuth path (never interactive)."""
    if spec.transport != "http":
        raise ProbeError("config", f"server `{spec.name}`: OAuth is supported over Streamable HTTP only",
                         hint="use the server's /mcp endpoint with --transport http")
    provider = build_provider(spec, environ)
    if not (spec.auth and spec.auth.method == "client-credentials"):
        provider.context.redirect_handler, provider.context.callback_handler = _not_interactive(spec, provider)
    return new_client(opts, auth=provider)
