"""OAuth through `mcplock call` and private_key_jwt client credentials, end to end: the real
CLI against fixtures/oauth/oauth_fixture.py (a real local authorization server in front of the
fixture MCP server), BROWSER set to fixtures/oauth/browser.py. No network."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from test_auth import env, oauth_server, stats, stored, token_files  # noqa: F401 (env: a fixture)

from conftest import run_cli

CALL = ("call", "web/get_weather", "--args", '{"city": "Paris"}')


def _browser_logins(tmp_path: Path) -> int:
    log = tmp_path / "browser.log"
    return log.read_text().count("/authorize?") if log.exists() else 0


def test_step_up_on_tools_call_through_call(tmp_path, env):  # noqa: F811
    with oauth_server("--call-scope", "mcp:admin") as (url, issuer):
        r = run_cli("add", "web", url, "--yes", "--policy", "none", "--login", env=env)
        assert r.returncode == 0, r.stderr
        assert "mcp:admin" not in stored(tmp_path)["tokens"]["scope"]  # listing needs no more

        # off a terminal, without --login: refused at once, with the login that asks for the scope
        r = run_cli(*CALL, env=env, timeout=60)
        assert r.returncode == 3, r.stdout + r.stderr
        assert "needs more OAuth scopes" in r.stderr and "mcp:admin" in r.stderr
        assert "mcplock auth login web --oauth-scopes" in r.stderr and "--login" in r.stderr
        assert r.stdout == ""
        assert stats(issuer)["mcp:403"] == 1 and _browser_logins(tmp_path) == 1

        # with --login: the browser asks for the union of the scopes, the call goes out again
        r = run_cli(*CALL, "--login", env=env, timeout=60)
        assert r.returncode == 0, r.stderr
        assert json.loads(r.stdout)["content"][0]["text"] == "fixture: called get_weather"
        assert _browser_logins(tmp_path) == 2
        second = (tmp_path / "browser.log").read_text().split("/authorize?")[-1]
        assert "mcp%3Aread" in second.replace("+", " ") and "mcp%3Aadmin" in second
        assert set(stored(tmp_path)["tokens"]["scope"].split()) >= {"mcp:read", "mcp:admin"}
        s = stats(issuer)
        assert s["mcp:403"] == 2 and s["token:authorization_code"] == 2

        # the stored token now has the scope: no login, no 403
        r = run_cli(*CALL, env=env, timeout=60)
        assert r.returncode == 0, r.stderr
        assert _browser_logins(tmp_path) == 2 and stats(issuer)["mcp:403"] == 2
        lock = Path("mcp.lock").read_text()
        assert stored(tmp_path)["tokens"]["access_token"] not in lock


def _keypair(tmp_path: Path, kind: str = "ec") -> tuple[Path, Path]:
    key, pub = tmp_path / f"{kind}.pem", tmp_path / f"{kind}.pub.pem"
    algo = ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"] if kind == "ec" else ["-algorithm", "ED25519"]
    subprocess.run(["openssl", "genpkey", *algo, "-out", str(key)], check=True, capture_output=True)
    subprocess.run(["openssl", "pkey", "-in", str(key), "-pubout", "-out", str(pub)], check=True, capture_output=True)
    return key, pub


def test_private_key_jwt_client_credentials(tmp_path, env):  # noqa: F811
    key, pub = _keypair(tmp_path)
    pem = key.read_text()
    with oauth_server("--jwt-client", f"ci-bot:{pub}") as (url, issuer):
        # the key itself on the command line is refused, and not echoed
        r = run_cli("add", "ci", url, "--yes", "--oauth-client-id", "ci-bot", "--oauth-client-key", pem, env=env)
        assert r.returncode == 2 and "PRIVATE KEY" not in r.stdout + r.stderr
        # from a variable holding the PEM; the lock records where the key comes from, never the key
        e = {**env, "CI_KEY": pem}
        r = run_cli("add", "ci", url, "--yes", "--oauth-client-id", "ci-bot", "--oauth-client-key", "${CI_KEY}", env=e)
        assert r.returncode == 0, r.stderr
        lock = Path("mcp.lock").read_text()
        assert 'method = "client-credentials"' in lock and 'client-key = "${CI_KEY}"' in lock
        assert "PRIVATE KEY" not in lock and "client-secret" not in lock
        s = stats(issuer)
        assert s["client-auth:jwt"] == 1 and s["token:client_credentials"] == 1
        assert not (tmp_path / "browser.log").exists()
        assert run_cli("diff", env=e).returncode == 0
        assert "PRIVATE KEY" not in json.dumps(stored(tmp_path))

        # the variable holding a path works too; a key the server does not know is rejected
        for f in token_files(tmp_path):
            f.unlink()
        assert run_cli("diff", env={**env, "CI_KEY": str(key)}).returncode == 0
        other, _ = _keypair(tmp_path, "ed25519")
        for f in token_files(tmp_path):
            f.unlink()
        r = run_cli("diff", env={**env, "CI_KEY": str(other)})
        assert r.returncode == 3 and "rejected the client" in r.stdout + r.stderr
        r = run_cli("diff", env={**env, "CI_KEY": str(tmp_path / "missing.pem")})
        assert r.returncode == 3 and "names no file" in r.stdout + r.stderr
        r = run_cli("diff", env={**env, "CI_KEY": "not a key"})
        assert r.returncode == 3 and "not a key" not in r.stdout + r.stderr.replace("is not a PEM", "")
        assert "PRIVATE KEY" not in r.stdout + r.stderr


def test_client_key_options_are_checked(tmp_path):
    url = "http://127.0.0.1:9/mcp"
    for bad in (
        ["--oauth-client-key", "k.pem"],  # no client id
        ["--oauth-client-id", "a", "--oauth-client-key", "k.pem", "--oauth-client-secret", "${S}"],
        ["--oauth-client-id", "a", "--oauth-client-key", "k.pem", "--oauth-grant", "authorization-code"],
        ["--oauth-client-id", "a", "--oauth-signing-alg", "ES256"],  # no key
        ["--oauth-client-id", "a", "--oauth-client-key", "k.pem", "--oauth-signing-alg", "HS256"],
    ):
        r = run_cli("inspect", url, *bad)
        assert r.returncode == 2, (bad, r.stderr)
        assert "--oauth-" in r.stderr
    # an RSA-only algorithm for an EC key: a clear error before anything is sent
    key, _ = _keypair(tmp_path)
    r = run_cli(
        "inspect", url, "--oauth-client-id", "a", "--oauth-client-key", str(key), "--oauth-signing-alg", "rs256"
    )
    assert r.returncode == 3 and "cannot sign RS256" in r.stderr and "--oauth-signing-alg ES256" in r.stderr


def test_lock_client_key_roundtrip_and_validation():
    from mcplock.errors import LockfileError
    from mcplock.lock.read import loads
    from mcplock.lock.write import dumps

    text = (
        'version = 1\n[server.a]\ntransport = "http"\nurl = "http://x/mcp"\n'
        'auth = {method = "client-credentials", client-id = "ci", client-key = "${K}", signing-alg = "ES256"}\n'
        'policy = "all"\n'
    )
    lock = loads(text)
    assert lock.servers["a"].spec.auth.stored() == {
        "method": "client-credentials",
        "client-id": "ci",
        "client-key": "${K}",
        "signing-alg": "ES256",
    }
    assert loads(dumps(lock)).servers["a"].spec.auth == lock.servers["a"].spec.auth
    for bad in (
        text.replace("${K}", "-----BEGIN PRIVATE KEY-----"),  # the key itself
        text.replace('"client-credentials"', '"oauth"'),
        text.replace('client-id = "ci", ', ""),
        text.replace('client-key = "${K}"', 'client-key = "${K}", client-secret = "${S}"'),
    ):
        with pytest.raises(LockfileError, match="client-key"):
            loads(bad)
    with pytest.raises(LockfileError, match="signing-alg"):
        loads(text.replace("ES256", "HS256"))


def test_a_pulled_lock_with_a_client_key_needs_trust(tmp_path, env):  # noqa: F811
    key, pub = _keypair(tmp_path)
    with oauth_server("--jwt-client", f"ci-bot:{pub}") as (url, issuer):
        e = {**env, "CI_KEY": str(key)}
        r = run_cli("add", "ci", url, "--yes", "--oauth-client-id", "ci-bot", "--oauth-client-key", "${CI_KEY}", env=e)
        assert r.returncode == 0, r.stderr
        pulled = tmp_path / "pulled"
        pulled.mkdir()
        (pulled / "mcp.lock").write_text(Path("mcp.lock").read_text())
        r = run_cli("diff", env=e, cwd=str(pulled))  # another project: nothing trusted there yet
        assert r.returncode == 2, r.stdout + r.stderr
        assert "signs with the key ${CI_KEY}" in r.stderr and "mcplock trust ci" in r.stderr
        assert stats(issuer)["token:client_credentials"] == 1  # nothing was sent for it
