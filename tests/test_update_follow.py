"""The command line follows the pin (issue 44, item 2): after `update` (and `update-pr`, whose
branches are made by the same move), every word of the locked launch that named the old release
names the new one, and `refresh` afterwards keeps the new pin (it used to read the old version
left on the command line as a bump back). Through the console script, a local PyPI index."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from pypi_index import DEP_1_0, PypiIndex
from update_pr_setup import SURFACES, server_wheel

pytestmark = pytest.mark.timeout(300)


def locked(server: str = "demo") -> dict:
    return tomllib.loads(Path("mcp.lock").read_text())["server"][server]


def test_the_command_line_names_the_new_release_after_update(cli, tmp_path):
    with PypiIndex() as index:
        index.publish(*DEP_1_0, uploaded="2025-01-10T08:00:00.000000Z")
        index.publish(*server_wheel("1.0", SURFACES / "demo.json"), uploaded="2025-02-01T12:00:00.000000Z")
        env = {"MCPLOCK_PYPI_URL": index.url, "MCPLOCK_CACHE_DIR": str(tmp_path / "cache")}
        for name, argv in (("demo", ["pin-demo==1.0"]), ("from", ["--from", "pin-demo==1.0", "pin-demo"])):
            r = cli("add", name, "--yes", "--", "uvx", *argv, env=env, timeout=300)
            assert r.returncode == 0, r.stdout + r.stderr
        index.publish(*server_wheel("2.0", SURFACES / "demo.json"), uploaded="2025-03-01T12:00:00.000000Z")
        r = cli("update", env=env, timeout=300)
        assert r.returncode == 0, r.stdout + r.stderr
        assert locked()["package"]["version"] == "2.0" and locked()["args"] == ["pin-demo==2.0"]
        assert locked("from")["args"] == ["--from", "pin-demo==2.0", "pin-demo"]
        # refresh reads the command: it names the pinned release, so the pin stays
        r = cli("refresh", env=env, timeout=300)
        assert r.returncode == 0, r.stdout + r.stderr
        assert "re-pinned" not in r.stderr and locked()["package"]["version"] == "2.0"
        assert cli("check", env=env).returncode == 0
