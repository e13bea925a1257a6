"""An OAuth flow's failures as mcplock reports them: an SDK exception as a :class:`ProbeError`
that names the next step (:func:`translate`), an auth flow driven with its exceptions translated
as they leave it (:func:`translated`), and the ``error`` of an OAuth error body (:func:`oauth_error`).

Imports the SDK (``mcp``): only the OAuth path may import this module.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncGenerator, Callable

import httpx2
from mcp.client.auth import OAuthFlowError, OAuthRegistrationError, OAuthTokenError
from pydantic import ValidationError

from mcplock.errors import COMMAND, Action, ProbeError
from mcplock.lock.spec import ServerSpec
from mcplock.probe.errors import login_action
from mcplock.text.untrusted import sanitize

# The SDK logs a traceback ("OAuth flow error") before re-raising; mcplock reports the error itself.
for _name in ("mcp.client.auth", "mcp.client.auth.oauth2"):
    _log = logging.getLogger(_name)
    _log.addHandler(logging.NullHandler())
    _log.propagate = False


async def translated(
    flow: AsyncGenerator[httpx2.Request, httpx2.Response],
    to_error: Callable[[Exception], BaseException],
) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
    """An SDK auth flow driven for httpx2, its exceptions leaving as ``to_error(e)`` (a
    ProbeError naming the next step; ``e`` itself when there is nothing to add). mcplock's own
    errors and httpx2's pass as they are."""
    try:
        outgoing = await flow.__anext__()
        while True:
            response = yield outgoing
            outgoing = await flow.asend(response)
    except StopAsyncIteration:
        return
    except (ProbeError, httpx2.HTTPError):
        raise
    except Exception as e:
        new = to_error(e)
        if new is e:
            raise
        raise new from None
    finally:
        await flow.aclose()


def oauth_error(body: bytes) -> str | None:
    """``error`` (and ``error_description``) of an OAuth error body, sanitized."""
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


def translate(e: BaseException, spec: ServerSpec, *, cc: bool = False, registered: bool = False) -> BaseException:
    """An SDK exception as a ProbeError that names the next step (others come back as they are).
    ``registered``: the token endpoint refused the client mcplock registered itself (not one the
    user configured), so the advice is a new registration, not a check of --oauth-client-id."""
    if isinstance(e, (ProbeError, httpx2.HTTPError)):
        return e
    name = spec.name
    text = sanitize(str(e), 300)
    if isinstance(e, OAuthRegistrationError):
        return ProbeError(
            "auth",
            f"server `{name}`: the authorization server rejected the client registration: {text}",
            hint="register a client with the provider and pass it with --oauth-client-id",
        )
    if isinstance(e, OAuthTokenError):
        return _token_refused(spec, text, cc=cc, registered=registered)
    if isinstance(e, OAuthFlowError):
        return ProbeError(
            "auth",
            f"server `{name}`: OAuth failed: {text}",
            action=login_action(
                spec, f"run `{COMMAND}` again; if it persists, the server's OAuth set-up may be broken"
            ),
        )
    if isinstance(e, ValidationError):
        return ProbeError(
            "auth",
            f"server `{name}`: the authorization server sent invalid OAuth metadata or tokens",
            hint="the server's OAuth set-up looks broken; ask its operators",
        )
    return e


def _rejects_client(low: str) -> bool:
    """Whether a token endpoint's refusal (lower case) is of the client itself."""
    return "invalid_client" in low or "unauthorized_client" in low or "(401)" in low


def _token_refused(spec: ServerSpec, text: str, *, cc: bool, registered: bool) -> ProbeError:
    """A refused token request, by what was refused: mcplock's own registration, the client,
    the scopes — else the request (the step differs for client credentials, where no login helps)."""
    name = spec.name
    low = text.lower()
    if registered:
        return ProbeError(
            "auth",
            f"server `{name}`: the authorization server no longer accepts the client"
            f" mcplock registered with it: {text}",
            action=login_action(spec, f"run `{COMMAND}` again (`auth login` registers a new client)"),
        )
    if _rejects_client(low):
        step = (
            Action(
                "advice",
                "check --oauth-client-id and that the secret variable (or the client key) is the one registered",
            )
            if cc
            else login_action(
                spec, f"check --oauth-client-id, or drop it to register dynamically; then run `{COMMAND}`"
            )
        )
        return ProbeError("auth", f"server `{name}`: the authorization server rejected the client: {text}", action=step)
    if "invalid_scope" in low:
        return ProbeError(
            "auth",
            f"server `{name}`: the authorization server rejected the scopes: {text}",
            hint="check --oauth-scopes",
        )
    return ProbeError(
        "auth",
        f"server `{name}`: the OAuth token request failed: {text}",
        action=Action("advice", "check the client id and secret")
        if cc
        else login_action(spec, f"run `{COMMAND}` again"),
    )
