"""A modern host's connect time (MCP 2026-07-28), through `mcplock run` and directly, side by side
in one run, against the modern-only fixture server (fixtures/modern_fixture.py):

- spawn → `server/discover` answered (a modern host's connect: the guard answers it from the
  lock before it imports asyncio), then → first `tools/list` answered (the envelope on each, the
  guard's every list verified), with a bare newline-JSON client: what the guard adds to a modern
  host's start;
- the current Python SDK's `Client` (mode auto: discover first), from entering it to the first
  `list_tools()` answer (the SDK already imported): what a host on the SDK sees.

    python bench/eras_bench.py          # or: make bench (all benchmarks)
"""

from __future__ import annotations

import asyncio
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

STARTS = 7
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
}


INIT = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}


def _bare_connect(cmd: list[str], cwd: str, legacy: bool = False) -> float:
    return _bare_times(cmd, cwd, legacy)[1]


def _bare_opened(cmd: list[str], cwd: str) -> float:
    return _bare_times(cmd, cwd)[0]


def _bare_times(cmd: list[str], cwd: str, legacy: bool = False) -> tuple[float, float]:
    """(spawn → the opening answered, spawn → the first tools/list answered)."""
    marks: list[float] = []
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=cwd)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        opening = "initialize" if legacy else "server/discover"
        for rid, method in ((1, opening), (2, "tools/list")):
            params = (INIT if rid == 1 else {}) if legacy else {"_meta": ENVELOPE}
            msg = {"jsonrpc": "2.0", "id": rid, "method": method, "params": params}
            proc.stdin.write(json.dumps(msg).encode() + b"\n")
            proc.stdin.flush()
            while json.loads(proc.stdout.readline()).get("id") != rid:
                pass
            marks.append(time.perf_counter() - t0)
        return marks[0], marks[1]
    finally:
        proc.stdin.close()
        proc.wait(timeout=10)


async def _sdk_connect(cmd: list[str], cwd: str) -> float:
    from mcp.client import Client
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(command=cmd[0], args=cmd[1:], cwd=cwd, env=dict(os.environ))
    t0 = time.perf_counter()
    async with Client(params) as client:
        await client.list_tools()
        return time.perf_counter() - t0


def _median(f, *args) -> float:
    return statistics.median(f(*args) for _ in range(STARTS))


def eras_rows(mcplock: str) -> list[tuple[str, str, str, str]]:
    work = tempfile.mkdtemp(prefix="mcplock-eras-bench-")
    try:
        upstream = locked_fixture(mcplock, work, "modern_fixture.py")
        guarded = [mcplock, "run", "docs"]
        opened_direct = _median(_bare_opened, upstream, work)
        opened_through = _median(_bare_opened, guarded, work)
        direct = _median(_bare_connect, upstream, work)
        through = _median(_bare_connect, guarded, work)
        old = Path(work) / "legacy"  # the same surface behind the legacy fixture, a legacy host
        old.mkdir()
        legacy = locked_fixture(mcplock, old)
        legacy_direct = _median(_bare_connect, legacy, str(old), True)
        legacy_through = _median(_bare_connect, guarded, str(old), True)
        import mcp.client  # noqa: F401 - imported once, before the clock runs

        sdk_direct = _median(lambda: asyncio.run(_sdk_connect(upstream, work)))
        sdk_through = _median(lambda: asyncio.run(_sdk_connect(guarded, work)))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return [
        (
            "modern host (2026-07-28): spawn → `server/discover` answered (its connect), "
            "direct to a modern-only server",
            f"{opened_direct * 1000:.0f} ms",
            "",
            "baseline",
        ),
        (
            "the same through `mcplock run` (answered from the lock before asyncio is imported)",
            f"{opened_through * 1000:.0f} ms",
            "",
            f"{(opened_through - opened_direct) * 1000:+.0f} ms",
        ),
        (
            "modern host (2026-07-28): spawn → `server/discover` → first `tools/list`, direct to a modern-only server",
            f"{direct * 1000:.0f} ms",
            "",
            "baseline",
        ),
        (
            "the same through `mcplock run` (discover answered from the lock, every list verified)",
            f"{through * 1000:.0f} ms",
            "",
            f"+{(through - direct) * 1000:.0f} ms",
        ),
        (
            "legacy host, the same run: spawn → `initialize` → first `tools/list`, direct to the legacy fixture",
            f"{legacy_direct * 1000:.0f} ms",
            "",
            "baseline",
        ),
        (
            "the same through `mcplock run`",
            f"{legacy_through * 1000:.0f} ms",
            "",
            f"+{(legacy_through - legacy_direct) * 1000:.0f} ms",
        ),
        (
            "the Python SDK's `Client` (mode auto) → first `list_tools()`, direct",
            f"{sdk_direct * 1000:.0f} ms",
            "",
            "baseline",
        ),
        (
            "the same through `mcplock run`",
            f"{sdk_through * 1000:.0f} ms",
            "",
            f"+{(sdk_through - sdk_direct) * 1000:.0f} ms (before: held until the SDK's 10 s discover timeout)",
        ),
    ]


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from _home import as_installed, isolate

    isolate()
    as_installed()  # an installed mcplock has its .pyc files (docs/performance.md)
    bin_dir = Path(sys.executable).parent
    rows = eras_rows(os.environ.get("MCPLOCK", str(bin_dir / "mcplock")))
    print("| what | time | peak RSS | overhead |\n|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
