"""Enterprise-managed OAuth (SEP-990, identity assertion) end to end: the real CLI against the
OAuth fixture with its identity provider and jwt-bearer grant (fixtures/oauth/idp.py): an ID
token in a variable becomes an MCP access token, no browser, and the ID token is nowhere but
in that variable. No network."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from test_auth import stats, token_files

from conftest import ROOT, run_cli
from runner import listening

FIXTURE = ROOT / "fixtures" / "oauth" / "oauth_fixture.py"
SECRET = "xaa-secret-canary-51c9"
IDP_CLIENT = "mcplock-at-idp"  # fixtures/oauth/idp.py


@pytest.fixture
def xaa(tmp_path):
    """(mcp url, issuer, idp token endpoint, ID token, expired ID token) of a fixture with an IdP."""
    with listening([sys.executable, str(FIXTURE), "--xaa", f"xaa-app:{SECRET}"], lines=2) as started:
        (_, base, _, issuer), (_, endpoint, id_token, expired) = started.lines
        yield base + "/mcp", issuer, endpoint, id_token, expired


def options(endpoint: str, idp_client: str = IDP_CLIENT) -> list[str]:
    return [
        "--oauth-id-token",
        "${MCP_ID_TOKEN}",
        "--oauth-idp-token-endpoint",
        endpoint,
        "--oauth-idp-client-id",
        idp_client,
        "--oauth-client-id",
        "xaa-app",
        "--oauth-client-secret",
        "${XAA_SECRET}",
    ]


def nowhere(tmp_path: Path, *outputs: subprocess.CompletedProcess, values: tuple[str, ...], files: bool = True) -> None:
    """None of ``values`` in the lock, the token store, the trust record or any output."""
    texts = [r.stdout + r.stderr for r in outputs]
    texts += [
        p.read_text()
        for p in tmp_path.rglob("*")
        if p.is_file()
        and p.suffix in (".lock", ".json", "")
        and "home" not in p.parts
        and p.stat().st_size < 1_000_000
        and p.name != "browser"
    ]
    assert not files or len(texts) > len(outputs)  # (the lock or the token store was read too)
    for v in values:
        assert not any(v in t for t in texts)


def test_identity_assertion_for_ci(tmp_path, xaa):
    url, issuer, endpoint, id_token, _ = xaa
    env = {"MCP_ID_TOKEN": id_token, "XAA_SECRET": SECRET}
    add = run_cli("add", "corp", url, "--yes", "--policy", "none", *options(endpoint), env=env)
    assert add.returncode == 0, add.stderr
    auth = tomllib.loads(Path("mcp.lock").read_text())["server"]["corp"]["auth"]
    assert auth == {
        "method": "identity-assertion",
        "client-id": "xaa-app",
        "client-secret": "${XAA_SECRET}",
        "id-token": "${MCP_ID_TOKEN}",
        "idp-token-endpoint": endpoint,
        "idp-client-id": IDP_CLIENT,
        "issuer": issuer,
    }  # the authorization server found at `add`, locked from now on
    s = stats(issuer)
    assert s["idp:exchange"] == 1 and s["token:urn:ietf:params:oauth:grant-type:jwt-bearer"] == 1
    (store,) = token_files(tmp_path)
    data = json.loads(store.read_text())
    assert data["method"] == "identity-assertion" and data["tokens"]["access_token"].startswith("at-")

    # the access token is reused while it is valid: no second exchange
    diff = run_cli("diff", env=env)
    assert diff.returncode == 0, diff.stdout + diff.stderr
    assert stats(issuer)["idp:exchange"] == 1
    call = run_cli("call", "corp/add_numbers", "--args", '{"a": 2, "b": 3}', env=env)
    assert call.returncode == 0, call.stderr
    assert "called add_numbers" in call.stdout
    assert "needs credentials" not in call.stderr and stats(issuer)["idp:exchange"] == 1

    # expired: the ID token is exchanged again, without being asked
    data["expires_at"] = 1
    store.write_text(json.dumps(data))
    again = run_cli("diff", env=env)
    assert again.returncode == 0, again.stdout + again.stderr
    assert stats(issuer)["idp:exchange"] == 2
    nowhere(tmp_path, add, diff, call, again, values=(id_token, SECRET))


def test_literal_id_token_refused(tmp_path, xaa):
    url, issuer, endpoint, id_token, _ = xaa
    args = options(endpoint)
    args[1] = id_token
    r = run_cli("add", "corp", url, "--yes", *args, env={"XAA_SECRET": SECRET})
    assert r.returncode == 2
    assert "--oauth-id-token takes a ${VAR} template" in r.stderr and "export" in r.stderr
    assert id_token not in r.stdout + r.stderr and not Path("mcp.lock").exists()
    assert "idp:exchange" not in stats(issuer)


def test_expired_id_token(tmp_path, xaa):
    url, issuer, endpoint, _, expired = xaa
    r = run_cli("add", "corp", url, "--yes", *options(endpoint), env={"MCP_ID_TOKEN": expired, "XAA_SECRET": SECRET})
    assert r.returncode == 3, r.stderr
    assert "the identity provider refused the ID token in `${MCP_ID_TOKEN}`" in r.stderr
    assert "invalid_grant" in r.stderr and "get a fresh one" in r.stderr
    assert not Path("mcp.lock").exists() and stats(issuer)["idp:refused"] == 1
    nowhere(tmp_path, r, values=(expired, SECRET))


def test_wrong_idp_client_and_unset_token(tmp_path, xaa):
    url, _issuer, endpoint, id_token, _ = xaa
    env = {"MCP_ID_TOKEN": id_token, "XAA_SECRET": SECRET}
    r = run_cli("add", "corp", url, "--yes", *options(endpoint, idp_client="someone-else"), env=env)
    assert r.returncode == 3
    assert "the identity provider rejected the client" in r.stderr and "--oauth-idp-client-id" in r.stderr
    r2 = run_cli("add", "corp", url, "--yes", *options(endpoint), env={"XAA_SECRET": SECRET})
    assert r2.returncode != 0
    assert "the ID token `${MCP_ID_TOKEN}` is empty" in r2.stderr and "export" in r2.stderr
    r3 = run_cli("add", "corp", url, "--yes", *options(endpoint), env={**env, "XAA_SECRET": "not-it-4e1d"})
    assert r3.returncode == 3
    assert "the authorization server rejected the client" in r3.stderr and "--oauth-client-id" in r3.stderr
    assert "not-it-4e1d" not in r3.stdout + r3.stderr
    nowhere(tmp_path, r, r2, r3, values=(id_token, SECRET), files=False)


def test_configured_issuer_and_bad_options(tmp_path, xaa):
    url, issuer, endpoint, id_token, _ = xaa
    env = {"MCP_ID_TOKEN": id_token, "XAA_SECRET": SECRET}
    ok = run_cli("inspect", url, "--format", "json", *options(endpoint), "--oauth-issuer", issuer, env=env)
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["tools"]
    nowhere(tmp_path, ok, values=(id_token, SECRET))
    # the authorization server is configuration: a wrong issuer is not overridden by the server
    for f in token_files(tmp_path):
        f.unlink()
    r = run_cli("inspect", url, *options(endpoint), "--oauth-issuer", endpoint.rsplit("/", 1)[0], env=env)
    assert r.returncode == 3 and "--oauth-issuer" in r.stderr
    r = run_cli("add", "corp", url, "--oauth-id-token", "${MCP_ID_TOKEN}", env=env)
    assert r.returncode == 2 and "identity assertion needs --oauth-idp-token-endpoint" in r.stderr
    r = run_cli("add", "corp", url, *options("http://idp.example.com/token"), env=env)
    assert r.returncode == 2 and "https://" in r.stderr
    nowhere(tmp_path, r, values=(id_token, SECRET), files=False)


def test_lock_refuses_a_literal_id_token(tmp_path):
    Path("mcp.lock").write_text(
        'version = 1\n\n[server.corp]\ntransport = "http"\nurl = "https://mcp.example.com/mcp"\n'
        'auth = { method = "identity-assertion", client-id = "a", client-secret = "${S}", '
        'id-token = "eyJhbGciOi.literal.token", idp-token-endpoint = "https://idp.example.com/token" }\n'
    )
    r = run_cli("check")
    assert r.returncode == 2
    assert "auth.id-token" in r.stderr and "${VAR} template" in r.stderr
    assert "eyJhbGciOi.literal.token" not in r.stdout + r.stderr
