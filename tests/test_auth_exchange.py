"""Leg 1 of enterprise-managed OAuth (SEP-990) in-process: :func:`exchange_id_token` against a
scripted identity provider on 127.0.0.1 — what it sends (the RFC 8693 form, the client's
authentication), and each answer it refuses with the step that fixes it. The end-to-end CLI runs
are in test_auth_xaa."""

from __future__ import annotations

import asyncio
import base64
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs

import pytest

from mcplock.auth.assertion import ID_JAG_TYPE, TOKEN_EXCHANGE, exchange_id_token
from mcplock.errors import ProbeError
from mcplock.lock.auth_spec import AuthSpec
from mcplock.lock.spec import ServerSpec

ID_TOKEN = "id-token-canary-7f3a"
IDP_SECRET = "idp-secret-canary-02be"


@pytest.fixture
def idp():
    """(token endpoint URL, the answers to give as [(status, body)], the requests seen)."""
    answers: list[tuple[int, bytes]] = []
    seen: list[tuple[dict[str, list[str]], str | None]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            form = parse_qs(self.rfile.read(int(self.headers["Content-Length"])).decode())
            seen.append((form, self.headers.get("Authorization")))
            status, body = answers.pop(0)
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/token", answers, seen
    server.shutdown()
    server.server_close()


def _spec(endpoint: str, **auth: str) -> ServerSpec:
    fields = {"client_id": "app", "id_token": "${ID_TOKEN}", "idp_token_endpoint": endpoint, **auth}
    return ServerSpec(
        "corp", transport="http", url="https://mcp.example/mcp", auth=AuthSpec("identity-assertion", **fields)
    )


def _exchange(spec: ServerSpec, environ: dict[str, str] | None = None) -> str:
    env = {"ID_TOKEN": ID_TOKEN, "IDP_SECRET": IDP_SECRET} if environ is None else environ
    return asyncio.run(exchange_id_token(spec, env, "https://as.example", "https://mcp.example/mcp"))


def _refusal(spec: ServerSpec) -> ProbeError:
    with pytest.raises(ProbeError) as e:
        _exchange(spec)
    text = f"{e.value} {e.value.hint}"
    assert ID_TOKEN not in text and IDP_SECRET not in text
    return e.value


def test_the_exchange_sends_the_id_token_for_an_id_jag_as_a_public_client(idp):
    endpoint, answers, seen = idp
    answers.append((200, json.dumps({"access_token": "jag", "issued_token_type": ID_JAG_TYPE}).encode()))
    assert _exchange(_spec(endpoint, idp_client_id="at-idp", scopes="read")) == "jag"
    ((form, authorization),) = seen
    assert authorization is None and form == {
        "grant_type": [TOKEN_EXCHANGE],
        "subject_token": [ID_TOKEN],
        "subject_token_type": ["urn:ietf:params:oauth:token-type:id_token"],
        "requested_token_type": [ID_JAG_TYPE],
        "audience": ["https://as.example"],
        "resource": ["https://mcp.example/mcp"],
        "scope": ["read"],
        "client_id": ["at-idp"],
    }


def test_a_confidential_client_authenticates_with_basic_and_sends_no_client_id(idp):
    endpoint, answers, seen = idp
    answers.append((200, json.dumps({"access_token": "jag"}).encode()))  # no issued_token_type: taken as an ID-JAG
    assert _exchange(_spec(endpoint, idp_client_id="at idp", idp_client_secret="${IDP_SECRET}")) == "jag"
    ((form, authorization),) = seen
    assert "client_id" not in form and "scope" not in form
    assert authorization == "Basic " + base64.b64encode(f"at%20idp:{IDP_SECRET}".encode()).decode()


@pytest.mark.parametrize(
    ("status", "body", "says", "hint"),
    [
        (
            400,
            {"error": "invalid_grant", "error_description": f"expired {ID_TOKEN}"},
            "refused the ID token in `${ID_TOKEN}`",
            "fresh one",
        ),
        (
            400,
            {"error": "invalid_request", "error_description": "bad subject token"},
            "refused the ID token",
            "fresh one",
        ),
        (
            400,
            {"error": "invalid_request", "error_description": "no audience"},
            "token exchange at the identity provider failed",
            "SEP-990",
        ),
        (400, {"error": "unauthorized_client"}, "rejected the client (unauthorized_client)", "--oauth-idp-client-id"),
        (401, {}, "rejected the client (HTTP 401)", "--oauth-idp-client-secret"),
        (500, {}, "token exchange at the identity provider failed (HTTP 500)", "--oauth-idp-token-endpoint"),
        (200, {"token_type": "Bearer"}, "answered the token exchange without an ID-JAG", "may not support"),
        (200, {"access_token": "t", "issued_token_type": "urn:x\x1b[31m"}, "(it issued urn:x", "may not support"),
    ],
)
def test_each_refusal_names_the_step_that_fixes_it_and_no_secret(idp, status, body, says, hint):
    endpoint, answers, _ = idp
    answers.append((status, json.dumps(body).encode()))
    e = _refusal(_spec(endpoint, idp_client_id="at-idp", idp_client_secret="${IDP_SECRET}"))
    assert e.kind == "auth" and says in str(e) and hint in (e.hint or ""), (str(e), e.hint)
    assert "\x1b" not in str(e)


def test_a_body_that_is_not_json_is_no_id_jag(idp):
    endpoint, answers, _ = idp
    answers.append((200, b"<html>"))
    assert "without an ID-JAG" in str(_refusal(_spec(endpoint)))


def test_what_is_checked_before_any_request(idp):
    endpoint, _, seen = idp
    with pytest.raises(ProbeError, match=r"the ID token `\$\{ID_TOKEN\}` is empty"):
        _exchange(_spec(endpoint), {})
    with pytest.raises(ProbeError, match="token endpoint must be https://"):
        _exchange(_spec("http://idp.example/token"))
    with pytest.raises(ProbeError, match="identity provider client secret `\\$\\{NOPE\\}` is empty"):
        _exchange(_spec(endpoint, idp_client_secret="${NOPE}"))
    assert seen == []


def test_an_identity_provider_that_does_not_answer():
    with pytest.raises(ProbeError) as e:
        _exchange(_spec("http://127.0.0.1:9/token"))
    assert e.value.kind == "unreachable" and "did not answer" in str(e.value)
