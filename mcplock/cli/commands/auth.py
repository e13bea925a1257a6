"""`mcplock auth login|logout|status`: OAuth tokens of remote servers.

Tokens never reach the lock, stdout, or an error message; `auth status` shows whether a
token is stored and when it expires, never the token.
"""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING, Any

import typer
from rich.text import Text

from mcplock.cli import context
from mcplock.cli.options import (
    OAUTH_CLIENT_ID,
    OAUTH_CLIENT_KEY,
    OAUTH_CLIENT_METADATA_URL,
    OAUTH_CLIENT_SECRET,
    OAUTH_GRANT,
    OAUTH_ID_TOKEN,
    OAUTH_IDP_CLIENT_ID,
    OAUTH_IDP_CLIENT_SECRET,
    OAUTH_IDP_TOKEN_ENDPOINT,
    OAUTH_ISSUER,
    OAUTH_SCOPES,
    OAUTH_SIGNING_ALG,
)
from mcplock.cli.progress import say_plain
from mcplock.cli.trust import guarded
from mcplock.core import auth_options, oauth
from mcplock.errors import McplockError, UsageError
from mcplock.lock.spec import ServerSpec, Transport
from mcplock.text.untrusted import safe_text

if TYPE_CHECKING:
    from mcplock.auth.store import TokenStore
    from mcplock.lock.model import ServerEntry


def _name(name: str) -> Text:
    return safe_text(name, keep_newlines=False)


def cmd_login(
    ctx: typer.Context,
    target: str = typer.Argument(..., metavar="NAME | URL", help="A server in the lock, or a URL."),
    url: str | None = typer.Argument(None, metavar="[URL]", help="The URL of a server not locked yet."),
    oauth_client_id: str | None = OAUTH_CLIENT_ID,
    oauth_client_secret: str | None = OAUTH_CLIENT_SECRET,
    oauth_scopes: str | None = OAUTH_SCOPES,
    oauth_grant: str | None = OAUTH_GRANT,
    oauth_client_metadata_url: str | None = OAUTH_CLIENT_METADATA_URL,
    oauth_client_key: str | None = OAUTH_CLIENT_KEY,
    oauth_signing_alg: str | None = OAUTH_SIGNING_ALG,
    oauth_id_token: str | None = OAUTH_ID_TOKEN,
    oauth_idp_token_endpoint: str | None = OAUTH_IDP_TOKEN_ENDPOINT,
    oauth_idp_client_id: str | None = OAUTH_IDP_CLIENT_ID,
    oauth_idp_client_secret: str | None = OAUTH_IDP_CLIENT_SECRET,
    oauth_issuer: str | None = OAUTH_ISSUER,
    timeout: float = typer.Option(
        300.0, "--timeout", help="Seconds to wait for the browser to come back (default 300)."
    ),
    no_browser: bool = typer.Option(False, "--no-browser", help="Only print the authorization URL."),
) -> int:
    """Log in to a remote server with OAuth and keep the tokens in your config directory (never in
    the repo): authorization code + PKCE in the browser; client credentials and identity assertion
    (--oauth-id-token) obtain a token with no browser."""
    import asyncio

    from mcplock.auth.login import login

    cli = context.of(ctx)
    assertion = {
        "id_token": oauth_id_token,
        "idp_token_endpoint": oauth_idp_token_endpoint,
        "idp_client_id": oauth_idp_client_id,
        "idp_client_secret": oauth_idp_client_secret,
        "issuer": oauth_issuer,
    }
    auth = auth_options.auth_spec(
        oauth_client_id,
        oauth_client_secret,
        oauth_scopes,
        oauth_grant,
        oauth_client_metadata_url,
        client_key=oauth_client_key,
        signing_alg=oauth_signing_alg,
        assertion=assertion,
    )
    spec, locked = oauth.login_target(target, url, auth, cli.lockfile)
    if locked:  # the lock's URL and headers (a pulled lock's too) receive secrets only once trusted here
        _gate_locked(cli, oauth.login_target(target, url, None, cli.lockfile)[0])
    if timeout <= 0:
        raise UsageError("--timeout must be a positive number of seconds")
    try:
        state = asyncio.run(login(spec, dict(os.environ), timeout=timeout, say=say_plain, open_browser=not no_browser))
    except (McplockError, KeyboardInterrupt):
        _read_and_say_kept(cli, spec)
        raise
    if not state.get("token"):
        cli.say(_name(spec.name).append(": the server did not ask for a login; nothing stored"))
        return 0
    cli.say(Text("logged in to ").append_text(_name(spec.name)).append(f" ({token_state(state)})"))
    if locked:
        _record_locked(cli, spec, typed=auth is not None)
    return 0


def _gate_locked(cli: context.Cli, as_locked: ServerSpec) -> None:
    """A locked server is logged in to (its URL and headers receive secrets) only once trusted here."""
    from mcplock.core import trust as core_trust

    guarded(
        cli,
        lambda: core_trust.gate(
            [as_locked],
            cli.lock_dir,
            how=core_trust.trust_command(cli.lockfile),
            reviewed={core_trust.launch_hash(as_locked)},
        ),
    )


def _record_locked(cli: context.Cli, spec: ServerSpec, *, typed: bool) -> None:
    """After the login to a locked server: its auth method recorded in the lock (a failure is a
    note: the login itself worked); an auth ``typed`` on this command line trusted as the lock
    now has it."""
    try:
        recorded = oauth.record_method(spec, cli.lockfile)
    except McplockError as e:
        cli.info(f"note: could not record the auth method in the lock: {e.message}")
        return
    if recorded is not None and typed:
        from mcplock.core import trust as core_trust

        core_trust.trust([recorded], cli.lock_dir)


