"""The guard's cost, side by side in one run: the same client talks to the fixture server
directly and through `mcplock run`.

- per-call overhead: p50 of sequential `tools/call` round trips, guarded minus direct;
- first `tools/list`: from spawning to the first `tools/list` answer, guarded minus direct
  (what the guard adds beyond the upstream's own start: its own start-up and verification);
- peak RSS of the guard process alone (VmHWM from /proc);
- the first `tools/list` again with the server in a 2,000-tool lock: its part remembered
  (mcplock/lock/one.py), and read whole every time.

    python bench/guard_bench.py          # or: make bench (all benchmarks)
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _home import locked_fixture

CALLS = 1000
STARTS = 7

INIT = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}


class Client:
    def __init__(self, cmd: list[str], cwd: str, env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen(
            cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=cwd, env=env
        )
        self.next_id = 0

    def request(self, method: str, params: dict | None = None) -> dict:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": self.next_id, "method": method, **({"params": params} if params else {})}
        self.proc.stdin.write(json.dumps(msg).encode() + b"\n")
        self.proc.stdin.flush()
        while True:
            resp = json.loads(self.proc.stdout.readline())
            if resp.get("id") == self.next_id:
                return resp

    def start(self) -> None:
        self.request("initialize", INIT)
        assert self.proc.stdin is not None
        self.proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        self.proc.stdin.flush()

    def peak_rss_mib(self) -> float:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
        return 0.0

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def _call_p50(cmd: list[str], cwd: str) -> tuple[float, float]:
    c = Client(cmd, cwd)
    try:
        c.start()
        args = {"name": "search_docs", "arguments": {"query": "install"}}
        for _ in range(50):  # warm up (jsonschema import, caches)
            c.request("tools/call", args)
        times = []
        for _ in range(CALLS):
            t0 = time.perf_counter()
            c.request("tools/call", args)
            times.append(time.perf_counter() - t0)
        return statistics.median(times), c.peak_rss_mib()
    finally:
        c.close()


def _first_list(cmd: list[str], cwd: str, env: dict[str, str] | None = None) -> float:
    times = []
    for _ in range(STARTS):
        t0 = time.perf_counter()
        c = Client(cmd, cwd, env)
        try:
            c.start()
            c.request("tools/list")
            times.append(time.perf_counter() - t0)
        finally:
            c.close()
    return statistics.median(times)


def guard_rows(mcplock: str) -> list[tuple[str, str, str, str]]:
    work = tempfile.mkdtemp(prefix="mcplock-guard-bench-")
    try:
        upstream = locked_fixture(mcplock, work)
        guarded = [mcplock, "run", "docs"]
        direct_p50, _ = _call_p50(upstream, work)
        guard_p50, guard_rss = _call_p50(guarded, work)
        direct_first = _first_list(upstream, work)
        guard_first = _first_list(guarded, work)
        big = _big_project(mcplock, Path(work))
        big_first = _first_list(guarded, big)  # the first start reads the lock whole, the others its entry
        whole_first = _first_list(guarded, big, {**os.environ, "MCPLOCK_LOCK_CACHE": "0"})
    finally:
        shutil.rmtree(work, ignore_errors=True)
    over = (guard_p50 - direct_p50) * 1000
    beyond = (guard_first - direct_first) * 1000
    return [
        (
            f"`tools/call` round trip, direct to the fixture server (p50 of {CALLS})",
            f"{direct_p50 * 1000:.3f} ms",
            "",
            "baseline",
        ),
        (
            "the same through `mcplock run` (policy check, local jsonschema validation, relay)",
            f"{guard_p50 * 1000:.3f} ms",
            f"{guard_rss:.0f} MiB",
            f"+{over:.3f} ms per call (target ≤ 0.10 ms)",
        ),
        ("spawn → first `tools/list` answer, direct", f"{direct_first * 1000:.0f} ms", "", "baseline"),
        (
            "spawn → first `tools/list` answer through `mcplock run` (start-up + verification of every list)",
            f"{guard_first * 1000:.0f} ms",
            "",
            f"+{beyond:.0f} ms (target ≤ 100 ms)",
        ),
        (
            "the same, the server locked beside 4 others with 2,000 tools in all (1.8 MB): its part of the lock "
            "remembered",
            f"{big_first * 1000:.0f} ms",
            "",
            f"+{(big_first - direct_first) * 1000:.0f} ms",
        ),
        (
            "the same, the lock read whole every time (`MCPLOCK_LOCK_CACHE=0`)",
            f"{whole_first * 1000:.0f} ms",
            "",
            f"+{(whole_first - direct_first) * 1000:.0f} ms",
        ),
    ]


def _big_project(mcplock: str, work: Path) -> str:
    """``work``'s lock with 4 more servers (2,000 tools) beside it, in a project of its own (trusted)."""
    from mcplock.lock import store
    from mcplock.lock.read import load

    from run import make_big_lock

    big = work / "big"
    make_big_lock(big / "others.lock")
    lock = load(work / "mcp.lock")
    lock.servers.update(load(big / "others.lock").servers)
    store.save(lock, str(big / "mcp.lock"))
    shutil.copy(work / "surface.json", big / "surface.json")
    subprocess.run([mcplock, "trust", "docs"], cwd=big, capture_output=True, check=True)
    return str(big)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from _home import as_installed, isolate

    isolate()
    as_installed()  # an installed mcplock has its .pyc files (docs/performance.md)
    bin_dir = Path(sys.executable).parent
    rows = guard_rows(os.environ.get("MCPLOCK", str(bin_dir / "mcplock")))
    print("| what | time | peak RSS | overhead |\n|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
