"""The benchmarks are not timed here, but what they build is code like any other: the big lock of
bench/run.py goes through the lock model and writer, and a change to the model must not leave
`make bench` broken unseen (removing ServerEntry's connection keywords once did)."""

from __future__ import annotations

import sys
from pathlib import Path

from mcplock.lock.read import load

from conftest import ROOT


def test_the_benchmarks_big_lock_is_built_and_reads_back(tmp_path: Path) -> None:
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        from run import make_big_lock
    finally:
        sys.path.remove(str(ROOT / "bench"))
    make_big_lock(tmp_path / "mcp.lock", n_tools=20, n_servers=2)
    lock = load(str(tmp_path / "mcp.lock"))
    assert sorted(lock.servers) == ["server-0", "server-1"]
    assert lock.servers["server-0"].spec.args == ("-m", "srv0")
    assert sum(len(s.tools) for s in lock.servers.values()) == 20
