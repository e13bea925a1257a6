"""OAuth around a probe (the ``auth`` of a server from options: :mod:`mcplock.core.auth_options`):
what the lock records after a probe, logging in where a server asks (then probing again), and login hints
that work as printed.

Light at import time: the MCP SDK is imported only inside a login (mcplock.auth.login).
Tokens never reach the lock or an error message.
"""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any, TypeGuard

from mcplock.errors import Action, McplockError, ProbeError, UsageError
from mcplock.lock.auth_spec import AuthSpec
from mcplock.lock.model import ServerEntry
from mcplock.lock.spec import ServerSpec, Transport
from mcplock.lock.templates import expand
from mcplock.text.untrusted import shell_word

if TYPE_CHECKING:
    from mcplock.auth.store import TokenStore


Say = Callable[[str], None]
Reprobe = Callable[[list[ServerSpec]], dict[str, Any]]


def login_allowed(requested: bool, environ: Mapping[str, str] | None = None) -> bool:
    """A browser login may start: asked for (--login, MCPLOCK_LOGIN=1) or on a terminal;
    never with MCPLOCK_LOGIN=0."""
    env = os.environ if environ is None else environ
    if env.get("MCPLOCK_LOGIN") == "0":
        return False
    return requested or env.get("MCPLOCK_LOGIN") == "1" or sys.stdin.isatty()


def read_lock_auths(specs: Iterable[ServerSpec]) -> dict[str, AuthSpec | None]:
    """Reads the token store, once for all of ``specs``: what the lock records about each
    server's auth after a successful probe (:func:`read_lock_auth`)."""
    from mcplock.auth.store import TokenStore

    store = TokenStore()
    return {s.name: _read_lock_auth_from(s, store) for s in specs}


def read_lock_auth(spec: ServerSpec) -> AuthSpec | None:
    """Reads the token store: what the lock records about a server's auth after a successful
    probe — the configured method (an identity assertion's discovered issuer added), or
    ``"oauth"`` when the probe went through a stored OAuth login."""
    return read_lock_auths([spec])[spec.name]


def _read_lock_auth_from(spec: ServerSpec, store: TokenStore) -> AuthSpec | None:
    auth = spec.auth
    if _issuer_to_discover(auth):
        # the authorization server the probe discovered from the resource's metadata is locked:
        # later runs send the ID-JAG and the client secret to it only (see docs/oauth.md)
        issuer = _read_discovered_issuer(spec, store)
        return replace(auth, issuer=issuer) if issuer is not None else auth
    if auth is not None:
        return auth
    return AuthSpec("oauth") if _read_logged_in(spec, store) else None


def _issuer_to_discover(auth: AuthSpec | None) -> TypeGuard[AuthSpec]:
    """Whether ``auth`` is an identity assertion with no issuer configured: the probe discovers it."""
    return auth is not None and auth.method == "identity-assertion" and auth.issuer is None


def _read_discovered_issuer(spec: ServerSpec, store: TokenStore) -> str | None:
    """The authorization server the stored login of ``spec``'s URL went to (None: none read)."""
    try:
        issuer = (store.load(expand(spec.url or "", None, spec.secrets)) or {}).get("auth_server_url")
    except (OSError, McplockError):
        return None
    return issuer if isinstance(issuer, str) else None


def _read_logged_in(spec: ServerSpec, store: TokenStore) -> bool:
    """Whether a remote server without an Authorization header of its own went through a
    stored OAuth login."""
    if spec.transport is not Transport.HTTP or not spec.url or _has_authorization_header(spec):
        return False
    try:
        return store.exists(expand(spec.url, None, spec.secrets))
    except OSError:
        return False


def _has_authorization_header(spec: ServerSpec) -> bool:
    """Whether the server's spec sends an Authorization header of its own."""
    return any(k.lower() == "authorization" for k in spec.headers)


def discovered_launch(specs: list[ServerSpec], auths: Mapping[str, AuthSpec | None]) -> list[ServerSpec]:
    """Identity-assertion servers whose probe found their authorization server (no issuer
    configured), as the lock will have them (``auths``: :func:`read_lock_auths`), with that
    issuer: trusted along with the launch that found it, so the next run of the lock is not asked
    about it again."""
    out = []
    for s in specs:
        locked = auths.get(s.name)
        if _issuer_to_discover(s.auth) and locked is not None and locked.issuer:
            out.append(replace(s, auth=locked))
    return out


def record_oauth(cur: ServerEntry, base: str) -> None:
    """`refresh`: a locked server without `auth` that answered through a stored OAuth login
    (it started asking for one after it was locked) gets `auth = "oauth"` in the lock."""
    if cur.spec.auth is None and cur.spec.transport is Transport.HTTP:
        cur.spec = replace(cur.spec, auth=read_lock_auth(cur.as_launched(base)))


