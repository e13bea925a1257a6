"""The browser side of an interactive login: a loopback HTTP listener on 127.0.0.1 that
receives the authorization redirect, and opening the authorization URL (``webbrowser``;
``BROWSER`` chooses the browser). No SDK import beyond the result type."""

from __future__ import annotations

import asyncio
import contextlib
import html
import threading
import webbrowser
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from mcp.shared.auth import AuthorizationCodeResult

from mcplock.errors import ProbeError
from mcplock.lock.spec import ServerSpec
from mcplock.probe.errors import login_action
from mcplock.text.untrusted import sanitize

CALLBACK_PATH = "/callback"


class _CallbackServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True  # the port of an earlier login may be in TIME_WAIT
    result: dict[str, str] | None = None
    done: threading.Event


class _CallbackHandler(BaseHTTPRequestHandler):
    server: _CallbackServer

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        if parts.path != CALLBACK_PATH:
            self.send_error(404)
            return
        q = {k: v[0] for k, v in parse_qs(parts.query).items()}
        self._record(q)
        ok = "code" in q
        body = _page(ok, q)
        self.send_response(200 if ok else 400)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _record(self, q: dict[str, str]) -> None:
        """A redirect with a code or an error ends the wait; the first one is the result."""
        if "code" in q or "error" in q:
            if self.server.result is None:
                self.server.result = q
            self.server.done.set()


def _page(ok: bool, q: dict[str, str]) -> bytes:
    """The page the browser shows after the redirect: logged in, or why the login failed."""
    text = (
        "mcplock: logged in. You can close this window."
        if ok
        else f"mcplock: the login failed ({html.escape(q.get('error', 'no code'))}). You can close this window."
    )
    return f"<!doctype html><meta charset=utf-8><title>mcplock</title><p>{text}</p>\n".encode()


class LoopbackCallback:
    """An HTTP listener on 127.0.0.1 that receives the authorization redirect."""

    def __init__(self, port: int = 0) -> None:
        self.server = _CallbackServer(("127.0.0.1", port), _CallbackHandler)
        self.server.done = threading.Event()
        self.port = self.server.server_address[1]
        self.redirect_uri = f"http://127.0.0.1:{self.port}{CALLBACK_PATH}"
        self._thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
        self._thread.start()

    async def wait(self, timeout: float, spec: ServerSpec) -> AuthorizationCodeResult:
        got = await asyncio.to_thread(self.server.done.wait, timeout)
        q = self.server.result
        self.server.result = None  # ready for another authorization in the same login (a scope step-up)
        self.server.done.clear()
        name = spec.name
        if not got or q is None:
            raise ProbeError(
                "auth",
                f"server `{name}`: the OAuth callback timed out: no answer from the browser within {timeout:g} s",
                action=login_action(
                    spec,
                    "finish the login in the browser within the time, or run `{command}` again "
                    "(`--timeout SECONDS` gives more time)",
                ),
            )
        if "error" in q:
            why = sanitize(q["error"], 60)
            if q.get("error_description"):
                why += ": " + sanitize(q["error_description"], 200)
            denied = q["error"] == "access_denied"
            raise ProbeError(
                "auth",
                f"server `{name}`: the authorization server "
                f"{'denied the login' if denied else 'rejected the login'} ({why})",
                hint="log in again and approve the access"
                if denied
                else "check the client (`--oauth-client-id`) and the scopes (`--oauth-scopes`)",
            )
        return AuthorizationCodeResult(code=q["code"], state=q.get("state"), iss=q.get("iss"))

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


async def open_in_browser(url: str) -> None:
    """Open ``url`` in the user's browser; a failure is silent (the URL is printed too)."""
    with contextlib.suppress(Exception):
        await asyncio.to_thread(webbrowser.open, url)
