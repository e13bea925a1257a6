"""Package pins against the real npm registry and PyPI, with real reference servers: two
releases of server-memory whose definitions differ, mcp-server-time through `uvx`, the tree
replayed from mcplock's cache with the registry unreachable, and tampering refused.

Deselect with `-m "not network"`; `make test` runs them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import httpx2
import pytest

pytestmark = [pytest.mark.network, pytest.mark.timeout(600)]

MEMORY = "@modelcontextprotocol/server-memory"
OLD = "2025.4.25"  # tests/data/releases/memory-2025.4.25.json: definitions differ from 2026.8.31
DEAD = "http://127.0.0.1:9"  # nothing listens: any registry fetch fails at once


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("pins-cache")


@pytest.fixture
def run(cli, cache, tmp_path):
    def go(*args: str, **env: str):
        full = {"MCPLOCK_CACHE_DIR": str(cache), "MEMORY_FILE_PATH": str(tmp_path / "memory.json"), **env}
        return cli(*args, env=full, timeout=600)

    return go


def npm_doc(name: str) -> dict:
    return httpx2.get(f"https://registry.npmjs.org/{name.replace('/', '%2f')}", timeout=30).json()


def pin_of(path: str = "mcp.lock", name: str = "memory") -> dict:
    import tomllib

    return tomllib.loads(Path(path).read_text())["server"][name]["package"]


def test_npm_pin_outdated_update_across_two_releases(run):
    r = run("add", "memory", "--yes", "--", "npx", "-y", f"{MEMORY}@{OLD}")
    assert r.returncode == 0, r.stderr
    doc = npm_doc(MEMORY)
    pin = pin_of()
    assert pin["registry"] == "npm" and pin["name"] == MEMORY and pin["version"] == OLD
    assert pin["integrity"] == doc["versions"][OLD]["dist"]["integrity"]  # the registry's own dist.integrity
    assert pin["tree-integrity"].startswith("sha256:")
    assert run("list").stdout.count(f"npm {MEMORY}@{OLD}") == 1

    r = run("outdated", "--format", "json")
    assert r.returncode == 1, r.stderr
    row = json.loads(r.stdout)["servers"][0]
    latest = doc["dist-tags"]["latest"]
    assert (row["status"], row["current"], row["latest"]) == ("behind", OLD, latest)

    r = run("update", "--format", "markdown")
    assert r.returncode == 0, r.stderr
    assert f"| `memory` | `{MEMORY}` | {OLD} | {latest} |" in r.stdout
    pin = pin_of()
    assert (pin["version"], pin["integrity"]) == (latest, doc["versions"][latest]["dist"]["integrity"])
    lock = Path("mcp.lock").read_text()
    assert "[server.memory.tool.read_graph.pending]" in lock  # the new release's definitions, staged
    assert run("check").returncode == 1  # pending review
    assert run("outdated").returncode == 0


def test_the_pinned_release_runs_whatever_the_command_names_and_replays_offline(run, cache):
    assert run("add", "memory", "--yes", "--", "npx", "-y", f"{MEMORY}@{OLD}").returncode == 0
    text = Path("mcp.lock").read_text()
    # the command now asks for the newest release (whose definitions differ): the pin still wins
    Path("mcp.lock").write_text(text.replace(f'"{MEMORY}@{OLD}"', f'"{MEMORY}"'))
    assert run("trust", "memory").returncode == 0  # an edited lock (as a pull brings it) runs once trusted here
    r = run("diff", "--format", "json")
    assert r.returncode == 0, r.stdout + r.stderr
    assert json.loads(r.stdout)["servers"][0]["status"] == "ok"

    # warm cache: no registry needed at all
    r = run("diff", MCPLOCK_NPM_REGISTRY=DEAD, npm_config_registry=DEAD)
    assert r.returncode == 0, r.stderr

    # the installed tree gone, its resolved lockfile kept: replayed with `npm ci`, offline
    entries = [
        p
        for p in (cache / "packages" / "npm").iterdir()
        if (p / ".mcplock.json").is_file() and json.loads((p / ".mcplock.json").read_text())["pin"]["version"] == OLD
    ]
    assert len(entries) == 1
    shutil.rmtree(entries[0])
    r = run("diff", MCPLOCK_NPM_REGISTRY=DEAD, npm_config_registry=DEAD)
    assert r.returncode == 0, r.stderr
    assert (entries[0] / ".mcplock.json").is_file()


def test_a_tampered_integrity_or_artefact_is_refused(run, cache):
    assert run("add", "memory", "--yes", "--", "npx", "-y", f"{MEMORY}@{OLD}").returncode == 0
    good = Path("mcp.lock").read_text()
    pinned = pin_of()["integrity"]
    forged = npm_doc(MEMORY)["versions"]["2026.8.31"]["dist"]["integrity"]
    Path("mcp.lock").write_text(good.replace(pinned, forged))
    assert run("trust", "memory").returncode == 0  # an edited lock (as a pull brings it) runs once trusted here
    r = run("diff")
    assert r.returncode == 2, r.stdout + r.stderr
    err = " ".join(r.stderr.split())
    assert forged in err and pinned in err and "nothing was started" in err
    assert "mcplock update memory" in err

    Path("mcp.lock").write_text(good)
    assert run("trust", "memory").returncode == 0  # an edited lock (as a pull brings it) runs once trusted here
    assert run("diff").returncode == 0
    entry = next(
        p
        for p in (cache / "packages" / "npm").iterdir()
        if (p / ".mcplock.json").is_file()
        and json.loads((p / ".mcplock.json").read_text())["pin"]["integrity"] == pinned
    )
    index = entry / "node_modules" / MEMORY / "dist" / "index.js"
    original = index.read_bytes()
    try:
        index.write_bytes(original + b"\n// injected\n")
        r = run("diff")
        assert r.returncode == 2, r.stdout + r.stderr
        assert "changed since they were installed and verified" in r.stderr
        assert "index.js" in r.stderr
    finally:
        index.write_bytes(original)
    assert run("diff").returncode == 0


def test_pypi_server_through_uvx(run):
    r = run("add", "time", "--yes", "--", "uvx", "mcp-server-time==2026.10.19", "--local-timezone", "UTC")
    assert r.returncode == 0, r.stderr
    pin = pin_of(name="time")
    doc = httpx2.get("https://pypi.org/pypi/mcp-server-time/json", timeout=30).json()
    files = sorted(f"sha256:{f['digests']['sha256']}" for f in doc["releases"]["2026.10.19"])
    assert pin["registry"] == "pypi" and pin["version"] == "2026.10.19"
    assert sorted(pin["integrity"] if isinstance(pin["integrity"], list) else [pin["integrity"]]) == files
    assert "get_current_time" in Path("mcp.lock").read_text()
    r = run("diff", MCPLOCK_PYPI_URL=DEAD, PIP_INDEX_URL=DEAD)
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize(
    ("argv", "env", "message", "code"),
    [
        # the registry answered that there is no such thing: an input error (a typo), never an outage
        (["npx", "-y", "@modelcontextprotocol/does-not-exist-mcplock"], {}, "npm has no package named", 2),
        (["npx", "-y", f"{MEMORY}@1999.1.1"], {}, "has no version 1999.1.1", 2),
        (["npx", "-y", MEMORY], {"MCPLOCK_NPM_REGISTRY": DEAD}, "cannot reach the registry", 3),
        (["uvx", "mcp-server-time==1999.1"], {}, "has no release 1999.1", 2),
        (["uvx", "mcplock-no-such-package-xyz"], {}, "PyPI has no package named", 2),
        (["docker", "run", "-i", "--rm", "mcp/time"], {}, "docker could not resolve the image mcp/time:latest", 3),
    ],
)
def test_resolution_errors_exit_2_or_3_and_leave_the_lock_untouched(run, argv, env, message, code):
    assert run("add", "local", "--yes", "--", "python3", "-c", "pass").returncode == 3  # no server: no lock
    Path("mcp.lock").write_text("# This file is @generated by mcplock. Do not edit it by hand.\nversion = 1\n")
    before = Path("mcp.lock").read_bytes()
    r = run("add", "x", "--yes", "--", *argv, **env)
    assert r.returncode == code, r.stdout + r.stderr
    assert message in " ".join(r.stderr.split())
    assert "Traceback" not in r.stderr
    assert Path("mcp.lock").read_bytes() == before


def test_imported_server_is_pinned_and_stays_in_sync_with_its_config(run):
    Path(".mcp.json").write_text(
        json.dumps({"mcpServers": {"memory": {"command": "npx", "args": ["-y", f"{MEMORY}@{OLD}"]}}})
    )
    r = run("add", "--from", ".mcp.json", "--yes")
    assert r.returncode == 0, r.stderr
    assert pin_of()["version"] == OLD
    assert run("check").returncode == 0  # the pin is not part of config-hash: the config still matches

    # a hand-written pin without tree-integrity still runs (its integrity checked); refresh completes it
    text = Path("mcp.lock").read_text()
    tree = pin_of()["tree-integrity"]
    Path("mcp.lock").write_text(text.replace(f'tree-integrity = "{tree}"\n', ""))
    assert "tree-integrity" not in pin_of()
    assert run("trust", "memory").returncode == 0  # an edited lock (as a pull brings it) runs once trusted here
    r = run("refresh")
    assert r.returncode == 0, r.stderr
    assert pin_of()["tree-integrity"] == tree


def test_refresh_follows_a_version_bumped_in_the_host_config(run):
    Path(".mcp.json").write_text(
        json.dumps({"mcpServers": {"memory": {"command": "npx", "args": ["-y", f"{MEMORY}@{OLD}"]}}})
    )
    assert run("add", "--from", ".mcp.json", "--yes").returncode == 0
    new = "2026.8.31"
    Path(".mcp.json").write_text(
        json.dumps({"mcpServers": {"memory": {"command": "npx", "args": ["-y", f"{MEMORY}@{new}"]}}})
    )
    assert run("check").returncode == 1  # config-changed
    assert run("trust", "memory").returncode == 0  # an edited lock (as a pull brings it) runs once trusted here
    r = run("refresh")
    assert r.returncode == 0, r.stderr
    assert f"re-pinned memory to {MEMORY}@{new}" in r.stderr
    assert pin_of()["version"] == new
    assert "[server.memory.tool.read_graph.pending]" in Path("mcp.lock").read_text()


def test_call_runs_the_pinned_artefact_and_refuses_a_forged_pin(run):
    assert run("add", "memory", "--yes", "--", "npx", "-y", f"{MEMORY}@{OLD}").returncode == 0
    assert run("approval", "memory/read_graph", "never").returncode == 0
    r = run("call", "memory/read_graph", "--args", "{}")
    assert r.returncode == 0, r.stdout + r.stderr
    good = Path("mcp.lock").read_text()
    pinned = pin_of()["integrity"]
    forged = "sha512-X" + pinned[len("sha512-") + 1 :]
    Path("mcp.lock").write_text(good.replace(pinned, forged))
    assert run("trust", "memory").returncode == 0  # an edited lock (as a pull brings it) runs once trusted here
    r = run("call", "memory/read_graph", "--args", "{}")
    assert r.returncode == 2, r.stdout + r.stderr
    assert forged in " ".join(r.stderr.split()) and "nothing was started" in r.stderr