def login_command(spec: ServerSpec, locked: bool) -> str:
    """The `mcplock auth login …` that works as printed: a locked server by its name; any other
    (`add` before it is locked, `inspect`) by name and URL, with the OAuth options it was given."""
    if locked:
        return f"mcplock auth login {shell_word(spec.name)}"
    parts = ["mcplock", "auth", "login"]
    if spec.name != "inspect":
        parts.append(shell_word(spec.name))
    parts.append(shlex.quote(spec.url or ""))
    if spec.auth is not None:
        parts += _auth_options(spec.auth)
    return " ".join(parts)


def _auth_options(a: AuthSpec) -> list[str]:
    """The command-line options that give ``a`` again (a confidential OAuth client with its grant)."""
    parts = []
    for opt, v in (
        ("--oauth-client-id", a.client_id),
        ("--oauth-client-secret", a.client_secret),
        ("--oauth-client-key", a.client_key),
        ("--oauth-signing-alg", a.signing_alg),
        ("--oauth-client-metadata-url", a.client_metadata_url),
        ("--oauth-scopes", a.scopes),
        ("--oauth-id-token", a.id_token),
        ("--oauth-idp-token-endpoint", a.idp_token_endpoint),
        ("--oauth-idp-client-id", a.idp_client_id),
        ("--oauth-idp-client-secret", a.idp_client_secret),
        ("--oauth-issuer", a.issuer),
    ):
        if v:
            parts += [opt, shlex.quote(v)]
    if a.method == "oauth" and a.client_secret:
        parts += ["--oauth-grant", "authorization-code"]
    return parts


def _locked_names(specs: list[ServerSpec], lockfile: str) -> set[str]:
    """Which of ``specs`` are in the lock with the same URL (read only on this error path)."""
    servers = _readable_lock_servers(lockfile)
    return {s.name for s in specs if s.name in servers and servers[s.name].spec.url == s.url}


def _readable_lock_servers(lockfile: str) -> dict[str, ServerEntry]:
    """The lock's servers; none when there is no lock or it cannot be read."""
    if not os.path.exists(lockfile):
        return {}
    try:
        from mcplock.lock.read import load

        return load(lockfile).servers
    except McplockError:
        return {}


def _login_action(err: Any) -> Action | None:
    if isinstance(err, ProbeError) and err.action is not None and err.action.kind == "login":
        return err.action
    return None


def fix_login_hints(specs: list[ServerSpec], results: dict[str, Any], lockfile: str) -> None:
    """The probe names `mcplock auth login NAME`; for a server not in the lock that command
    would fail ("no server NAME"), so its next action names the URL too."""
    todo = [s for s in specs if _remote_login_hinted(s, results.get(s.name))]
    if not todo:
        return
    locked = _locked_names(todo, lockfile)
    for s in todo:
        err = results[s.name]
        if s.name not in locked:
            err.action = err.action.with_command(login_command(s, locked=False))


def _remote_login_hinted(spec: ServerSpec, err: Any) -> bool:
    """Whether ``err``, the probe's result for a remote server with a URL, names a login."""
    return spec.transport is Transport.HTTP and bool(spec.url) and _login_action(err) is not None


def _needs_login(spec: ServerSpec, err: Any) -> bool:
    if not isinstance(err, ProbeError) or err.kind != "auth" or spec.transport is not Transport.HTTP:
        return False
    return not _authorizes_itself(spec) and _login_action(err) is not None


def _authorizes_itself(spec: ServerSpec) -> bool:
    """Whether a server gets its authorization without a browser login: a CI grant, or an
    Authorization header of its own."""
    ci = spec.auth is not None and spec.auth.method in ("client-credentials", "identity-assertion")
    return ci or _has_authorization_header(spec)


