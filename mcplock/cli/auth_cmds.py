"""`mcplock auth login|logout|status`, and the OAuth glue of the probing commands
(`--login`, `--oauth-client-id`, `--oauth-client-secret '${VAR}'`, `--oauth-scopes`).

Light at import time: the MCP SDK is imported only inside a login (mcplock.auth.login).
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
from mcplock.errors import Action, McplockError, ProbeError, SecretError, UsageError
from mcplock.untrusted import safe_text
from mcplock.spec import AuthSpec, ServerSpec, template_names

LOGIN_HELP = ("Allow an OAuth login in the browser when a server asks for one, even without a terminal "
              "(by default only on a TTY).")
CLIENT_ID_HELP = "OAuth: a pre-registered client id (default: dynamic client registration)."
CLIENT_SECRET_HELP = ("OAuth: the client secret as a ${VAR} template (never the secret itself); implies the "
                      "client_credentials grant unless --oauth-grant authorization-code.")
SCOPES_HELP = "OAuth: the scopes to ask for, space-separated (default: what the server advertises)."
GRANT_HELP = ("OAuth: authorization-code (log in in the browser; with --oauth-client-secret a confidential "
              "pre-registered client) or client-credentials (CI). Default: client-credentials with a secret, "
              "else authorization-code.")
CLIENT_METADATA_URL_HELP = ("OAuth: an https:// URL of a client ID metadata document (the URL is the client id), "
                            "used where the authorization server supports it, else dynamic registration.")
GRANTS = ("authorization-code", "client-credentials")

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


def auth_spec(client_id: Optional[str], client_secret: Optional[str], scopes: Optional[str],
              grant: Optional[str] = None, client_metadata_url: Optional[str] = None) -> AuthSpec | None:
    """The ``auth`` of a server from the command-line options (None when none is given).

    A secret means the client_credentials grant unless ``--oauth-grant authorization-code``
    asks for a confidential client in the authorization-code flow."""
    if grant is not None and grant not in GRANTS:
        raise UsageError(f"--oauth-grant takes {' or '.join(GRANTS)}")
    if client_secret is not None:
        names = template_names(client_secret)
        if not names or client_secret != "".join(f"${{{n}}}" for n in names):
            raise SecretError("--oauth-client-secret takes a ${VAR} template, never the secret itself",
                              hint="export it (export MCP_CLIENT_SECRET=…) and pass --oauth-client-secret '${MCP_CLIENT_SECRET}'")
        if not client_id:
            raise UsageError("--oauth-client-secret needs --oauth-client-id")
    elif grant == "client-credentials":
        raise UsageError("--oauth-grant client-credentials needs --oauth-client-id and --oauth-client-secret '${VAR}'")
    if client_metadata_url is not None:
        from urllib.parse import urlsplit

        p = urlsplit(client_metadata_url)
        if p.scheme != "https" or not p.netloc or p.path in ("", "/"):
            raise UsageError("--oauth-client-metadata-url takes an https:// URL with a path "
                             "(e.g. https://example.com/mcplock/client.json)")
        if client_id or grant == "client-credentials" or client_secret is not None:
            raise UsageError("--oauth-client-metadata-url is a client id of its own: not with --oauth-client-id, "
                             "a secret or client credentials")
    if client_secret is not None and grant != "authorization-code":
        return AuthSpec("client-credentials", client_id=client_id, client_secret=client_secret, scopes=scopes or None)
    if client_id or client_secret or scopes or client_metadata_url or grant:
        return AuthSpec("oauth", client_id=client_id or None, client_secret=client_secret, scopes=scopes or None,
                        client_metadata_url=client_metadata_url)
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


def record_oauth(cur: Any) -> None:
    """`refresh`: a locked server without `auth` that answered through a stored OAuth login
    (it started asking for one after it was locked) gets `auth = "oauth"` in the lock."""
    if cur.auth is None and cur.transport == "http":
        from mcplock.cli.probing import spec_of

        cur.auth = lock_auth(spec_of(cur))


def login_command(spec: ServerSpec, locked: bool) -> str:
    """The `mcplock auth login …` that works as printed: a locked server by its name; any other
    (`add` before it is locked, `inspect`) by name and URL, with the OAuth options it was given."""
    import shlex

    if locked:
        return f"mcplock auth login {shlex.quote(spec.name)}"
    parts = ["mcplock", "auth", "login"]
    if spec.name != "inspect":
        parts.append(shlex.quote(spec.name))
    parts.append(shlex.quote(spec.url or ""))
    a = spec.auth
    if a is not None:
        for opt, v in (("--oauth-client-id", a.client_id), ("--oauth-client-secret", a.client_secret),
                       ("--oauth-client-metadata-url", a.client_metadata_url), ("--oauth-scopes", a.scopes)):
            if v:
                parts += [opt, shlex.quote(v)]
        if a.method == "oauth" and a.client_secret:
            parts += ["--oauth-grant", "authorization-code"]
    return " ".join(parts)


def _locked_names(specs: list[ServerSpec]) -> set[str]:
    """Which of ``specs`` are in the lock with the same URL (read only on this error path)."""
    lockfile = output.settings().lockfile
    if not os.path.exists(lockfile):
        return set()
    try:
        from mcplock.lock.read import load

        servers = load(lockfile).servers
    except McplockError:
        return set()
    return {s.name for s in specs if s.name in servers and servers[s.name].url == s.url}


def _login_action(err: Any) -> Action | None:
    if isinstance(err, ProbeError) and err.action is not None and err.action.kind == "login":
        return err.action
    return None


def fix_login_hints(specs: list[ServerSpec], results: dict[str, Any]) -> None:
    """The probe names `mcplock auth login NAME`; for a server not in the lock that command
    would fail ("no server NAME"), so its next action names the URL too."""
    todo = [s for s in specs if s.transport == "http" and s.url and _login_action(results.get(s.name))]
    if not todo:
        return
    locked = _locked_names(todo)
    for s in todo:
        err = results[s.name]
        if s.name not in locked:
            err.action = err.action.with_command(login_command(s, locked=False))


def _needs_login(spec: ServerSpec, err: Any) -> bool:
    if not isinstance(err, ProbeError) or err.kind != "auth" or spec.transport != "http":
        return False
    if spec.auth is not None and spec.auth.method == "client-credentials":
        return False
    if any(k.lower() == "authorization" for k in spec.headers):
        return False
    return _login_action(err) is not None


def _say(text: str) -> None:
    sys.stderr.write(text + "\n")  # plain: the URL must stay copy-pasteable
    sys.stderr.flush()


def after_probe(specs: list[ServerSpec], results: dict[str, Any], reprobe: Callable[[list[ServerSpec]], dict[str, Any]],
                environ: Optional[dict[str, str]] = None) -> dict[str, Any]:
    """Servers that answered "log in first": log in (browser) when allowed, then probe them
    again; otherwise say how to log in."""
    results = _after_probe(specs, results, reprobe, environ)
    fix_login_hints(specs, results)
    return results


def _after_probe(specs: list[ServerSpec], results: dict[str, Any], reprobe: Callable[[list[ServerSpec]], dict[str, Any]],
                 environ: Optional[dict[str, str]]) -> dict[str, Any]:
    todo = [s for s in specs if _needs_login(s, results.get(s.name))]
    if not todo:
        return results
    if not login_allowed():
        for s in todo:
            err = results[s.name]
            err.action = err.action.with_retry("--login")
        return results
    import asyncio

    from mcplock.auth.login import login

    from dataclasses import replace

    env = dict(environ if environ is not None else os.environ)
    for _round in range(2):  # a second round for a scope step-up found by the new probe
        again: list[ServerSpec] = []
        for s in todo:
            step = _login_action(results.get(s.name))
            scopes = step.scopes if step is not None else None
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
        todo = [s for s in again if _needs_login(s, results.get(s.name)) and results[s.name].action.scopes]
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
    oauth_grant: Optional[str] = typer.Option(None, "--oauth-grant", help=GRANT_HELP),
    oauth_client_metadata_url: Optional[str] = typer.Option(None, "--oauth-client-metadata-url", help=CLIENT_METADATA_URL_HELP),
    timeout: float = typer.Option(300.0, "--timeout", help="Seconds to wait for the browser to come back (default 300)."),
    no_browser: bool = typer.Option(False, "--no-browser", help="Only print the authorization URL."),
) -> int:
    """Log in to a remote server with OAuth (authorization code + PKCE in the browser) and keep
    the tokens in your config directory (never in the repo)."""
    import asyncio

    from mcplock.auth.login import login

    spec, locked = _target_spec(target, url, auth_spec(oauth_client_id, oauth_client_secret, oauth_scopes,
                                                       oauth_grant, oauth_client_metadata_url))
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
