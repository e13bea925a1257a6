"""OAuth end to end: the real CLI against a real local authorization server and an
OAuth-protected MCP server (fixtures/oauth/oauth_fixture.py), with BROWSER set to a script
that follows the authorization redirect to mcplock's loopback callback. No network."""

from __future__ import annotations

import contextlib
import json
import os
import stat
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from conftest import ROOT, run_cli
from runner import listening

FIXTURE = ROOT / "fixtures" / "oauth" / "oauth_fixture.py"
BROWSER = ROOT / "fixtures" / "oauth" / "browser.py"


@contextlib.contextmanager
def oauth_server(*args: str):
    with listening([sys.executable, str(FIXTURE), *args]) as started:
        _, base, _, issuer = started.lines[0]
        yield base + "/mcp", issuer


def stats(issuer: str) -> dict:
    with urllib.request.urlopen(issuer + "/admin/stats", timeout=5) as r:
        return json.loads(r.read())


def revoke_all(issuer: str) -> None:
    req = urllib.request.Request(issuer + "/admin/revoke-all", data=b"", method="POST")
    urllib.request.urlopen(req, timeout=5).read()


def past_expiry(tmp_path, issuer: str) -> None:
    """The clock moves past the access token's lifetime, on both sides (no sleep): the server
    refuses it, and the stored token says it has expired."""
    req = urllib.request.Request(issuer + "/admin/expire-all", data=b"", method="POST")
    urllib.request.urlopen(req, timeout=5).read()
    (f,) = token_files(tmp_path)
    data = json.loads(f.read_text())
    assert isinstance(data.get("expires_at"), (int, float)), data  # a lifetime was stored
    data["expires_at"] = time.time() - 60
    f.write_text(json.dumps(data))


@pytest.fixture
def env(tmp_path):
    """BROWSER: a script (executable, as webbrowser runs BROWSER as a command) that plays the user."""
    script = tmp_path / "browser"
    script.write_text(f'#!/bin/sh\nexec {sys.executable} {BROWSER} "$@"\n')
    script.chmod(0o755)
    return {"BROWSER": str(script), "FAKE_BROWSER_LOG": str(tmp_path / "browser.log")}


def token_files(tmp_path) -> list[Path]:
    d = tmp_path / "xdg-config" / "mcplock" / "tokens"
    return sorted(d.glob("*.json")) if d.exists() else []


def stored(tmp_path) -> dict:
    (f,) = token_files(tmp_path)
    return json.loads(f.read_text())


def test_auth_code_pkce_end_to_end(tmp_path, env):
    with oauth_server() as (url, issuer):
        # no TTY, no --login: reported at once, with the command that logs in; no browser
        r = run_cli("add", "web", url, "--yes", env=env)
        assert r.returncode == 3, r.stderr
        assert "needs credentials" in r.stderr and "--login" in r.stderr
        assert f"mcplock auth login web {url}" in r.stderr  # not locked yet: the command names the URL
        assert not (tmp_path / "browser.log").exists()
        assert not Path("mcp.lock").exists()

        r = run_cli("add", "web", url, "--yes", "--login", env=env)
        assert r.returncode == 0, r.stderr
        assert "/authorize?" in r.stderr and "code_challenge_method=S256" in r.stderr  # printed for copy-paste
        assert (tmp_path / "browser.log").read_text().count("/authorize?") == 1  # and opened through BROWSER
        s = stats(issuer)
        assert s["register"] == 1 and s["token:authorization_code"] == 1

        lock = Path("mcp.lock").read_text()
        assert 'auth = "oauth"' in lock
        data = stored(tmp_path)
        at, rt = data["tokens"]["access_token"], data["tokens"]["refresh_token"]
        assert at not in lock and rt not in lock and "dyn-" not in lock

        # 0600 file in a 0700 directory
        (f,) = token_files(tmp_path)
        assert stat.S_IMODE(f.stat().st_mode) == 0o600
        assert stat.S_IMODE(f.parent.stat().st_mode) == 0o700

        # later probes use the stored token: no new login
        r = run_cli("diff", env=env)
        assert r.returncode == 0, r.stdout + r.stderr
        r = run_cli("refresh", env=env)
        assert r.returncode == 0, r.stderr
        assert stats(issuer)["token:authorization_code"] == 1

        r = run_cli("auth", "status", env=env)
        assert r.returncode == 0
        assert "web" in r.stdout and "oauth" in r.stdout and "token stored" in r.stdout
        assert at not in r.stdout + r.stderr and rt not in r.stdout + r.stderr
        j = json.loads(run_cli("auth", "status", "--format", "json", env=env).stdout)
        assert j["servers"][0]["token"] is True and j["servers"][0]["method"] == "oauth"
        assert at not in json.dumps(j)

        r = run_cli("auth", "logout", "web", env=env)
        assert r.returncode == 0 and not token_files(tmp_path)
        r = run_cli("diff", env=env)
        assert r.returncode == 3 and "mcplock auth login web" in r.stderr + r.stdout