def after_probe(
    specs: list[ServerSpec],
    results: dict[str, Any],
    reprobe: Reprobe,
    *,
    lockfile: str,
    login: bool,
    say: Say,
    environ: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """Servers that answered "log in first": log in (browser) when ``login`` allows it, then
    probe them again with ``reprobe``; otherwise say in their hint how to log in.
    ``say`` shows the authorization URL (plain text: it must stay copy-pasteable)."""
    results = _after_probe(specs, results, reprobe, login, say, environ)
    fix_login_hints(specs, results, lockfile)
    return results


def _after_probe(
    specs: list[ServerSpec],
    results: dict[str, Any],
    reprobe: Reprobe,
    login_ok: bool,
    say: Say,
    environ: Mapping[str, str] | None,
) -> dict[str, Any]:
    todo = [s for s in specs if _needs_login(s, results.get(s.name))]
    if not todo:
        return results
    if not login_ok:
        _hint_login_flag(todo, results)
        return results
    return _log_in_rounds(todo, results, reprobe, say, dict(environ if environ is not None else os.environ))


def _hint_login_flag(todo: list[ServerSpec], results: dict[str, Any]) -> None:
    """No login may start: each server's next action is to run again with ``--login``."""
    for s in todo:
        err = results[s.name]
        err.action = err.action.with_retry("--login")


def _log_in_rounds(
    todo: list[ServerSpec], results: dict[str, Any], reprobe: Reprobe, say: Say, env: dict[str, str]
) -> dict[str, Any]:
    """Log in to ``todo`` and probe them again; a second round for a scope step-up, or a new
    authorization server, found by the new probe."""
    for _round in range(2):
        again = _log_in(todo, results, env, say)
        if not again:
            break
        results = {**results, **reprobe(again)}
        todo = [s for s in again if _login_again(s, results.get(s.name))]
        if not todo:
            break
    return results


def _log_in(todo: list[ServerSpec], results: dict[str, Any], env: dict[str, str], say: Say) -> list[ServerSpec]:
    """Log in to each server of ``todo`` (a step-up asks for the scopes the server named); a
    failed login's error becomes its result. Returns the specs logged in to, to probe again."""
    import asyncio

    from mcplock.auth.login import login

    again: list[ServerSpec] = []
    for s in todo:
        s = _with_asked_scopes(s, _login_action(results.get(s.name)))
        try:
            asyncio.run(login(s, env, say=say))
            again.append(s)
        except ProbeError as e:
            results[s.name] = e
    return again


def _with_asked_scopes(spec: ServerSpec, step: Action | None) -> ServerSpec:
    """A step-up: ``spec`` asking for the scopes the server named in ``step`` (as it is without one)."""
    scopes = step.scopes if step is not None else None
    if scopes:
        return replace(spec, auth=replace(spec.auth or AuthSpec("oauth"), scopes=scopes))
    return spec


def _login_again(spec: ServerSpec, result: Any) -> bool:
    """Whether the probe after a login asks for another one: more scopes, or a login at an
    authorization server it names anew."""
    return _needs_login(spec, result) and bool(result.action.scopes or result.action.again)


def login_target(target: str, url: str | None, auth: AuthSpec | None, lockfile: str) -> tuple[ServerSpec, bool]:
    """The spec to log in to: a locked server by name, or a URL. Returns (spec, locked)."""
    if "://" in target and url is None:
        return ServerSpec(name=target, transport=Transport.HTTP, url=target, auth=auth), False
    srv = _locked_server(target, lockfile)
    if srv is None:
        return _unlocked_target(target, url, auth, lockfile), False
    from mcplock.core.specs import lock_dir

    spec = srv.as_launched(lock_dir(lockfile))
    _check_locked_target(target, url, srv)
    return (_with_auth(spec, auth) if auth is not None else spec), True


def _unlocked_target(target: str, url: str | None, auth: AuthSpec | None, lockfile: str) -> ServerSpec:
    """A server the lock does not hold, by its name and the URL given (without one: an error)."""
    if url is None:
        hint = f"give its URL: `mcplock auth login {target} https://…/mcp`"
        if os.path.exists(lockfile):
            from mcplock.lock.read import load
            from mcplock.text.suggest import did_you_mean

            meant = did_you_mean(target, load(lockfile).servers)
            hint = f"{meant} (or {hint})" if meant else hint
        raise UsageError(f"no server `{target}` in {lockfile}", hint=hint)
    return ServerSpec(name=target, transport=Transport.HTTP, url=url, auth=auth)


def _locked_server(name: str, lockfile: str) -> ServerEntry | None:
    """The server ``name`` in the lock (None: no lock, or no such server)."""
    if not os.path.exists(lockfile):
        return None
    from mcplock.lock.read import load

    return load(lockfile).servers.get(name)


def _check_locked_target(target: str, url: str | None, srv: ServerEntry) -> None:
    """A locked server logs in when it is remote, at the URL it is locked with."""
    if srv.spec.stdio:
        raise UsageError(f"`{target}` is a stdio server: OAuth is for remote servers")
    if url is not None and url != srv.spec.url:
        raise UsageError(f"`{target}` is locked with another URL ({srv.spec.url})")


def _with_auth(spec: ServerSpec, auth: AuthSpec) -> ServerSpec:
    """A locked server's spec with the auth options given: they replace its auth, but
    ``--oauth-scopes`` alone keeps the locked method (a scope step-up of a CI grant stays one)."""
    only_scopes = bool(auth.scopes) and auth == AuthSpec("oauth", scopes=auth.scopes)
    return replace(spec, auth=replace(spec.auth, scopes=auth.scopes) if only_scopes and spec.auth else auth)


def record_method(spec: ServerSpec, lockfile: str) -> ServerSpec | None:
    """Note in the lock which auth method the server uses (never a token), where it records none
    yet: identity assertion with the authorization server the login found (as `add` does).
    Returns the server's launch spec as the lock has it now, or None when the lock is unchanged."""
    from mcplock.core.specs import lock_dir
    from mcplock.lock.store import transaction

    method = (read_lock_auth(spec) or spec.auth) if spec.auth is not None else AuthSpec("oauth")
    with transaction(lockfile) as lock:
        srv = lock.servers.get(spec.name)
        if srv is None or srv.spec.auth is not None:
            return None
        srv.spec = replace(srv.spec, auth=method)
        return srv.as_launched(lock_dir(lockfile))
