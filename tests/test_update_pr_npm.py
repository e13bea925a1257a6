"""`mcplock update-pr` with a real npm package: the reference server-memory pinned at an older
release (whose definitions differ from the latest's) moves to the registry's latest on a branch
pushed to a bare `origin`, and the local GitHub API stand-in gets one pull request whose body
links the release on npmjs.com; a second run opens nothing. Reaches the real npm registry, as
tests/test_pins.py does (deselect with `-m "not network"`)."""

from __future__ import annotations

import tomllib

import httpx2
import pytest
from github_api import GitHubApi
from update_pr_setup import git

pytestmark = [pytest.mark.network, pytest.mark.timeout(600)]

MEMORY = "@modelcontextprotocol/server-memory"
OLD = "2025.4.25"  # definitions differ from the latest release's (tests/data/releases/)
BRANCH = "mcplock/update-memory"


def test_a_real_npm_server_moved_to_its_latest_release_in_one_pull_request(cli, tmp_path):
    env = {"MCPLOCK_CACHE_DIR": str(tmp_path / "cache"), "MEMORY_FILE_PATH": str(tmp_path / "memory.json")}
    r = cli("add", "memory", "--yes", "--", "npx", "-y", f"{MEMORY}@{OLD}", env=env, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    latest = httpx2.get(f"https://registry.npmjs.org/{MEMORY.replace('/', '%2f')}", timeout=30).json()["dist-tags"][
        "latest"
    ]
    origin = tmp_path / "origin.git"
    git("init", "--quiet", "--bare", "-b", "main", str(origin), cwd=tmp_path)
    git("init", "--quiet", "-b", "main")
    git("remote", "add", "origin", str(origin))
    git("add", "mcp.lock")
    git("commit", "--quiet", "-m", "lock memory")
    git("push", "--quiet", "origin", "main")

    with GitHubApi("octo-org/app", origin=str(origin)) as api:
        full = {**env, **api.env(), "CI": "true"}  # as in a scheduled workflow: the lock is the reviewed artefact
        r = cli("update-pr", env=full, timeout=600)
        assert r.returncode == 0, r.stdout + r.stderr
        assert "opened #1" in r.stdout
        entry = tomllib.loads(git("show", f"{BRANCH}:mcp.lock", cwd=origin))["server"]["memory"]
        pin = entry["package"]
        assert (pin["registry"], pin["name"], pin["version"]) == ("npm", MEMORY, latest)
        assert entry["args"] == ["-y", f"{MEMORY}@{latest}"]  # the command line follows the pin
        [pr] = api.pulls
        assert (pr["head"], pr["base"]) == (BRANCH, "main")
        assert pr["title"] == f"mcplock: update memory ({MEMORY} {OLD} → {latest})"
        link = f"https://www.npmjs.com/package/{MEMORY}/v/{latest}"
        assert f"| {OLD} | [{latest}]({link}) |" in pr["body"]
        assert "pending review" in pr["body"] and "mcplock accept memory" in pr["body"]
        assert "`memory/read_graph`" in pr["body"]  # a tool whose definition the new release changed

        r = cli("update-pr", env=full, timeout=600)
        assert r.returncode == 0, r.stdout + r.stderr
        assert "nothing to do" in r.stdout and len(api.pulls) == 1 and len(api.calls("POST")) == 1
    assert git("rev-parse", "main", cwd=origin) == git("rev-parse", "HEAD")
