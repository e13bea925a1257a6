"""Benchmarks never touch the user's own mcplock state (trust records, tokens, caches): every
mcplock they start sees XDG directories under one temporary directory, removed at exit. And the
project a guard benchmark runs in: a fixture server over the demo surface, locked as `docs`."""

from __future__ import annotations

import atexit
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def isolate() -> None:
    if os.environ.get("MCPLOCK_BENCH_HOME"):  # already done (a bench run by bench/run.py)
        return
    home = tempfile.mkdtemp(prefix="mcplock-bench-home-")
    atexit.register(shutil.rmtree, home, True)
    os.environ["MCPLOCK_BENCH_HOME"] = home
    for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
        os.environ[var] = os.path.join(home, var.lower())


def as_installed() -> None:
    """Start mcplock (and the fixture servers) with their bytecode, as an installed mcplock has it.
    Where ``PYTHONDONTWRITEBYTECODE`` is set (this project's machines set it) nothing writes the
    ``.pyc`` files, and every start would compile every mcplock module it imports (110 of the
    260 ms of CPU a guard's start took on 2026-12-02, under load): compiled here, and written by
    the processes the benchmarks start from now on."""
    import compileall

    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    for tree in ("mcplock", "fixtures"):
        compileall.compile_dir(ROOT / tree, quiet=1, rx=re.compile("node_modules"))


def locked_fixture(mcplock: str, work: str | Path, fixture: str = "mcp_fixture.py") -> list[str]:
    """Lock ``fixtures/FIXTURE`` (stdio, the demo surface) as `docs` in ``work``; its command line."""
    shutil.copy(ROOT / "fixtures" / "surfaces" / "demo.json", Path(work) / "surface.json")
    upstream = [sys.executable, str(ROOT / "fixtures" / fixture), "stdio", "--surface", "surface.json"]
    r = subprocess.run(
        [mcplock, "add", "docs", "--yes", "--policy", "none", "--", *upstream], cwd=work, capture_output=True, text=True
    )
    if r.returncode != 0:
        raise SystemExit(f"could not lock fixtures/{fixture}: {r.stderr}")
    return upstream
