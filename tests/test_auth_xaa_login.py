"""`mcplock auth login|status|logout` for an identity-assertion server (SEP-990), through the real
CLI against the OAuth fixture with its identity provider (fixtures/oauth/idp.py): a login is a
token exchange with no browser; the ID token and the secrets are nowhere but in their variables."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
from test_auth import stats, token_files
from test_auth_xaa import SECRET, nowhere, options, xaa  # noqa: F401 (xaa: the fixture)

from conftest import run_cli


@pytest.fixture
def browser(tmp_path) -> tuple[dict[str, str], Path]:
    """A BROWSER that only leaves a mark: an identity-assertion login must never open one."""
    mark = tmp_path / "browser-opened.txt"
    script = tmp_path / "browser"
    script.write_text(f'#!/bin/sh\necho "$@" > {mark}\n')
    script.chmod(0o755)
    return {"BROWSER": str(script), "CI": ""}, mark


def _locked(tmp_path, xaa, browser) -> dict[str, str]:  # noqa: F811
    url, issuer, endpoint, id_token, _ = xaa
    env = {**browser[0], "MCP_ID_TOKEN": id_token, "XAA_SECRET": SECRET}
    add = run_cli("add", "corp", url, "--yes", "--policy", "none", *options(endpoint), env=env)
    assert add.returncode == 0, add.stderr
    assert stats(issuer)["idp:exchange"] == 1
    return env


def _access_token(tmp_path) -> str | None:
    (f,) = token_files(tmp_path)
    return (json.loads(f.read_text()).get("tokens") or {}).get("access_token")


def test_login_of_a_locked_server_exchanges_the_id_token_without_a_browser(tmp_path, xaa, browser):  # noqa: F811
    _url, issuer, _endpoint, id_token, _ = xaa
    env = _locked(tmp_path, xaa, browser)
    before = _access_token(tmp_path)
    r = run_cli("auth", "login", "corp", env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("logged in to corp (token stored, expires in"), r.stdout
    assert "browser" not in r.stdout + r.stderr and "http" not in r.stdout + r.stderr
    assert not browser[1].exists()
    s = stats(issuer)  # a fresh exchange at the identity provider, then the jwt-bearer grant
    assert s["idp:exchange"] == 2 and s["token:urn:ietf:params:oauth:grant-type:jwt-bearer"] == 2
    after = _access_token(tmp_path)
    assert after and after != before
    lock = tomllib.loads(Path("mcp.lock").read_text())["server"]["corp"]["auth"]
    assert lock["method"] == "identity-assertion" and lock["issuer"] == issuer  # the lock is as `add` wrote it
    # the stored token serves the next probe: no third exchange
    d = run_cli("diff", env=env)
    assert d.returncode == 0, d.stdout + d.stderr
    assert stats(issuer)["idp:exchange"] == 2
    # --oauth-scopes alone keeps the locked method: still an exchange, never a browser
    sc = run_cli("auth", "login", "corp", "--oauth-scopes", "mcp:read", env=env)
    assert sc.returncode == 0, sc.stderr
    assert stats(issuer)["idp:exchange"] == 3 and not browser[1].exists()
    nowhere(tmp_path, r, d, sc, values=(id_token, SECRET))
    assert after not in r.stdout + r.stderr + d.stdout + d.stderr


def test_login_errors_name_the_variable_never_the_token(tmp_path, xaa, browser):  # noqa: F811
    _url, issuer, endpoint, id_token, expired = xaa
    env = _locked(tmp_path, xaa, browser)
    unset = run_cli("auth", "login", "corp", env={**env, "MCP_ID_TOKEN": ""})
    assert unset.returncode != 0 and "Traceback" not in unset.stderr
    assert "the ID token `${MCP_ID_TOKEN}` is empty" in unset.stderr and "export" in unset.stderr
    old = run_cli("auth", "login", "corp", env={**env, "MCP_ID_TOKEN": expired})
    assert old.returncode == 3, old.stderr
    assert "the identity provider refused the ID token in `${MCP_ID_TOKEN}`" in old.stderr
    assert "get a fresh one" in old.stderr
    literal = run_cli("auth", "login", "corp", "--oauth-id-token", id_token, *options(endpoint)[2:], env=env)
    assert literal.returncode == 2 and "--oauth-id-token takes a ${VAR} template" in literal.stderr
    partial = run_cli("auth", "login", "corp", "--oauth-id-token", "${MCP_ID_TOKEN}", env=env)
    assert partial.returncode == 2, partial.stderr
    assert "identity assertion needs --oauth-idp-token-endpoint" in partial.stderr and "pass " in partial.stderr
    s = stats(issuer)
    assert not browser[1].exists() and s["idp:exchange"] == 1 and s["idp:refused"] == 1  # add, the expired one
    nowhere(tmp_path, unset, old, literal, partial, values=(id_token, expired, SECRET), files=False)


def test_login_refuses_an_identity_provider_the_lock_was_changed_to(tmp_path, xaa, browser):  # noqa: F811
    _url, issuer, endpoint, id_token, _ = xaa
    env = _locked(tmp_path, xaa, browser)
    text = Path("mcp.lock").read_text()
    moved = endpoint.rsplit("/", 1)[0] + "/elsewhere"
    assert text.count(endpoint) == 1
    Path("mcp.lock").write_text(text.replace(endpoint, moved))  # a pulled lock sends the ID token elsewhere
    r = run_cli("auth", "login", "corp", env=env)
    assert r.returncode != 0 and "not been trusted" in r.stderr and "mcplock trust corp" in r.stderr
    assert stats(issuer)["idp:exchange"] == 1  # nothing was sent
    nowhere(tmp_path, r, values=(id_token, SECRET))


def test_login_to_a_server_not_locked_yet_takes_the_options(tmp_path, xaa, browser):  # noqa: F811
    url, issuer, endpoint, id_token, _ = xaa
    env = {**browser[0], "MCP_ID_TOKEN": id_token, "XAA_SECRET": SECRET}
    r = run_cli("auth", "login", "corp", url, *options(endpoint), "--oauth-issuer", issuer, env=env)
    assert r.returncode == 0, r.stderr
    assert "logged in to corp (token stored" in r.stdout and not browser[1].exists()
    assert stats(issuer)["idp:exchange"] == 1 and _access_token(tmp_path)
    assert not Path("mcp.lock").exists()  # a login locks nothing
    # by URL alone, the authorization server found from the server's metadata
    for f in token_files(tmp_path):
        f.unlink()
    r2 = run_cli("auth", "login", url, *options(endpoint), env=env)
    assert r2.returncode == 0, r2.stderr
    assert stats(issuer)["idp:exchange"] == 2 and _access_token(tmp_path)
    nowhere(tmp_path, r, r2, values=(id_token, SECRET))


def test_login_records_identity_assertion_for_a_locked_server_without_auth(tmp_path, xaa, browser):  # noqa: F811
    url, issuer, endpoint, id_token, _ = xaa
    env = {**browser[0], "MCP_ID_TOKEN": id_token, "XAA_SECRET": SECRET}
    Path("mcp.lock").write_text(f'version = 1\n\n[server.corp]\ntransport = "http"\nurl = "{url}"\n')
    r = run_cli("auth", "login", "corp", *options(endpoint), env=env)
    assert r.returncode == 0, r.stderr
    auth = tomllib.loads(Path("mcp.lock").read_text())["server"]["corp"]["auth"]
    assert auth == {
        "method": "identity-assertion",
        "client-id": "xaa-app",
        "client-secret": "${XAA_SECRET}",
        "id-token": "${MCP_ID_TOKEN}",
        "idp-token-endpoint": endpoint,
        "idp-client-id": "mcplock-at-idp",
        "issuer": issuer,
    }
    # typed on the command line: trusted as the lock now has it, so the next probe runs unasked
    d = run_cli("refresh", "corp", env=env)
    assert "not been trusted" not in d.stderr and d.returncode == 0, d.stdout + d.stderr
    assert stats(issuer)["idp:exchange"] == 1
    nowhere(tmp_path, r, d, values=(id_token, SECRET))


def test_status_shows_the_method_and_the_token_state_never_the_token(tmp_path, xaa, browser):  # noqa: F811
    _url, _issuer, _endpoint, id_token, _ = xaa
    env = _locked(tmp_path, xaa, browser)
    r = run_cli("auth", "status", env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("corp  identity-assertion  token stored, expires in"), r.stdout
    j = json.loads(run_cli("auth", "status", "--format", "json", env=env).stdout)
    [row] = j["servers"]
    assert row["method"] == "identity-assertion" and row["token"] is True and row["expired"] is False
    (f,) = token_files(tmp_path)
    data = json.loads(f.read_text())
    data["expires_at"] = 1
    f.write_text(json.dumps(data))
    r2 = run_cli("auth", "status", env=env)
    assert "token stored, expired" in r2.stdout and "a new one is obtained when it is next used" in r2.stdout
    assert "`mcplock auth login corp`" in r2.stdout
    nowhere(tmp_path, r, r2, values=(id_token, SECRET))
    assert data["tokens"]["access_token"] not in r.stdout + r.stderr + r2.stdout + r2.stderr


def test_logout_forgets_the_token_and_the_next_use_exchanges_again(tmp_path, xaa, browser):  # noqa: F811
    _url, issuer, _endpoint, id_token, _ = xaa
    env = _locked(tmp_path, xaa, browser)
    r = run_cli("auth", "logout", "corp", env=env)
    assert r.returncode == 0 and r.stdout.strip() == "logged out of corp", r.stdout
    assert token_files(tmp_path) == []
    assert "identity-assertion" in Path("mcp.lock").read_text()  # the lock is not changed
    s = run_cli("auth", "status", env=env)
    assert "corp  identity-assertion  no token" in s.stdout and "mcplock auth login corp" in s.stdout
    again = run_cli("auth", "logout", "corp", env=env)
    assert again.returncode == 0 and "corp: no token stored" in again.stdout
    d = run_cli("diff", env=env)  # no browser, no question: exchanged again
    assert d.returncode == 0, d.stdout + d.stderr
    assert stats(issuer)["idp:exchange"] == 2 and _access_token(tmp_path) and not browser[1].exists()
    nowhere(tmp_path, r, s, again, d, values=(id_token, SECRET))
