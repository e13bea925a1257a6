"""Benchmarks never touch the user's own mcplock state (trust records, tokens, caches): every
mcplock they start sees XDG directories under one temporary directory, removed at exit."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile


def isolate() -> None:
    if os.environ.get("MCPLOCK_BENCH_HOME"):  # already done (a bench run by bench/run.py)
        return
    home = tempfile.mkdtemp(prefix="mcplock-bench-home-")
    atexit.register(shutil.rmtree, home, True)
    os.environ["MCPLOCK_BENCH_HOME"] = home
    for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
        os.environ[var] = os.path.join(home, var.lower())