def test_auth_login_command_and_reuse_of_the_registration(tmp_path, env):
    with oauth_server() as (url, issuer):
        r = run_cli("auth", "login", "web", url, env=env)
        assert r.returncode == 0, r.stderr
        assert "logged in to web" in r.stdout
        r = run_cli("auth", "login", "web", url, env=env)  # again: same client, same loopback port
        assert r.returncode == 0, r.stderr
        assert stats(issuer)["register"] == 1
        assert stats(issuer)["token:authorization_code"] == 2
        r = run_cli("inspect", url, "--format", "json", env=env)
        assert r.returncode == 0, r.stderr
        assert {t["name"] for t in json.loads(r.stdout)["tools"]}


def test_preregistered_client(tmp_path, env):
    with oauth_server("--client", "mcplock-cli", "--no-dcr") as (url, issuer):
        r = run_cli("add", "web", url, "--yes", "--login", "--oauth-client-id", "mcplock-cli", env=env)
        assert r.returncode == 0, r.stderr
        assert "register" not in stats(issuer)
        lock = Path("mcp.lock").read_text()
        assert 'method = "oauth"' in lock and 'client-id = "mcplock-cli"' in lock
        assert run_cli("diff", env=env).returncode == 0


def test_confidential_preregistered_client_in_the_authorization_code_flow(tmp_path, env):
    secret = "conf-secret-canary-91bd"
    with oauth_server("--confidential-client", f"web-app:{secret}", "--no-dcr") as (url, issuer):
        r = run_cli("add", "web", url, "--yes", "--oauth-grant", "client-credentials", env=env)
        assert r.returncode == 2 and "--oauth-client-secret" in r.stderr
        e = {**env, "APP_SECRET": secret}
        r = run_cli(
            "add",
            "web",
            url,
            "--yes",
            "--login",
            "--oauth-client-id",
            "web-app",
            "--oauth-client-secret",
            "${APP_SECRET}",
            "--oauth-grant",
            "authorization-code",
            env=e,
        )
        assert r.returncode == 0, r.stderr
        s = stats(issuer)
        assert "register" not in s and s["token:authorization_code"] == 1
        assert s["client-auth:basic"] >= 1 and "client-auth:post" not in s  # RFC 8414's default method
        lock = Path("mcp.lock").read_text()
        assert (
            'method = "oauth"' in lock and 'client-id = "web-app"' in lock and 'client-secret = "${APP_SECRET}"' in lock
        )
        assert secret not in lock and secret not in json.dumps(stored(tmp_path))  # the secret is never stored
        assert (tmp_path / "browser.log").read_text().count("/authorize?") == 1
        assert run_cli("diff", env=e).returncode == 0
        # a wrong secret: the token endpoint rejects the client, and the error says so
        r = run_cli("auth", "login", "web", env={**env, "APP_SECRET": "wrong"})
        assert r.returncode == 3 and "rejected the client" in r.stderr


def test_login_when_only_the_list_methods_need_a_token(tmp_path, env):
    """initialize answers without a token, tools/list wants one: the login goes on to tools/list."""
    with oauth_server("--open-initialize") as (url, issuer):
        r = run_cli("add", "web", url, "--yes", env=env)
        assert r.returncode == 3 and f"mcplock auth login web {url}" in r.stderr
        r = run_cli("auth", "login", "web", url, env=env)  # the command as the hint printed it
        assert r.returncode == 0, r.stderr
        assert "logged in to web" in r.stdout and stats(issuer)["token:authorization_code"] == 1
        r = run_cli("add", "web", url, "--yes", env=env)
        assert r.returncode == 0, r.stderr
        assert 'auth = "oauth"' in Path("mcp.lock").read_text()


def test_refresh_records_a_login_that_came_later(tmp_path, env):
    with oauth_server() as (url, _issuer):
        assert run_cli("add", "web", url, "--yes", "--login", env=env).returncode == 0
        lock = Path("mcp.lock")
        lock.write_text(lock.read_text().replace('auth = "oauth"\n', ""))  # as locked before it asked for OAuth
        assert "auth =" not in lock.read_text()
        r = run_cli("refresh", env=env)
        assert r.returncode == 0, r.stderr
        assert 'auth = "oauth"' in lock.read_text()


def test_client_metadata_url_option():
    r = run_cli("inspect", "http://127.0.0.1:9/mcp", "--oauth-client-metadata-url", "http://example.com/c.json")
    assert r.returncode == 2 and "https://" in r.stderr
    r = run_cli(
        "inspect",
        "http://127.0.0.1:9/mcp",
        "--oauth-client-metadata-url",
        "https://example.com/c.json",
        "--oauth-client-id",
        "x",
    )
    assert r.returncode == 2


