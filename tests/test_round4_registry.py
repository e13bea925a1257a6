"""Fail-safe, round 4 — the registry's seams (docs/failing-safe.md, "Round 4", "Registry, pins and
policy"): a hostile MCP Registry of our own on 127.0.0.1 (fixtures/hostile_registry.py) answers
one name with another's entry, another version than asked, a status in capitals, an endless
body, redirects; the real console script must refuse before anything is fetched."""

from __future__ import annotations

from pathlib import Path

import pytest

from hostile_registry import HostileRegistry
from local_http import LocalHttp
from mcp_registry import npm_package, server_json

ACME = "io.github.acme/x"
EVIL = "io.github.evil/x"


class Recorder(LocalHttp):
    """A stand-in npm registry that records what was asked and answers nothing."""

    def route(self, path, query):
        return None


@pytest.fixture
def registry():
    with HostileRegistry() as reg:
        yield reg


@pytest.fixture
def npm():
    with Recorder() as rec:
        yield rec


def env_of(reg, npm, tmp_path: Path) -> dict[str, str]:
    return {
        "MCPLOCK_REGISTRY_URL": reg.url,
        "MCPLOCK_NPM_REGISTRY": npm.url,
        "MCPLOCK_CACHE_DIR": str(tmp_path / "cache"),
    }


def nothing_fetched(npm, tmp_path: Path) -> None:
    assert npm.requests == [], npm.requests
    assert not Path("mcp.lock").exists()
    assert not list((tmp_path / "cache").glob("**/npm/*"))


def joined(r) -> str:
    return " ".join(r.stderr.split())


def test_an_answer_with_another_servers_entry_is_refused_before_anything_is_fetched(cli, registry, npm, tmp_path):
    registry.publish(server_json(EVIL, "1.0.0", packages=[npm_package("@evil/x", "1.0.0")]))
    registry.impersonate(ACME, EVIL)
    env = env_of(registry, npm, tmp_path)
    for ref in (ACME, f"{ACME}@1.0.0"):
        r = cli("add", ref, "--yes", env=env)
        assert r.returncode == 2, r.stdout + r.stderr
        err = joined(r)
        assert f"answered the request for {ACME}" in err and f"with the entry of {EVIL}" in err, err
        assert "nothing was fetched" in err and "Traceback" not in r.stderr
        nothing_fetched(npm, tmp_path)
    r = cli("inspect", ACME, env=env)  # `inspect` shows no impostor either
    assert r.returncode == 2 and f"with the entry of {EVIL}" in joined(r), r.stdout + r.stderr


def test_an_answer_with_another_version_is_refused(cli, registry, npm, tmp_path):
    registry.publish(server_json(ACME, "1.0.0", packages=[npm_package("@acme/x", "1.0.0")]))
    registry.publish(server_json(ACME, "6.6.6", packages=[npm_package("@acme/x", "6.6.6")]))
    registry.swap_version(ACME, "1.0.0", "6.6.6")
    r = cli("add", f"{ACME}@1.0.0", "--yes", env=env_of(registry, npm, tmp_path))
    assert r.returncode == 2, r.stdout + r.stderr
    err = joined(r)
    assert f"answered the request for {ACME} 1.0.0 with version 6.6.6" in err, err
    assert f"mcplock inspect {ACME}" in err
    nothing_fetched(npm, tmp_path)


def test_add_names_the_entry_it_resolved_and_warns_about_plain_http(cli, registry, npm, tmp_path):
    registry.publish(server_json(ACME, "1.0.0", packages=[npm_package("@acme/x", "1.0.0")]))
    r = cli("add", ACME, "--yes", env=env_of(registry, npm, tmp_path))
    err = joined(r)
    assert f"entry {ACME} 1.0.0 (active)" in err, err
    assert f"the MCP Registry at {registry.url} is reached over plain HTTP" in err, err
    r = cli("search", "acme", env=env_of(registry, npm, tmp_path))
    assert r.returncode == 0 and "reached over plain HTTP" in joined(r), r.stdout + r.stderr


