"""`mcplock add REGISTRY_NAME` through the MCP Registry's generic API v0.1 (a local registry:
fixtures/mcp_registry.py, server.json per the 2025-12-11 schema), with the real npm/PyPI reference
packages that claim their registry names: the same lock entry as the typed command plus the
registry fields; deleted, impostor and look-alike entries; `outdated`/`update`; search, inspect."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from mcp_registry import McpRegistry, npm_package, pypi_package, server_json
from runner import http_fixture

pytestmark = pytest.mark.timeout(600)

MEMORY = "io.github.modelcontextprotocol/server-memory"
MEMORY_PKG = "@modelcontextprotocol/server-memory"
REPO = "https://github.com/modelcontextprotocol/servers"


def memory(version: str, name: str = MEMORY, package: str = MEMORY_PKG) -> dict:
    return server_json(name, version, packages=[npm_package(package, version)], repository=REPO)


@pytest.fixture
def registry():
    with McpRegistry(page_size=2) as reg:
        yield reg


def lock() -> dict:
    return tomllib.loads(Path("mcp.lock").read_text())["server"]


def env_of(reg: McpRegistry, tmp_path: Path) -> dict[str, str]:
    return {"MCPLOCK_REGISTRY_URL": reg.url, "MCPLOCK_CACHE_DIR": str(tmp_path / "cache")}


@pytest.mark.network
def test_add_by_registry_name_is_the_typed_command_plus_the_registry_fields(cli, registry, tmp_path):
    registry.publish(memory("2026.7.4"))
    env = env_of(registry, tmp_path)
    r = cli("add", MEMORY, "--yes", env=env, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    r = cli("add", "typed", "--yes", "--", "npx", "-y", f"{MEMORY_PKG}@2026.7.4", env=env, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    servers = lock()
    by_name, typed = servers["memory"], servers["typed"]  # `memory`: the registry name's last part
    assert by_name.pop("registry") == {"name": MEMORY, "version": "2026.7.4", "url": registry.url, "repository": REPO}
    assert by_name == typed
    assert by_name["command"] == "npx" and by_name["args"] == ["-y", f"{MEMORY_PKG}@2026.7.4"]
    assert by_name["package"]["version"] == "2026.7.4" and by_name["package"]["integrity"].startswith("sha512-")

    # a newer version in the registry: `outdated` sees it (exit 1), `update` moves the pin and the entry
    registry.publish(memory("2026.8.31"))
    r = cli("outdated", "--format", "json", env=env, timeout=120)
    assert r.returncode == 1, r.stdout + r.stderr
    row = next(s for s in json.loads(r.stdout)["servers"] if s["server"] == "memory")
    assert row == {
        **row,
        "registry": "mcp-registry",
        "package": MEMORY,
        "current": "2026.7.4",
        "latest": "2026.8.31",
        "status": "behind",
    }
    r = cli("update", "memory", env=env, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    moved = lock()["memory"]
    assert moved["package"]["version"] == "2026.8.31" and moved["registry"]["version"] == "2026.8.31"
    assert moved["args"] == ["-y", f"{MEMORY_PKG}@2026.8.31"]  # the command names the pinned release
    r = cli("refresh", "memory", env=env, timeout=600)  # so a refresh keeps the pin where update moved it
    assert r.returncode in (0, 1), r.stdout + r.stderr
    assert lock()["memory"]["package"]["version"] == "2026.8.31"
    r = cli("outdated", "memory", env=env, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr


def test_a_deleted_entry_is_refused_and_nothing_is_fetched(cli, registry, tmp_path):
    registry.publish(memory("2026.7.4"), status="deleted")
    env = {**env_of(registry, tmp_path), "MCPLOCK_NPM_REGISTRY": "http://127.0.0.1:9"}  # nothing may ask npm
    r = cli("add", MEMORY, "--yes", env=env)
    assert r.returncode == 2, r.stdout + r.stderr
    assert f"marks {MEMORY} 2026.7.4 as deleted; nothing was fetched" in " ".join(r.stderr.split())
    assert f"mcplock inspect {MEMORY}" in r.stderr
    assert not Path("mcp.lock").exists() and not (tmp_path / "cache").exists()
    assert "Traceback" not in r.stderr


@pytest.mark.network
def test_an_entry_whose_package_claims_another_name_is_refused_naming_both(cli, registry, tmp_path):
    registry.publish(memory("2026.7.4", name="io.github.impostor/server-memory"))
    r = cli("add", "io.github.impostor/server-memory", "--yes", env=env_of(registry, tmp_path), timeout=120)
    assert r.returncode == 2, r.stdout + r.stderr
    err = " ".join(r.stderr.split())
    assert "io.github.impostor/server-memory" in err and f"claims to be {MEMORY}" in err
    assert "nothing was installed" in err and f"mcplock add {MEMORY}" in err
    assert not Path("mcp.lock").exists() and not list((tmp_path / "cache").glob("**/npm/*"))


@pytest.mark.network
def test_a_package_that_claims_no_name_is_refused(cli, registry, tmp_path):
    # server-memory 2025.9.25 predates its mcpName
    registry.publish(memory("2025.9.25"))
    r = cli("add", MEMORY, "--yes", env=env_of(registry, tmp_path), timeout=120)
    assert r.returncode == 2, r.stdout + r.stderr
    assert "claims no registry name (`mcpName` in its package.json)" in " ".join(r.stderr.split())
    assert not Path("mcp.lock").exists()


@pytest.mark.network
def test_a_pypi_package_claims_its_name_in_its_description(cli, registry, tmp_path):
    time = "io.github.modelcontextprotocol/server-time"
    registry.publish(
        server_json(
            time,
            "2026.10.19",
            packages=[
                pypi_package(
                    "mcp-server-time",
                    "2026.10.19",
                    packageArguments=[{"type": "named", "name": "--local-timezone", "value": "UTC"}],
                )
            ],
        )
    )
    registry.publish(
        server_json("io.github.someone/time", "1.0.0", packages=[pypi_package("mcp-server-time", "2026.10.19")])
    )
    env = env_of(registry, tmp_path)
    r = cli("add", "io.github.someone/time", "--yes", env=env, timeout=120)
    assert r.returncode == 2, r.stdout + r.stderr
    assert f"claims to be {time} (an `mcp-name:` line in its description)" in " ".join(r.stderr.split())
    r = cli("add", time, "--yes", env=env, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    srv = lock()["time"]
    assert srv["command"] == "uvx" and srv["args"] == ["mcp-server-time==2026.10.19", "--local-timezone", "UTC"]
    assert srv["package"]["registry"] == "pypi" and srv["registry"]["name"] == time
    assert "get_current_time" in srv["tool"]


def test_a_lookalike_package_is_named_before_anything_is_installed_even_with_yes(cli, registry, tmp_path):
    registry.publish(
        server_json(
            "io.github.modelcontextprotocol/server-memory2",
            "1.0.0",
            packages=[npm_package("@modeicontextprotocol/server-memory", "1.0.0")],
        )
    )
    env = {**env_of(registry, tmp_path), "MCPLOCK_NPM_REGISTRY": "http://127.0.0.1:9"}
    r = cli("add", "io.github.modelcontextprotocol/server-memory2", "--yes", env=env)
    err = " ".join(r.stderr.split())
    assert (
        "warning: high lookalike-package in memory2: npm package `@modeicontextprotocol/server-memory` looks "
        f"like `{MEMORY_PKG}`" in err
    )
    assert r.returncode != 0 and not Path("mcp.lock").exists()  # npm (unreachable here) never had it
    # a typed command is named too, before it is pinned
    r = cli("add", "mem", "--yes", "--", "npx", "-y", "@modelcontextprotoco1/server-memory", env=env)
    err = " ".join(r.stderr.split())
    assert "high lookalike-package in mem: npm package `@modelcontextprotoco1/server-memory`" in err
    assert err.index("lookalike-package") < err.index("pinning mem")
    # a capital I for the l: not a name npm can pin, so the entry is refused (never run unpinned)
    registry.publish(
        server_json(
            "io.github.modelcontextprotocol/server-memory3",
            "1.0.0",
            packages=[npm_package("@modeIcontextprotocol/server-memory", "1.0.0")],
        )
    )
    r = cli("add", "io.github.modelcontextprotocol/server-memory3", "--yes", env=env)
    err = " ".join(r.stderr.split())
    assert r.returncode == 2, r.stdout + r.stderr
    assert "lookalike-package in memory3: npm package `@modeIcontextprotocol/server-memory`" in err
    assert "its package cannot be pinned" in err


def test_a_deprecated_remote_entry_is_added_with_a_warning_and_templates(cli, registry, tmp_path):
    with http_fixture() as base:
        registry.publish(
            server_json(
                "com.example/remote",
                "2.0.0",
                remotes=[
                    {
                        "type": "streamable-http",
                        "url": f"{base}/mcp",
                        "headers": [{"name": "X-Api-Key", "isRequired": True, "isSecret": True}],
                    }
                ],
            ),
            status="deprecated",
        )
        r = cli(
            "add",
            "com.example/remote",
            "--name",
            "rem",
            "--trust",  # the remote's X_API_KEY is sent only once the user confirms it (--trust, off a terminal)
            env={**env_of(registry, tmp_path), "X_API_KEY": "s3cret-value"},
        )
    assert r.returncode == 0, r.stdout + r.stderr
    assert "warning: the MCP Registry marks com.example/remote 2.0.0 as deprecated" in r.stderr
    assert "rem needs X_API_KEY" in " ".join(r.stderr.split())
    srv = lock()["rem"]
    assert srv["url"] == f"{base}/mcp" and srv["headers"] == {"X-Api-Key": "${X_API_KEY}"}
    assert srv["registry"]["version"] == "2.0.0"
    assert "s3cret-value" not in Path("mcp.lock").read_text() + r.stdout + r.stderr


def test_search_pages_through_the_registry(cli, registry):
    for i in range(5):
        registry.publish(memory("1.0.0", name=f"io.github.acme/tool-{i}", package=f"@acme/tool-{i}"))
    registry.publish(memory("1.0.1", name="io.github.acme/tool-4", package="@acme/tool-4"))
    registry.set_status("io.github.acme/tool-3", "1.0.0", "deleted")
    r = cli("search", "acme", env={"MCPLOCK_REGISTRY_URL": registry.url})
    assert r.returncode == 0, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].split() == ["NAME", "VERSION", "PACKAGE", "STATUS"]
    assert [ln.split()[0] for ln in lines[1:]] == [f"io.github.acme/tool-{i}" for i in range(5)]  # 3 pages of 2
    assert lines[4].split() == ["io.github.acme/tool-3", "1.0.0", "npm", "@acme/tool-3@1.0.0", "deleted"]
    assert lines[5].split()[1] == "1.0.1"  # the latest version only
    doc = json.loads(cli("search", "acme", "--format", "json", env={"MCPLOCK_REGISTRY_URL": registry.url}).stdout)
    assert [s["name"] for s in doc["servers"]] == [f"io.github.acme/tool-{i}" for i in range(5)]
    assert sum("cursor=" in q for q in registry.requests) >= 4


def test_inspect_shows_the_launch_and_the_versions(cli, registry):
    registry.publish(memory("2026.7.4"))
    registry.publish(memory("2026.8.31"))
    registry.set_status(MEMORY, "2026.7.4", "deprecated")
    r = cli("inspect", MEMORY, env={"MCPLOCK_REGISTRY_URL": registry.url})
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"runs: npx -y {MEMORY_PKG}@2026.8.31" in r.stdout
    assert "versions: 2026.7.4 (deprecated), 2026.8.31" in r.stdout
    r = cli("inspect", f"{MEMORY}@2026.7.4", "--format", "json", env={"MCPLOCK_REGISTRY_URL": registry.url})
    doc = json.loads(r.stdout)
    assert doc["server"]["status"] == "deprecated" and doc["launch"]["args"] == ["-y", f"{MEMORY_PKG}@2026.7.4"]


def test_an_unknown_name_or_version_says_what_to_do(cli, registry):
    registry.publish(memory("2026.7.4"))
    env = {"MCPLOCK_REGISTRY_URL": registry.url}
    r = cli("add", "io.github.nobody/nothing", env=env)
    assert r.returncode == 2 and "has no server named io.github.nobody/nothing" in r.stderr
    assert "mcplock search nothing" in r.stderr
    r = cli("add", f"{MEMORY}@9.9.9", env=env)
    assert r.returncode == 2 and f"has no version 9.9.9 of {MEMORY}" in " ".join(r.stderr.split())
    r = cli("add", MEMORY, "--yes", env={"MCPLOCK_REGISTRY_URL": "http://127.0.0.1:9"})
    assert r.returncode == 3 and "cannot reach the registry" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.network
def test_init_offers_the_registry_name_a_host_configs_package_claims(cli, tmp_path):
    Path(".mcp.json").write_text(
        json.dumps({"mcpServers": {"mem": {"command": "npx", "args": ["-y", f"{MEMORY_PKG}@2026.7.4"]}}})
    )
    r = cli("init", "--yes", env={"MCPLOCK_CACHE_DIR": str(tmp_path / "cache")}, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    err = " ".join(r.stderr.split())
    assert f"in the MCP Registry: mem ({MEMORY});" in err and err.count("in the MCP Registry") == 1
    assert "`mcplock add REGISTRY_NAME --name NAME`" in err and "registry" not in lock()["mem"]


def _bundle(files: dict[str, str]) -> bytes:
    import io
    import zipfile

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for path, text in files.items():
            z.writestr(path, text)
    return buf.getvalue()


def test_an_mcpb_bundle_is_pinned_by_the_entrys_sha256_and_run_from_the_cache(cli, registry, tmp_path):
    import hashlib
    import sys

    from pypi_index import PypiIndex

    fixture = Path(__file__).resolve().parent.parent / "fixtures" / "mcp_fixture.py"
    server = (
        f"import os, runpy, sys\nassert os.environ['DEMO_KEY'] == 'k'\nsys.argv = [{str(fixture)!r}, 'stdio']\n"
        f"sys.path.insert(0, {str(fixture.parent)!r})\nrunpy.run_path({str(fixture)!r}, run_name='__main__')\n"
    )
    manifest = {
        "manifest_version": "0.3",
        "name": "demo",
        "version": "1.0.0",
        "server": {
            "type": "python",
            "entry_point": "server.py",
            "mcp_config": {
                "command": sys.executable,
                "args": ["${__dirname}/server.py"],
                "env": {"DEMO_KEY": "${user_config.key}"},
            },
        },
    }
    good = _bundle({"manifest.json": json.dumps(manifest), "server.py": server})
    evil = _bundle({"manifest.json": json.dumps(manifest), "../escape.py": "print('out')\n"})
    with PypiIndex() as files:
        files.blobs.update({"demo.mcpb": good, "evil.mcpb": evil})
        for name, blob, sha in (
            ("demo", "demo.mcpb", hashlib.sha256(good).hexdigest()),
            ("forged", "demo.mcpb", "0" * 64),
            ("evil", "evil.mcpb", hashlib.sha256(evil).hexdigest()),
        ):
            registry.publish(
                server_json(
                    f"io.github.acme/{name}",
                    "1.0.0",
                    packages=[
                        {
                            "registryType": "mcpb",
                            "identifier": f"{files.url}/files/{blob}",
                            "version": "1.0.0",
                            "fileSha256": sha,
                            "transport": {"type": "stdio"},
                        }
                    ],
                )
            )
        env = {**env_of(registry, tmp_path), "KEY": "k"}
        r = cli("add", "io.github.acme/demo", "--yes", env=env)
        assert r.returncode == 0, r.stdout + r.stderr
        srv = lock()["demo"]
        assert srv["command"] == "mcpb" and srv["args"] == [f"{files.url}/files/demo.mcpb"]
        assert srv["package"] == {
            **srv["package"],
            "registry": "mcpb",
            "version": "1.0.0",
            "integrity": f"sha256:{hashlib.sha256(good).hexdigest()}",
        }
        assert srv["tool"]  # probed through the bundle's own server
        # a teammate's empty cache downloads and verifies it again
        r = cli("diff", env={**env, "MCPLOCK_CACHE_DIR": str(tmp_path / "teammate")})
        assert r.returncode == 0, r.stdout + r.stderr
        r = cli("add", "io.github.acme/forged", "--yes", env=env)
        assert r.returncode == 2 and "nothing was started" in " ".join(r.stderr.split()), r.stdout + r.stderr
        r = cli("add", "io.github.acme/evil", "--yes", env=env)
        assert r.returncode == 2 and "leaves the bundle" in r.stderr, r.stdout + r.stderr
        assert not list((tmp_path / "cache").rglob("escape.py"))
    assert set(lock()) == {"demo"}


def test_an_older_pypi_release_claims_its_name_in_its_own_metadata(cli, registry, tmp_path):
    """The claim of the pinned release, not of the newest one: read from the release's own
    metadata (PEP 658) where the index has no per-release JSON."""
    from pypi_index import DEP_1_0, PypiIndex, wheel

    demo = wheel(
        "pin-demo",
        "1.0",
        requires=("pin-dep>=1",),
        scripts={"pin-demo": "pin_demo:main"},
        modules={"pin_demo": "def main():\n    pass\n"},
        description="<!-- mcp-name: io.github.acme/demo -->\nA demo server.",
    )
    newer = wheel("pin-demo", "1.1", description="mcp-name: io.github.other/demo")
    with PypiIndex() as index:
        index.publish(*DEP_1_0, uploaded="2025-01-10T08:00:00Z")
        index.publish(*demo, uploaded="2025-02-01T12:00:00Z")
        index.publish(*newer, uploaded="2025-03-01T12:00:00Z")
        registry.publish(server_json("io.github.other/demo", "1.0.0", packages=[pypi_package("pin-demo", "1.0")]))
        env = {**env_of(registry, tmp_path), "MCPLOCK_PYPI_URL": index.url}
        r = cli("add", "io.github.other/demo", "--yes", env=env)
        assert r.returncode == 2, r.stdout + r.stderr
        assert "pin-demo 1.0, which claims to be io.github.acme/demo" in " ".join(r.stderr.split())
        assert not list((tmp_path / "cache").glob("**/pypi/*"))