def test_refresh_on_expiry(tmp_path, env):
    with oauth_server() as (url, issuer):
        assert run_cli("add", "web", url, "--yes", "--login", env=env).returncode == 0
        before = stored(tmp_path)["tokens"]
        past_expiry(tmp_path, issuer)
        r = run_cli("diff", env=env)
        assert r.returncode == 0, r.stdout + r.stderr
        s = stats(issuer)
        assert s.get("token:refresh_token") == 1 and s["token:authorization_code"] == 1
        after = stored(tmp_path)["tokens"]
        assert after["access_token"] != before["access_token"]
        assert after["refresh_token"] != before["refresh_token"]  # rotated and kept


def test_revoked_token_is_a_clear_error(tmp_path, env):
    with oauth_server() as (url, issuer):
        assert run_cli("add", "web", url, "--yes", "--login", env=env).returncode == 0
        revoke_all(issuer)
        r = run_cli("diff", "--format", "json", env=env)
        assert r.returncode == 3
        err = json.loads(r.stdout)["servers"][0]["error"]
        assert "revoked" in err["message"] and "login is required" in err["message"]
        assert "mcplock auth login web" in r.stderr + json.dumps(err)
        # --login logs in again and the probe goes through
        r = run_cli("diff", "--login", env=env)
        assert r.returncode == 0, r.stderr


def test_revoked_refresh_token(tmp_path, env):
    with oauth_server() as (url, issuer):
        assert run_cli("add", "web", url, "--yes", "--login", env=env).returncode == 0
        revoke_all(issuer)
        past_expiry(tmp_path, issuer)
        r = run_cli("refresh", env=env)
        assert r.returncode == 3
        assert "refused to refresh" in r.stderr and "invalid_grant" in r.stderr
        assert "mcplock auth login web" in r.stderr


def test_client_credentials_for_ci(tmp_path, env):
    secret = "cc-secret-canary-7f3a"
    with oauth_server("--cc-client", f"ci-bot:{secret}") as (url, issuer):
        r = run_cli("add", "ci", url, "--yes", "--oauth-client-id", "ci-bot", "--oauth-client-secret", secret, env=env)
        assert r.returncode == 2 and secret not in r.stdout + r.stderr  # a literal secret is refused
        e = {**env, "CI_SECRET": secret}
        r = run_cli(
            "add", "ci", url, "--yes", "--oauth-client-id", "ci-bot", "--oauth-client-secret", "${CI_SECRET}", env=e
        )
        assert r.returncode == 0, r.stderr
        lock = Path("mcp.lock").read_text()
        assert 'method = "client-credentials"' in lock and 'client-secret = "${CI_SECRET}"' in lock
        assert secret not in lock
        assert stats(issuer)["token:client_credentials"] == 1
        assert not (tmp_path / "browser.log").exists()
        assert run_cli("diff", env=e).returncode == 0
        # a wrong secret: the authorization server rejects the client
        for f in token_files(tmp_path):
            f.unlink()
        r = run_cli("diff", env={**env, "CI_SECRET": "wrong"})
        assert r.returncode == 3
        assert "rejected the client" in r.stdout + r.stderr
        assert "wrong" not in r.stdout + r.stderr.replace("wrong secret", "")


def test_bearer_token_from_env_still_works(tmp_path, env):
    with oauth_server("--cc-client", "ci-bot:s") as (url, issuer):
        # get a real access token the way a CI secret would hold one
        import base64

        req = urllib.request.Request(
            issuer + "/token",
            data=b"grant_type=client_credentials",
            method="POST",
            headers={"Authorization": "Basic " + base64.b64encode(b"ci-bot:s").decode()},
        )
        tok = json.loads(urllib.request.urlopen(req, timeout=5).read())["access_token"]
        r = run_cli(
            "add", "web", url, "--yes", "--header", "Authorization: Bearer ${MCP_TOKEN}", env={**env, "MCP_TOKEN": tok}
        )
        assert r.returncode == 0, r.stderr
        assert tok not in Path("mcp.lock").read_text() and "auth =" not in Path("mcp.lock").read_text()
        assert not token_files(tmp_path)


def test_callback_timeout(tmp_path, env):
    with oauth_server() as (url, _issuer):
        r = run_cli("auth", "login", "web", url, "--timeout", "1.5", env={**env, "FAKE_BROWSER_MODE": "ignore"})
        assert r.returncode == 3
        assert "callback timed out" in r.stderr and "mcplock auth login web" in r.stderr


