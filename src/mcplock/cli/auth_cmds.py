"""`mcplock auth login|logout|status`, and the OAuth glue of the probing commands
(`--login`, `--oauth-client-id`, `--oauth-client-secret '${VAR}'`, `--oauth-scopes`).

Light at import time: the MCP SDK is imported only inside a login (mcplock.auth.oauth).
Tokens never reach the lock, stdout, or an error message; `auth status` shows whether a
token is stored and when it expires, never the token.
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any, Callable, Optional

import typer
from rich.text import Text

from mcplock.cli import output
from mcplock.errors import McplockError, ProbeError, SecretError, UsageError
from mcplock.render.safe import safe_text
from mcplock.spec import AuthSpec, ServerSpec, template_names

LOGIN_HELP = ("Allow an OAuth login in the browser when a server asks for one, even without a terminal "
              "(by default only on a TTY).")
CLIENT_ID_HELP = "OAuth: a pre-registered client id (default: dynamic client registration)."
CLIENT_SECRET_HELP = ("OAuth client credentials for CI: the client secret as a ${VAR} template "
                      "(never the secret itself); implies the client_credentials grant.")
SCOPES_HELP = "OAuth: the scopes to ask for, space-separated (default: what the server advertises)."

# Set by --login (a typer callback): the probing commands may start a browser login.
login_requested = False


def set_login(value: bool) -> bool:
    global login_requested
    if value:
        login_requested = True
    return value


def login_allowed() -> bool:
    if os.environ.get("MCPLOCK_LOGIN") == "0":
        return False
    return login_requested or os.environ.get("MCPLOCK_LOGIN") == "1" or sys.stdin.isatty()


def auth_spec(client_id: Optional[str], client_secret: Optional[str], scopes: Optional[str]) -> AuthSpec | None:
    """The ``auth`` of a server from the command-line options (None when none is given)."""
    if client_secret is not None:
        names = template_names(client_secret)
        if not names or client_secret != "".join(f"${{{n}}}" for n in names):
            raise SecretError("--oauth-client-secret takes a ${VAR} template, never the secret itself",
                              hint="export it (export MCP_CLIENT_SECRET=…) and pass --oauth-client-secret '${MCP_CLIENT_SECRET}'")
        if not client_id:
            raise UsageError("--oauth-client-secret needs --oauth-client-id")
        return AuthSpec("client-credentials", client_id=client_id, client_secret=client_secret, scopes=scopes or None)
    if client_id or scopes:
        return AuthSpec("oauth", client_id=client_id or None, scopes=scopes or None)
    return None


def lock_auth(spec: ServerSpec) -> str | dict[str, str] | None:
    """What the lock records about a server's auth after a successful probe: the configured
    method, or ``"oauth"`` when the probe went through a stored OAuth login."""
    if spec.auth is not None:
        return spec.auth.stored()
    if spec.transport == "http" and spec.url and not any(k.lower() == "authorization" for k in spec.headers):
        from mcplock.auth.store import TokenStore
        from mcplock.spec import expand

        try:
            if TokenStore().exists(expand(spec.url, None, spec.secrets)):
                return "oauth"
        except OSError:
            return None
    return None


def _needs_login(spec: ServerSpec, err: Any) -> bool:
    if not isinstance(err, ProbeError) or err.kind != "auth" or spec.transport != "http":
        return False
    if spec.auth is not None and spec.auth.method == "client-credentials":
        return False
    if any(k.lower() == "authorization" for k in spec.headers):
        return False
    return "auth login" in (err.hint or "")


def _say(text: str) -> None:
    sys.stderr.write(text + "\n")  # plain: the URL must stay copy-pasteable
    sys.stderr.flush()


def after_probe(specs: list[ServerSpec], results: dict[str, Any], reprobe: Callable[[list[ServerSpec]], dict[str, Any]],
                environ: Optional[dict[str, str]] = None) -> dict[str, Any]:
    """Servers that answered "log in first": log in (browser) when allowed, then probe them
    again; otherwise say how to log in."""
    todo = [s for s in specs if _needs_login(s, results.get(s.name))]
    if not todo:
        return results
    if not login_allowed():
        for s in todo:
            err = results[s.name]
            err.hint = (err.hint or "").rstrip(".") + "; or run this command again with --login"
        return results
    import asyncio

    from mcplock.auth.oauth import login

    from dataclasses import replace

    env = dict(environ if environ is not None else os.environ)
    for _round in range(2):  # a second round for a scope step-up found by the new probe
        again: list[ServerSpec] = []
        for s in todo:
            scopes = getattr(results.get(s.name), "oauth_scopes", None)
            if scopes:  # step-up: ask for the scopes the server named
                s = replace(s, auth=replace(s.auth or AuthSpec("oauth"), scopes=scopes))
            try:
                asyncio.run(login(s, env, say=_say))
                again.append(s)
            except ProbeError as e:
                results[s.name] = e
        if not again:
            break
        results = {**results, **reprobe(again)}
        todo = [s for s in again if _needs_login(s, results.get(s.name)) and getattr(results[s.name], "oauth_scopes", None)]
        if not todo:
            break
    return results


# --- commands --------------------------------------------------------------------------------


def _target_spec(target: str, url: Optional[str], auth: AuthSpec | None) -> tuple[ServerSpec, bool]:
    """The spec to log in to: a locked server by name, or a URL. Returns (spec, locked)."""
    from dataclasses import replace

    if "://" in target and url is None:
        return ServerSpec(name=target, transport="http", url=target, auth=auth), False
    lockfile = output.settings().lockfile
    srv = None
    if os.path.exists(lockfile):
        from mcplock.lock.read import load

        srv = load(lockfile).servers.get(target)
    if srv is None:
        if url is None:
            raise UsageError(f"no server `{target}` in {lockfile}",
                             hint=f"give its URL: `mcplock auth login {target} https://…/mcp`")
        return ServerSpec(name=target, transport="http", url=url, auth=auth), False
    from mcplock.cli.probing import spec_of

    spec = spec_of(srv)
    if srv.transport == "stdio":
        raise UsageError(f"`{target}` is a stdio server: OAuth is for remote servers")
    if url is not None and url != srv.url:
        raise UsageError(f"`{target}` is locked with another URL ({srv.url})")
    if auth is not None:
        spec = replace(spec, auth=auth)
    return spec, True


def cmd_login(
    target: str = typer.Argument(..., metavar="NAME | URL", help="A server in the lock, or a URL."),
    url: Optional[str] = typer.Argument(None, metavar="[URL]", help="The URL of a server not locked yet."),
    oauth_client_id: Optional[str] = typer.Option(None, "--oauth-client-id", help=CLIENT_ID_HELP),
    oauth_client_secret: Optional[str] = typer.Option(None, "--oauth-client-secret", help=CLIENT_SECRET_HELP),
    oauth_scopes: Optional[str] = typer.Option(None, "--oauth-scopes", help=SCOPES_HELP),
    timeout: float = typer.Option(300.0, "--timeout", help="Seconds to wait for the browser to come back (default 300)."),
    no_browser: bool = typer.Option(False, "--no-browser", help="Only print the authorization URL."),
) -> int:
    """Log in to a remote server with OAuth (authorization code + PKCE in the browser) and keep
    the tokens in your config directory (never in the repo)."""
    import asyncio

    from mcplock.auth.oauth import login

    spec, locked = _target_spec(target, url, auth_spec(oauth_client_id, oauth_client_secret, oauth_scopes))
    if timeout <= 0:
        raise UsageError("--timeout must be a positive number of seconds")
    env = dict(os.environ)
    state = asyncio.run(login(spec, env, timeout=timeout, say=_say, open_browser=not no_browser))
    if not state.get("token"):
        output.say(Text("").append_text(safe_text(spec.name, keep_newlines=False))
                   .append(": the server did not ask for a login; nothing stored"))
        return 0
    line = Text("logged in to ").append_text(safe_text(spec.name, keep_newlines=False))
    line.append(f" ({_token_state(state)})")
    output.say(line)
    if locked:
        _record_method(spec)
    return 0


def _record_method(spec: ServerSpec) -> None:
    """Note in the lock which auth method the server uses (never a token)."""
    from mcplock.lock.store import transaction

    method = spec.auth.stored() if spec.auth is not None else "oauth"
    try:
        with transaction(output.settings().lockfile) as lock:
            srv = lock.servers.get(spec.name)
            if srv is not None and srv.auth is None:
                srv.auth = method
    except McplockError as e:  # the login itself worked
        output.info(f"note: could not record the auth method in the lock: {e.message}")


def cmd_logout(
    target: str = typer.Argument(..., metavar="NAME | URL"),
) -> int:
    """Forget the stored OAuth tokens of a server (the lock is not changed)."""
    from mcplock.auth.store import TokenStore
    from mcplock.spec import expand

    spec, _ = _target_spec(target, None, None) if "://" not in target else (ServerSpec(name=target, transport="http", url=target), False)
    if not spec.url:
        raise UsageError(f"`{target}` has no URL")
    gone = TokenStore().delete(expand(spec.url))
    name = Text().append_text(safe_text(spec.name, keep_newlines=False))
    output.say(Text("logged out of ").append_text(name) if gone else name.append(": no token stored"))
    return 0


def _token_state(d: dict[str, Any], now: float | None = None) -> str:
    if not d.get("token"):
        return "no token"
    now = time.time() if now is None else now
    parts = ["token stored"]
    exp = d.get("expires_at")
    if isinstance(exp, int):
        left = exp - now
        if left <= 0:
            parts.append("expired" + (", will refresh" if d.get("refreshable") else ""))
        else:
            parts.append(f"expires in {_span(left)}")
    if d.get("scopes"):
        parts.append(f"scopes {d['scopes']}")
    return ", ".join(parts)


def _span(s: float) -> str:
    if s < 120:
        return f"{int(s)} s"
    if s < 7200:
        return f"{int(s // 60)} min"
    if s < 172800:
        return f"{int(s // 3600)} h"
    return f"{int(s // 86400)} days"


def cmd_status(
    fmt: str = typer.Option("text", "--format", help="text or json."),
) -> int:
    """The auth method of each remote server in the lock and whether a token is stored (never the token)."""
    from mcplock.auth.store import TokenStore, describe
    from mcplock.lock.read import load
    from mcplock.spec import expand

    if fmt not in ("text", "json"):
        raise UsageError("use --format text or --format json")
    if fmt == "json":
        from mcplock.cli import app

        app.json_command = "auth status"
    lock = load(output.settings().lockfile)
    store = TokenStore()
    rows: list[dict[str, Any]] = []
    for name in sorted(lock.servers):
        srv = lock.servers[name]
        if srv.transport == "stdio" or not srv.url:
            continue
        d = describe(store.load(expand(srv.url)))
        if srv.auth is not None:
            method = srv.auth if isinstance(srv.auth, str) else srv.auth.get("method", "oauth")
        elif any(k.lower() == "authorization" for k in srv.headers):
            method = "header"
        else:
            method = "oauth" if d.get("token") else "none"
        row: dict[str, Any] = {"name": name, "url": srv.url, "method": method, "token": bool(d.get("token"))}
        for k in ("expires_at", "expired", "refreshable", "scopes", "client_id"):
            if k in d:
                row[k] = d[k]
        rows.append(row)
    if fmt == "json":
        sys.stdout.write(json.dumps({"version": 1, "command": "auth status", "token_store": str(store.dir),
                                     "servers": rows}, indent=2) + "\n")
        return 0
    if not rows:
        output.say("no remote servers in the lock")
        return 0
    for r in rows:
        line = Text().append_text(safe_text(r["name"], "bold", keep_newlines=False)).append(f"  {r['method']}")
        if r["method"] in ("oauth", "client-credentials"):
            line.append("  " + _token_state(r), style="green" if r["token"] and not r.get("expired") else "yellow")
            if not r["token"] and r["method"] == "oauth":
                line.append(f"  (log in with `mcplock auth login {r['name']}`)", style="dim")
        output.say(line)
    output.info(f"tokens are kept in {store.dir}")
    return 0


def register(app: typer.Typer) -> None:
    auth = typer.Typer(help="OAuth for remote servers: log in, log out, show what is stored.",
                       no_args_is_help=True, rich_markup_mode=None)
    auth.command("login")(cmd_login)
    auth.command("logout")(cmd_logout)
    auth.command("status")(cmd_status)
    app.add_typer(auth, name="auth")