def _read_and_say_kept(cli: context.Cli, spec: ServerSpec) -> None:
    """After a failed login: the earlier token, if any, is still stored and still used."""
    from mcplock.auth.store import TokenStore, describe
    from mcplock.lock.templates import expand

    try:
        d = describe(TokenStore().load(expand(spec.url or "", None, spec.secrets))) if spec.url else {}
    except (OSError, McplockError):
        return
    if d.get("token"):
        cli.info(Text("the earlier login to ").append_text(_name(spec.name)).append(f" is kept ({token_state(d)})"))


def cmd_logout(ctx: typer.Context, target: str = typer.Argument(..., metavar="NAME | URL")) -> int:
    """Forget the stored OAuth tokens of a server (the lock is not changed)."""
    from mcplock.auth.store import TokenStore
    from mcplock.lock.templates import expand

    cli = context.of(ctx)
    if "://" in target:
        spec = ServerSpec(name=target, transport=Transport.HTTP, url=target)
    else:
        spec, _ = oauth.login_target(target, None, None, cli.lockfile)
    if not spec.url:
        raise UsageError(f"`{target}` has no URL")
    gone = TokenStore().delete(expand(spec.url))
    cli.say(
        Text("logged out of ").append_text(_name(spec.name)) if gone else _name(spec.name).append(": no token stored")
    )
    return 0


def token_state(d: dict[str, Any], now: float | None = None) -> str:
    if not d.get("token"):
        return "no token"
    now = time.time() if now is None else now
    parts = ["token stored"]
    exp = d.get("expires_at")
    if isinstance(exp, int):
        parts.append(_expiry(exp - now, bool(d.get("refreshable"))))
    if d.get("scopes"):
        parts.append(f"scopes {d['scopes']}")
    return ", ".join(parts)


def _expiry(left: float, refreshable: bool) -> str:
    """A stored token's expiry, ``left`` seconds from now."""
    if left <= 0:
        return "expired" + (", will refresh" if refreshable else "")
    return f"expires in {_span(left)}"


def _span(s: float) -> str:
    if s < 120:
        return f"{int(s)} s"
    if s < 7200:
        return f"{int(s // 60)} min"
    if s < 172800:
        return f"{int(s // 3600)} h"
    return f"{int(s // 86400)} days"


def cmd_status(ctx: typer.Context, fmt: str = typer.Option("text", "--format", help="text or json.")) -> int:
    """The auth method of each remote server in the lock and whether a token is stored (never the token)."""
    from mcplock.auth.store import TokenStore
    from mcplock.lock.read import load

    cli = context.of(ctx)
    cli.report_format("auth status", fmt, ("text", "json"))
    lock = load(cli.lockfile)
    store = TokenStore()
    rows = [
        _read_status_row(name, srv, store)
        for name, srv in sorted(lock.servers.items())
        if not srv.spec.stdio and srv.spec.url
    ]
    if fmt == "json":
        cli.write_json({"version": 1, "command": "auth status", "token_store": str(store.dir), "servers": rows})
        return 0
    if not rows:
        cli.say("no remote servers in the lock")
        return 0
    for r in rows:
        cli.say(_status_line(r))
    cli.info(f"tokens are kept in {store.dir}")
    return 0


def _read_status_row(name: str, srv: ServerEntry, store: TokenStore) -> dict[str, Any]:
    """A remote server's auth method and what the store holds for it (never the token)."""
    from mcplock.auth.store import describe
    from mcplock.lock.templates import expand

    d = describe(store.load(expand(srv.spec.url or "")))
    row: dict[str, Any] = {"name": name, "url": srv.spec.url, "method": _method(srv, d), "token": bool(d.get("token"))}
    for k in ("expires_at", "expired", "refreshable", "scopes", "client_id"):
        if k in d:
            row[k] = d[k]
    return row


def _method(srv: ServerEntry, stored: dict[str, Any]) -> str:
    """The lock's auth method; else a configured Authorization header; else whether a login is stored."""
    if srv.spec.auth is not None:
        return srv.spec.auth.method
    if any(k.lower() == "authorization" for k in srv.spec.headers):
        return "header"
    return "oauth" if stored.get("token") else "none"


def _status_line(r: dict[str, Any]) -> Text:
    """The server, its method, and for a token-based one the token's state and how to get one."""
    line = safe_text(r["name"], "bold", keep_newlines=False).append(f"  {r['method']}")
    if r["method"] not in ("oauth", "client-credentials", "identity-assertion"):
        return line
    line.append("  " + token_state(r), style="green" if r["token"] and not r.get("expired") else "yellow")
    how = _how_to_get_a_token(r)
    if how is not None:
        line.append(f"  ({how}`mcplock auth login ", style="dim").append_text(
            safe_text(r["name"], "dim", keep_newlines=False)
        ).append("`)", style="dim")
    return line


def _how_to_get_a_token(r: dict[str, Any]) -> str | None:
    """For a server without a usable token, the words before the login command that gets it one;
    None: it has one."""
    if r["method"] == "oauth":
        return None if r["token"] else "log in with "
    if not r["token"] or r.get("expired"):  # no browser: fetched when used
        return "a new one is obtained when it is next used, or now: "
    return None


def register(app: typer.Typer) -> None:
    auth = typer.Typer(
        help="OAuth for remote servers: log in, log out, show what is stored.",
        no_args_is_help=True,
        rich_markup_mode=None,
    )
    auth.command("login")(cmd_login)
    auth.command("logout")(cmd_logout)
    auth.command("status")(cmd_status)
    app.add_typer(auth, name="auth")
