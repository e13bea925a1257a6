"""The set-up every `update-pr` test shares (a pytest plugin, loaded by tests/conftest.py): a real
bare ``origin`` (git), the local PyPI index (fixtures/pypi_index.py) serving pin-demo 1.0 — the
fixture MCP server — and its dependency, the GitHub API stand-in (fixtures/github_api.py) that
reads ``origin``, and a project whose lock pins demo at 1.0, committed on main and pushed."""

from __future__ import annotations

import os
import subprocess
import tomllib
from pathlib import Path

import pytest
from github_api import GitHubApi
from pypi_index import DEP_1_0, PypiIndex, wheel
from setupcache import locked

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
SURFACES = FIXTURES / "surfaces"
BRANCH = "mcplock/update-demo"
TOKEN = "ghs_fixturetoken1234"


def git(*args: str, cwd: str | Path = ".", check: bool = True) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "T",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "T",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    r = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, env=env)
    if check:
        assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def server_wheel(version: str, surface: Path, claims: str = "") -> tuple[str, str, bytes]:
    """pin-demo VERSION: the fixture MCP server serving ``surface`` (its dependency imported first)."""
    fixture = FIXTURES / "mcp_fixture.py"
    src = f"""import runpy, sys
import pin_dep

def main():
    sys.argv = [{str(fixture)!r}, "stdio", "--surface", {str(surface)!r}]
    sys.path.insert(0, {str(fixture.parent)!r})
    runpy.run_path({str(fixture)!r}, run_name="__main__")
"""
    return wheel(
        "pin-demo",
        version,
        requires=("pin-dep>=1",),
        modules={"pin_demo": src},
        scripts={"pin-demo": "pin_demo:main"},
        description=f"mcp-name: {claims}" if claims else "",
    )


def pin_on(origin: Path, ref: str, server: str = "demo") -> dict:
    return tomllib.loads(git("show", f"{ref}:mcp.lock", cwd=origin))["server"][server]["package"]


def push_lock(origin: Path | str, *paths: str, message: str = "lock the servers") -> None:
    """Commit ``paths`` on main (the repository made, with ``origin``, on first use) and push."""
    if not Path(".git").exists():
        git("init", "--quiet", "-b", "main")
        git("remote", "add", "origin", str(origin))
    git("add", *paths)
    git("commit", "--quiet", "-m", message)
    git("push", "--quiet", "origin", "main")


# the settings that point at a test's own copy of the same thing: its local index (a new port each
# time, the same releases published) and an empty cache directory
PER_TEST = ("MCPLOCK_PYPI_URL", "MCPLOCK_CACHE_DIR")
_indexes: dict[str, PypiIndex] = {}  # URL → the `index` fixture's index serving there


def add_demo(cli, env: dict[str, str], name: str = "demo") -> None:  # type: ignore[no-untyped-def]
    """`mcplock add NAME -- uvx pin-demo==1.0` (asserted to exit 0): for real the first time this
    process runs it on the same releases of the index; after that the lock and trust it made
    (tests/setupcache.py) — the subject of these tests is what comes after the add."""
    releases = _indexes[env["MCPLOCK_PYPI_URL"]].projects
    add = ("add", name, "--yes", "--", "uvx", "pin-demo==1.0")
    locked(add, inputs=(), env=env, alike=PER_TEST, salt=releases, timeout=300)


@pytest.fixture
def index():
    with PypiIndex() as ix:
        ix.publish(*DEP_1_0, uploaded="2025-01-10T08:00:00.000000Z")
        ix.publish(*server_wheel("1.0", SURFACES / "demo.json"), uploaded="2025-02-01T12:00:00.000000Z")
        _indexes[ix.url] = ix
        try:
            yield ix
        finally:
            del _indexes[ix.url]


@pytest.fixture
def origin(tmp_path) -> Path:
    bare = tmp_path / "origin.git"
    git("init", "--quiet", "--bare", "-b", "main", str(bare), cwd=tmp_path)
    return bare


@pytest.fixture
def api(origin):
    with GitHubApi("octo-org/app", token=TOKEN, origin=str(origin)) as gh:
        yield gh


@pytest.fixture
def project(cli, index, origin, tmp_path):
    """The work tree (the test's cwd): demo pinned at pin-demo 1.0, committed on main and pushed."""
    env = {"MCPLOCK_PYPI_URL": index.url, "MCPLOCK_CACHE_DIR": str(tmp_path / "cache")}
    add_demo(cli, env)
    push_lock(origin, "mcp.lock")
    return env