@pytest.mark.parametrize("status", ["Deleted", "DELETED", " deleted "])
def test_a_deleted_status_in_any_letter_case_is_refused(cli, registry, npm, tmp_path, status):
    registry.publish(server_json(ACME, "1.0.0", packages=[npm_package("@acme/x", "1.0.0")]), status=status)
    r = cli("add", ACME, "--yes", env=env_of(registry, npm, tmp_path))
    assert r.returncode == 2, r.stdout + r.stderr
    assert f"marks {ACME} 1.0.0 as deleted; nothing was fetched" in joined(r)
    nothing_fetched(npm, tmp_path)


def test_a_deprecated_status_in_capitals_is_a_warning_not_an_unknown_status(cli, registry, npm, tmp_path):
    registry.publish(server_json(ACME, "1.0.0", packages=[npm_package("@acme/x", "1.0.0")]), status="Deprecated")
    r = cli("add", ACME, "--yes", env=env_of(registry, npm, tmp_path))
    err = joined(r)
    assert f"marks {ACME} 1.0.0 as deprecated" in err and "unknown status" not in err, err


def test_a_registry_answer_is_capped(cli, registry, npm, tmp_path):
    # 80 MiB of valid JSON without a Content-Length: read to the end it would be accepted
    path = f"/v0.1/servers/{ACME.replace('/', '%2F')}/versions/latest"
    registry.flood(path, 80 * 1024 * 1024)
    r = cli("add", ACME, "--yes", env=env_of(registry, npm, tmp_path))
    assert r.returncode == 3, r.stdout + r.stderr
    err = joined(r)
    assert "is larger than 64 MiB, the most mcplock reads from a registry" in err, err
    assert "Traceback" not in r.stderr
    assert registry.chunks_sent < 79  # the reader stopped at the cap, not at the end
    nothing_fetched(npm, tmp_path)


def test_redirects_to_another_host_are_noted_and_to_other_schemes_refused(cli, registry, npm, tmp_path):
    registry.publish(server_json(ACME, "1.0.0", packages=[npm_package("@acme/x", "1.0.0")]))
    path = f"/v0.1/servers/{ACME.replace('/', '%2F')}/versions/latest"
    with HostileRegistry() as other:
        other.publish(server_json(ACME, "1.0.0", packages=[npm_package("@acme/x", "1.0.0")]))
        registry.redirect(path, other.url + path)
        r = cli("inspect", ACME, env=env_of(registry, npm, tmp_path))
        assert r.returncode == 0, r.stdout + r.stderr
        assert (
            f"note: the registry redirected MCP Registry server {ACME} from {registry.url}{path} to "
            f"{other.url}{path}" in joined(r)
        ), r.stderr
        assert path in other.requests
    for target in ("file:///etc/passwd", "ftp://127.0.0.1/x"):
        registry.redirect(path, target)
        r = cli("add", ACME, "--yes", env=env_of(registry, npm, tmp_path))
        assert r.returncode == 3, r.stdout + r.stderr
        assert f"redirected MCP Registry server {ACME} to {target}, which is not an http(s) URL" in joined(r)
        nothing_fetched(npm, tmp_path)


def test_a_redirect_from_https_down_to_http_is_refused():
    # no TLS server here: the rule itself, as the fetch loop applies it to each hop
    from mcplock.packages.errors import RegistryError
    from mcplock.packages.fetch import _check_redirect

    with pytest.raises(RegistryError, match="down to plain HTTP"):
        _check_redirect("https://r.example", "https://r.example/a", "http://r.example/a", "x")
    with pytest.raises(RegistryError, match="down to plain HTTP"):  # a detour through another https host
        _check_redirect("https://r.example", "https://cdn.example/a", "http://cdn.example/a", "x")
    _check_redirect("http://r.example", "http://r.example/a", "https://r.example/a", "x")  # an upgrade: noted


# -- item 3: a remote entry's templates are named, and sent only when confirmed --------------------


