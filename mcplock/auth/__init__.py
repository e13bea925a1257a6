"""OAuth for remote MCP servers (DESIGN §6).

- :mod:`mcplock.auth.store`: the token store outside the repo (light: no SDK import).
- :mod:`mcplock.auth.oauth`: the MCP SDK's OAuth providers (authorization code + PKCE with a
  loopback callback; client credentials for CI) wired to that store. Imported only when a
  probe really uses OAuth, because importing the SDK costs more than a whole fast probe.

The lock records only which method a server uses (``auth = "oauth"``); tokens, refresh
tokens and dynamically registered client secrets live in the store, one 0600 file per
server URL.
"""

from __future__ import annotations

__all__ = ["wants_oauth", "LOGIN_ENV"]

# Set (to "1") in ProbeOptions.environ by `--login` / `mcplock auth login`: a browser flow may
# start even without a TTY. "0" forbids it even on a TTY.
LOGIN_ENV = "MCPLOCK_LOGIN"


def wants_oauth(spec, environ) -> bool:  # type: ignore[no-untyped-def]
    """Whether a probe of ``spec`` goes through the SDK's OAuth client.

    Client credentials: always. Authorization code: when the token store holds a token for
    the server's URL (a login happened) and no ``Authorization`` header is configured.
    Without a token the fast path runs, and a 401 comes back as "needs credentials" with the
    command that logs in (the CLI runs that login itself with ``--login`` or on a TTY).
    """
    if spec.transport not in ("http", "sse") or not spec.url:
        return False
    if spec.auth is not None and (spec.auth.method == "client-credentials" or spec.transport == "sse"):
        return True  # (over SSE: to say that OAuth needs Streamable HTTP)
    if spec.transport != "http" or any(k.lower() == "authorization" for k in spec.headers):
        return False
    from mcplock.auth.store import TokenStore
    from mcplock.spec import expand

    return TokenStore(environ).exists(expand(spec.url, environ, spec.secrets))
