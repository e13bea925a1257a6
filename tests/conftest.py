"""Shared test set-up: every test runs in its own directory with a clean environment
and a home directory that must not be touched."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
if str(FIXTURES) not in sys.path:
    sys.path.insert(0, str(FIXTURES))

BIN = Path(sys.executable).parent
MCPLOCK = str(BIN / "mcplock")


@pytest.fixture(autouse=True)
def _isolate(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    os.chmod(home, 0o500)  # any write to the home directory fails loudly
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    monkeypatch.delenv("MCPLOCK_LOCKFILE", raising=False)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "200")
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    yield
    os.chmod(home, 0o700)


def run_cli(*args: str, input: str | None = None, env: dict[str, str] | None = None, cwd: str | None = None,
            timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run the installed console script for real (a fresh process, real exit code)."""
    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    return subprocess.run(
        [MCPLOCK, *args], input=input, capture_output=True, text=True, env=full_env, cwd=cwd, timeout=timeout
    )


@pytest.fixture
def cli():
    return run_cli