class RemoteRecorder(LocalHttp):
    """A stand-in remote MCP server that records each request's headers and answers 404."""

    def __init__(self) -> None:
        super().__init__()
        self.headers: list[dict[str, str]] = []

    def answer_raw(self, handler, path, query):
        self.headers.append(dict(handler.headers.items()))
        return False

    def route(self, path, query):
        return None


def _remote_entry(url: str, headers: list[dict] | None = None) -> dict:
    return server_json(ACME, "1.0.0", remotes=[{"type": "streamable-http", "url": url, "headers": headers or []}])


def test_a_remote_entrys_variables_are_named_and_not_sent_without_consent(cli, registry, npm, tmp_path):
    with RemoteRecorder() as remote:
        registry.publish(
            _remote_entry(
                remote.url + "/{tenant}/mcp",
                [
                    {"name": "Authorization", "value": "Bearer {token}", "variables": {"token": {"isRequired": True}}},
                    {"name": "X-Aws", "value": "${AWS_SECRET_ACCESS_KEY}"},
                ],
            )
        )
        env = {
            **env_of(registry, npm, tmp_path),
            "TOKEN": "tok-secret-1",
            "TENANT": "acme",
            "AWS_SECRET_ACCESS_KEY": "aws-secret-2",
        }
        for extra in ([], ["--yes"]):  # off a terminal: --yes answers questions, it does not send secrets
            r = cli("add", ACME, *extra, env=env)
            assert r.returncode == 2, r.stdout + r.stderr
            err = joined(r)
            assert "sends the values of" in err and "TOKEN" in err and "AWS_SECRET_ACCESS_KEY" in err, err
            assert "TENANT" in err and "header Authorization" in err
            assert f"mcplock add {ACME} --trust" in err and "nothing was requested" in err
            assert remote.headers == [] and not Path("mcp.lock").exists()
            assert "tok-secret-1" not in r.stdout + r.stderr and "aws-secret-2" not in r.stdout + r.stderr
        r = cli("add", ACME, "--trust", env=env)  # the user's flag: sent, as named
        assert remote.headers, r.stdout + r.stderr
        assert any(h.get("Authorization") == "Bearer tok-secret-1" for h in remote.headers)
        assert remote.requests[0] == "/acme/mcp"


@pytest.mark.parametrize(
    "url",
    [
        "http://{host}/mcp",
        "http://127.0.0.1:9/mcp?key={api_key}",
        "http://127.0.0.1:9/mcp?k=${GITHUB_TOKEN}",
        "http://{user}@127.0.0.1:9/mcp",
    ],
)
def test_a_template_in_a_remotes_host_or_query_is_refused(cli, registry, npm, tmp_path, url):
    registry.publish(_remote_entry(url))
    r = cli("add", ACME, "--trust", "--yes", env={**env_of(registry, npm, tmp_path), "GITHUB_TOKEN": "ghp-secret"})
    assert r.returncode == 2, r.stdout + r.stderr
    assert "has a template in its" in joined(r) and "ghp-secret" not in r.stderr
    assert not Path("mcp.lock").exists()


def test_an_http_answer_the_oauth_provider_would_read_whole_is_capped(registry):
    # the probe's client (the one the SDK's OAuth provider reads metadata and token answers with)
    import asyncio

    import httpx2

    from mcplock.probe import ProbeOptions
    from mcplock.probe.http import new_client

    registry.flood("/.well-known/oauth-authorization-server", 70 * 1024 * 1024)
    registry.publish(server_json(ACME, "1.0.0"))

    async def main() -> None:
        async with new_client(ProbeOptions(timeout=60)) as client:
            with pytest.raises(httpx2.ReadError, match="larger than 64 MiB, the most mcplock reads of one answer"):
                await client.get(registry.url + "/.well-known/oauth-authorization-server")
            ok = await client.get(f"{registry.url}/v0.1/servers/{ACME.replace('/', '%2F')}/versions/latest")
            assert ok.status_code == 200 and ok.json()["server"]["name"] == ACME

    asyncio.run(main())
    assert registry.chunks_sent < 69
