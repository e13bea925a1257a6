"""Trying `update-pr` without GitHub (issue 44, item 5; docs/updates.md, "Trying it locally"):
`--dry-run` shows each branch, title and body with no GitHub settings at all, and `--push-only`
pushes the branches to a local bare `origin` — commit, trailers, lease — opening nothing; a second
run leaves the branch that holds the newest release alone. Through the console script, the local
PyPI index."""

from __future__ import annotations

import json

import pytest
from pypi_index import DEP_1_0, PypiIndex
from update_pr_setup import BRANCH, SURFACES, git, pin_on, server_wheel

pytestmark = pytest.mark.timeout(300)


def test_dry_run_and_push_only_need_no_github(cli, tmp_path):
    no_github = {k: "" for k in ("GITHUB_TOKEN", "MCPLOCK_GITHUB_TOKEN", "GITHUB_REPOSITORY", "GITHUB_API_URL")}
    with PypiIndex() as index:
        index.publish(*DEP_1_0, uploaded="2025-01-10T08:00:00.000000Z")
        index.publish(*server_wheel("1.0", SURFACES / "demo.json"), uploaded="2025-02-01T12:00:00.000000Z")
        env = {"MCPLOCK_PYPI_URL": index.url, "MCPLOCK_CACHE_DIR": str(tmp_path / "cache"), **no_github}
        assert cli("add", "demo", "--yes", "--", "uvx", "pin-demo==1.0", env=env).returncode == 0
        origin = tmp_path / "try.git"
        git("init", "--quiet", "--bare", "-b", "main", str(origin), cwd=tmp_path)
        git("init", "--quiet", "-b", "main")
        git("remote", "add", "origin", str(origin))
        git("add", "mcp.lock")
        git("commit", "--quiet", "-m", "lock")
        git("push", "--quiet", "origin", "main")
        index.publish(*server_wheel("2.0", SURFACES / "demo-rugpull.json"), uploaded="2025-03-01T12:00:00.000000Z")

        r = cli("update-pr", "--dry-run", env=env, timeout=300)
        assert r.returncode == 1, r.stdout + r.stderr
        assert f"would open a pull request from {BRANCH}: mcplock: update demo (pin-demo 1.0 → 2.0)" in r.stdout
        assert f"--- body of {BRANCH} ---" in r.stdout and "| `demo` | pypi `pin-demo` | 1.0 | 2.0 |" in r.stdout
        r = cli("update-pr", "--dry-run", "--format", "json", env=env, timeout=300)
        [pr] = json.loads(r.stdout)["pull_requests"]
        assert (pr["branch"], pr["action"]) == (BRANCH, "would-open") and pr["body"].startswith("## mcplock: update")
        assert git("branch", "--list", "mcplock/*", cwd=origin) == ""  # a dry run pushes nothing

        r = cli("update-pr", "--push-only", env=env, timeout=300)
        assert r.returncode == 0, r.stdout + r.stderr
        assert f"pushed {BRANCH} (no pull request: --push-only): pin-demo 1.0 → 2.0" in r.stdout
        assert pin_on(origin, BRANCH)["version"] == "2.0"
        message = git("log", "-1", "--format=%B", BRANCH, cwd=origin)
        assert "Mcplock-Update: demo@2.0" in message and "Mcplock-Tree: " in message
        tip = git("rev-parse", BRANCH, cwd=origin)
        r = cli("update-pr", "--push-only", env=env, timeout=300)
        assert r.returncode == 0 and "already proposes the newest release" in r.stdout, r.stdout + r.stderr
        assert git("rev-parse", BRANCH, cwd=origin) == tip