def test_denied_login(tmp_path, env):
    with oauth_server("--deny") as (url, _issuer):
        r = run_cli("auth", "login", "web", url, env=env)
        assert r.returncode == 3
        assert "denied the login" in r.stderr and "access_denied" in r.stderr


def test_scope_step_up(tmp_path, env):
    with oauth_server("--tools-scope", "mcp:admin") as (url, issuer):
        r = run_cli("add", "web", url, "--yes", "--login", env=env)
        assert r.returncode == 0, r.stderr
        assert "mcp:admin" in stored(tmp_path)["tokens"]["scope"]
        assert stats(issuer)["token:authorization_code"] == 2  # first login, then the step-up
        assert run_cli("diff", env=env).returncode == 0


def test_status_without_lock_servers_and_offline_import(tmp_path, env):
    r = run_cli("auth", "status", env=env)
    assert r.returncode == 2  # no lock


# --- the token store itself -------------------------------------------------------------------


def test_token_store_permissions_and_symlinks(tmp_path, monkeypatch):
    from mcplock.auth.store import TokenStore, TokenStoreError, describe
    from mcplock.model.paths import config_dir

    monkeypatch.setenv("MCPLOCK_CONFIG_DIR", str(tmp_path / "cfg"))
    assert config_dir() == tmp_path / "cfg"
    st = TokenStore()
    p = st.save("https://example.test/mcp", {"tokens": {"access_token": "A", "refresh_token": "R"}, "expires_at": 1})
    assert stat.S_IMODE(p.stat().st_mode) == 0o600
    assert stat.S_IMODE(p.parent.stat().st_mode) == 0o700
    assert st.load("https://EXAMPLE.test/mcp#x")["tokens"]["access_token"] == "A"  # same server
    d = describe(st.load("https://example.test/mcp"))
    assert d["token"] and d["expired"] and "A" not in json.dumps(d).replace('"', "")

    # a symlink in place of the token file: refused for reading and for writing, target untouched
    target = tmp_path / "elsewhere.json"
    target.write_text("{}")
    p.unlink()
    os.symlink(target, p)
    with pytest.raises(TokenStoreError, match="symbolic link"):
        st.load("https://example.test/mcp")
    with pytest.raises(TokenStoreError, match="symbolic link"):
        st.save("https://example.test/mcp", {"tokens": {"access_token": "B"}})
    assert target.read_text() == "{}"
    assert st.delete("https://example.test/mcp") and target.exists()

    # a symlinked tokens directory is refused too
    other = tmp_path / "other"
    other.mkdir()
    st2 = TokenStore(root=tmp_path / "cfg2")
    (tmp_path / "cfg2").mkdir()
    os.symlink(other, tmp_path / "cfg2" / "tokens")
    with pytest.raises(TokenStoreError, match="symbolic link"):
        st2.save("https://example.test/mcp", {"tokens": {"access_token": "C"}})
    assert not list(other.iterdir())


def test_xdg_config_home_is_honoured(tmp_path, monkeypatch):
    from mcplock.model.paths import config_dir

    monkeypatch.delenv("MCPLOCK_CONFIG_DIR", raising=False)
    assert config_dir() == tmp_path / "xdg-config" / "mcplock"
    monkeypatch.delenv("XDG_CONFIG_HOME")
    assert config_dir() == Path(os.environ["HOME"]) / ".config" / "mcplock"


def test_lock_auth_key_roundtrip_and_validation():
    from mcplock.errors import LockfileError
    from mcplock.lock.auth_spec import AuthSpec
    from mcplock.lock.read import loads
    from mcplock.lock.write import dumps

    text = (
        'version = 1\n[server.a]\ntransport = "http"\nurl = "http://x/mcp"\n'
        'auth = {method = "client-credentials", client-id = "ci", client-secret = "${S}"}\npolicy = "all"\n'
    )
    lock = loads(text)
    assert lock.servers["a"].spec.auth == AuthSpec("client-credentials", client_id="ci", client_secret="${S}")
    assert loads(dumps(lock)).servers["a"].spec.auth == lock.servers["a"].spec.auth
    with pytest.raises(LockfileError, match="template"):
        loads(text.replace("${S}", "hunter2"))
    with pytest.raises(LockfileError, match="method"):
        loads(text.replace('"client-credentials"', '"magic"'))
    cimd = text.replace(
        'method = "client-credentials", client-id = "ci", client-secret = "${S}"',
        'method = "oauth", client-metadata-url = "https://example.com/mcplock.json"',
    )
    assert loads(dumps(loads(cimd))).servers["a"].spec.auth.stored() == {
        "method": "oauth",
        "client-metadata-url": "https://example.com/mcplock.json",
    }
    with pytest.raises(LockfileError, match="https"):
        loads(cimd.replace("https://", "http://"))
