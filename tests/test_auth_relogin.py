"""A failed `mcplock auth login` keeps the token stored before it: the real CLI against
fixtures/oauth/oauth_fixture.py, BROWSER set to fixtures/oauth/browser.py. No network."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

from test_auth import env, oauth_server, stats, stored  # noqa: F401 (env: a fixture)

from conftest import run_cli


def _browser_logins(tmp_path: Path) -> int:
    log = tmp_path / "browser.log"
    return log.read_text().count("/authorize?") if log.exists() else 0


def test_failed_browser_relogin_keeps_the_earlier_token(tmp_path, env):  # noqa: F811
    with oauth_server() as (url, issuer):
        assert run_cli("add", "web", url, "--yes", "--login", env=env).returncode == 0
        before = stored(tmp_path)

        # the user never comes back from the browser: the callback times out
        r = run_cli("auth", "login", "web", "--timeout", "1.5", env={**env, "FAKE_BROWSER_MODE": "ignore"})
        assert r.returncode == 3 and "callback timed out" in r.stderr
        assert "the earlier login to web is kept (token stored" in r.stderr
        assert stored(tmp_path) == before

        # the user clicks "Deny"
        r = run_cli("auth", "login", "web", env={**env, "FAKE_BROWSER_MODE": "deny"})
        assert r.returncode == 3 and "denied the login" in r.stderr and "access_denied" in r.stderr
        assert stored(tmp_path) == before
        assert _browser_logins(tmp_path) == 3

        # the earlier token still works, with no new login
        r = run_cli("diff", env=env)
        assert r.returncode == 0, r.stdout + r.stderr
        assert stats(issuer)["token:authorization_code"] == 1
        r = run_cli("auth", "status", env=env)
        assert r.returncode == 0 and "token stored" in r.stdout

        # a login that succeeds replaces the token and reuses the registration
        r = run_cli("auth", "login", "web", env=env)
        assert r.returncode == 0, r.stderr
        after = stored(tmp_path)
        assert after["tokens"]["access_token"] != before["tokens"]["access_token"]
        assert after["client_info"]["client_id"] == before["client_info"]["client_id"]
        s = stats(issuer)
        assert s["register"] == 1 and s["token:authorization_code"] == 2
        assert run_cli("diff", env=env).returncode == 0


def test_failed_client_credentials_relogin_keeps_the_earlier_token(tmp_path, env):  # noqa: F811
    secret = "cc-secret-canary-5e1c"
    with oauth_server("--cc-client", f"ci-bot:{secret}") as (url, issuer):
        e = {**env, "CI_SECRET": secret}
        r = run_cli(
            "add", "ci", url, "--yes", "--oauth-client-id", "ci-bot", "--oauth-client-secret", "${CI_SECRET}", env=e
        )
        assert r.returncode == 0, r.stderr
        before = stored(tmp_path)

        # a wrong secret: the authorization server rejects the client, the stored token stays
        r = run_cli("auth", "login", "ci", env={**env, "CI_SECRET": "wrong"})
        assert r.returncode == 3 and "rejected the client" in r.stderr
        assert "the earlier login to ci is kept" in r.stderr
        assert stored(tmp_path) == before
        requests = stats(issuer)["token:client_credentials"]
        assert requests == 2  # the add, the failed login

        # the earlier token still works: no new token is requested
        r = run_cli("diff", env=e)
        assert r.returncode == 0, r.stdout + r.stderr
        assert stats(issuer)["token:client_credentials"] == requests

        r = run_cli("auth", "login", "ci", env=e)
        assert r.returncode == 0, r.stderr
        assert stored(tmp_path)["tokens"]["access_token"] != before["tokens"]["access_token"]


def test_a_registration_the_token_endpoint_rejects_is_forgotten_and_made_again(tmp_path, env):  # noqa: F811
    with oauth_server("--dcr-confidential") as (url, issuer):
        assert run_cli("add", "web", url, "--yes", "--login", env=env).returncode == 0
        before = stored(tmp_path)
        assert before["client_info"]["client_secret"]  # a dynamic registration with a secret

        # the authorization server expires every registration's secret (RFC 7591 §3.2.1)
        req = urllib.request.Request(issuer + "/admin/rotate-secrets", data=b"", method="POST")
        urllib.request.urlopen(req, timeout=5).read()
        r = run_cli("auth", "login", "web", env=env)
        assert r.returncode == 3, r.stdout + r.stderr
        assert "no longer accepts the client mcplock registered" in r.stderr and "invalid_client" in r.stderr
        assert "registers a new client" in r.stderr and "--oauth-client-id" not in r.stderr
        assert before["client_info"]["client_secret"] not in r.stdout + r.stderr
        # the earlier token stays; the registration the server refuses is forgotten
        after = stored(tmp_path)
        assert after["tokens"] == before["tokens"] and after.get("client_info") is None
        assert run_cli("diff", env=env).returncode == 0  # the earlier token still works

        # the next login registers again and succeeds
        r = run_cli("auth", "login", "web", env=env)
        assert r.returncode == 0, r.stderr
        again = stored(tmp_path)
        assert again["client_info"]["client_id"] != before["client_info"]["client_id"]
        assert again["tokens"]["access_token"] != before["tokens"]["access_token"]
        s = stats(issuer)
        assert s["register"] == 2 and s["token:authorization_code"] == 3  # add, the refused one, this one
        assert run_cli("diff", env=env).returncode == 0


def test_a_server_that_moved_to_another_authorization_server(tmp_path, env):  # noqa: F811
    """SEP-2352: the resource now names another authorization server. Without a login the
    error says so (not "revoked"); a run that may log in logs in there, in the same command."""
    with oauth_server() as (url, issuer):
        assert run_cli("add", "web", url, "--yes", "--login", env=env).returncode == 0
        before = stored(tmp_path)
        req = urllib.request.Request(issuer + "/admin/move", data=b"", method="POST")
        with urllib.request.urlopen(req, timeout=5) as resp:
            new = json.loads(resp.read())["issuer"]
        assert new != issuer

        r = run_cli("diff", env=env)
        assert r.returncode == 3, r.stdout + r.stderr
        out = r.stdout + r.stderr
        assert f"now uses another authorization server ({new}; the stored login is from {issuer})" in out
        assert "mcplock auth login web" in out and "--login" in out and "revoked" not in out
        assert _browser_logins(tmp_path) == 1

        r = run_cli("diff", "--login", env=env)
        assert r.returncode == 0, r.stdout + r.stderr
        assert _browser_logins(tmp_path) == 2
        after = stored(tmp_path)
        assert after["auth_server_url"].rstrip("/") == new
        assert after["client_info"]["client_id"] != before["client_info"]["client_id"]
        s = stats(new)
        assert s["register"] == 1 and s["token:authorization_code"] == 1
        assert stats(issuer)["token:authorization_code"] == 1  # the old server saw nothing more
        assert run_cli("diff", env=env).returncode == 0
