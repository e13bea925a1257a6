"""Issue 42.3: a command run in a subdirectory of a repository finds `mcp.lock` upward, up to the
repository root, as git, uv and pnpm find theirs; it says which file it uses, and never suggests
creating a lock when one exists above."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from conftest import MCPLOCK
from runner import stdio_command


def _in(where: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([MCPLOCK, *args], capture_output=True, text=True, cwd=where, timeout=120)


def test_a_subdirectory_uses_the_lock_above_it_and_says_so(cli):
    subprocess.run(["git", "init", "-q"], check=True)
    assert cli("add", "docs", "--yes", "--", *stdio_command()).returncode == 0
    deep = Path("src/pkg")
    deep.mkdir(parents=True)

    r = _in(deep, "check")  # the pre-commit hook's fast path: its answer names the file
    assert r.returncode == 0, r.stdout + r.stderr
    assert "ok: ../../mcp.lock:" in r.stdout
    r = _in(deep, "list")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "using ../../mcp.lock: the nearest mcp.lock above" in r.stderr
    assert "create one" not in r.stdout + r.stderr
    r = _in(deep, "disable", "docs")  # a command that writes changes the lock above
    assert r.returncode == 0, r.stdout + r.stderr
    assert not (deep / "mcp.lock").exists()
    assert "enabled = false" in Path("mcp.lock").read_text()
    # -q: no note; a lock named outright is the one used
    assert _in(deep, "-q", "list").stderr == ""
    assert _in(deep, "--lockfile", "mcp.lock", "list").returncode == 2


def test_outside_a_repository_only_the_current_directory_counts(cli, tmp_path):
    assert cli("add", "docs", "--yes", "--", *stdio_command()).returncode == 0
    sub = Path("sub")
    sub.mkdir()
    assert not any((p / ".git").exists() for p in [Path.cwd(), *Path.cwd().parents])
    r = _in(sub, "list")
    assert r.returncode == 2 and "no lock file here" in r.stderr
    env = dict(os.environ, MCPLOCK_LOCKFILE="../mcp.lock")  # the variable names one outright
    assert subprocess.run([MCPLOCK, "list"], capture_output=True, text=True, cwd=sub, env=env).returncode == 0
