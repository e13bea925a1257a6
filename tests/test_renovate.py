"""Renovate carries mcplock's updates (issue 44, item 4; docs/updates.md, "Renovate"): the preset
renovate/mcplock.json, run by the real Renovate CLI (tests/renovate, installed by `make setup`) in
its local-platform dry run over a fixture repository, finds each package pin in mcp.lock — the
server's name and its npm or PyPI package — and proposes the real newest release the registries
give (npm and PyPI are reachable; deselect with -m "not network"). And the preset's
postUpgradeTasks command, run on a lock as Renovate's replacement leaves it, re-pins, moves the
command line and stages the new release for review (local PyPI index)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import tomllib
from pathlib import Path

import httpx2
import pytest
from pypi_index import DEP_1_0, PypiIndex
from update_pr_setup import SURFACES, git, server_wheel

pytestmark = pytest.mark.timeout(300)
ROOT = Path(__file__).resolve().parent.parent
PRESET = json.loads((ROOT / "renovate" / "mcplock.json").read_text())
RENOVATE = ROOT / "tests" / "renovate" / "node_modules" / ".bin" / "renovate"

LOCK = """version = 1

[server.memory]
transport = "stdio"
command = "npx"
args = ["-y", "@modelcontextprotocol/server-memory@2025.4.25"]

[server.memory.package]
registry = "npm"
name = "@modelcontextprotocol/server-memory"
version = "2025.4.25"
integrity = "sha512-AAAA"

[server.fetch]
transport = "stdio"
command = "uvx"
args = ["mcp-server-fetch==2025.1.17"]

[server.fetch.package]
registry = "pypi"
name = "mcp-server-fetch"
version = "2025.1.17"
integrity = "sha256:aaaa"
"""


@pytest.mark.network
def test_renovate_finds_the_pins_and_proposes_the_real_newest_release(tmp_path):
    if not RENOVATE.exists():
        pytest.fail("the Renovate CLI is not installed: run `make setup` (tests/renovate)")
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "mcp.lock").write_text(LOCK)
    (repo / "renovate.json").write_text(json.dumps(PRESET))
    git("init", "--quiet", "-b", "main", cwd=repo)
    git("add", "-A", cwd=repo)
    git("commit", "--quiet", "-m", "lock", cwd=repo)
    env = {
        **os.environ,
        "LOG_LEVEL": "debug",
        "LOG_FORMAT": "json",
        "RENOVATE_PLATFORM": "local",
        "RENOVATE_DRY_RUN": "lookup",
        "RENOVATE_ONBOARDING": "false",
        "RENOVATE_REQUIRE_CONFIG": "optional",
        "RENOVATE_CACHE_DIR": str(tmp_path / "cache"),
        "RENOVATE_BASE_DIR": str(tmp_path / "base"),
    }
    r = subprocess.run([str(RENOVATE)], cwd=repo, env=env, capture_output=True, text=True, timeout=280)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    found = {}
    for line in r.stdout.splitlines():
        doc = json.loads(line) if line.startswith("{") else {}
        if doc.get("msg") == "packageFiles with updates":
            for files in doc["config"].values():
                for f in files:
                    found.update({d["depName"]: d for d in f["deps"]})
    assert set(found) == {"memory", "fetch"}, r.stdout[-3000:]
    npm = httpx2.get("https://registry.npmjs.org/@modelcontextprotocol%2fserver-memory", timeout=30).json()
    pypi = httpx2.get("https://pypi.org/pypi/mcp-server-fetch/json", timeout=30).json()
    for server, package, current, newest in (
        ("memory", "@modelcontextprotocol/server-memory", "2025.4.25", npm["dist-tags"]["latest"]),
        ("fetch", "mcp-server-fetch", "2025.1.17", pypi["info"]["version"]),
    ):
        dep = found[server]
        assert (dep["packageName"], dep["currentValue"]) == (package, current)
        assert [u["newVersion"] for u in dep["updates"]] == [newest], dep["updates"]  # one proposal: the newest


def _python_regex(js: str) -> str:
    return js.replace("(?<", "(?P<")


def test_the_post_upgrade_command_repins_and_stages_what_renovate_moved(cli, tmp_path):
    """What Renovate's replacement leaves (the version line of [server.NAME.package]), then the
    preset's own postUpgradeTasks command: the pin verified afresh, the command line moved, the new
    definitions pending review."""
    [npm, pypi] = PRESET["customManagers"]
    [rule] = PRESET["packageRules"]
    [command] = rule["postUpgradeTasks"]["commands"]
    with PypiIndex() as index:
        index.publish(*DEP_1_0, uploaded="2025-01-10T08:00:00.000000Z")
        index.publish(*server_wheel("1.0", SURFACES / "demo.json"), uploaded="2025-02-01T12:00:00.000000Z")
        env = {"MCPLOCK_PYPI_URL": index.url, "MCPLOCK_CACHE_DIR": str(tmp_path / "cache"), "CI": "true"}
        assert cli("add", "demo", "--yes", "--", "uvx", "pin-demo==1.0", env=env).returncode == 0
        sha = index.publish(
            *server_wheel("2.0", SURFACES / "demo-rugpull.json"), uploaded="2025-03-01T12:00:00.000000Z"
        )

        text = Path("mcp.lock").read_text()
        [m] = list(re.finditer(_python_regex(pypi["matchStrings"][0]), text))
        assert (m["depName"], m["packageName"], m["currentValue"]) == ("demo", "pin-demo", "1.0")
        assert not re.search(_python_regex(npm["matchStrings"][0]), text)
        start, end = m.span("currentValue")
        Path("mcp.lock").write_text(text[:start] + "2.0" + text[end:])  # Renovate's edit

        argv = command.replace("{{{depName}}}", m["depName"]).split()
        assert argv[0] == "mcplock"
        r = cli(*argv[1:], env=env, timeout=300)
        assert r.returncode == 0, r.stdout + r.stderr
        demo = tomllib.loads(Path("mcp.lock").read_text())["server"]["demo"]
        assert demo["package"]["version"] == "2.0" and demo["package"]["integrity"] == sha
        assert demo["args"] == ["pin-demo==2.0"]
        assert demo["tool"]["search_docs"]["pending"]["change"] == "changed"
