"""Core benchmarks (`python bench/run.py core`): figures that used to be wall-clock assertions
in the test suite, where a loaded machine made them flaky and a fast one made them vacuous.

- lint: 2,000 tools through `mcplock.lint.lint_definition`, timed inside a fresh interpreter
  (target: well under 1 s; the suite used to assert < 2 s).
- concurrency: `mcplock.probe.probe_many` over 1 and 8 slow stdio fixture servers (0.4 s per
  answer): probes overlap, so 8 cost about one (target ≤ 2x; the suite used to assert it).
- giving up: how long a probe takes to fail against a server that hangs or sends garbage, with
  `timeout=1` (1.5 for garbage): the timeout is honoured, plus clean-up (the suite used to
  assert < 6 s stdio, < 5 s HTTP and SSE, < 10 s garbage).
"""

from __future__ import annotations

import asyncio
import statistics
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(ROOT / "fixtures"))  # fixtures/runner.py: the fixture servers' launcher

from runner import http_fixture, stdio_command

PY = sys.executable
SLOW_DELAY = 0.4
N_SLOW = 8

LINT_CODE = (
    "import time; import mcplock.lint as L; "
    "tools = [{'name': f't_{i}', 'description': 'Read the complete contents of a file from the file system. '"
    " * 5 + 'Größe 搜索 👍🏽', 'inputSchema': {'type': 'object', 'properties': {'path': {'type': 'string', "
    "'description': 'Absolute path of the file to read'}}, 'required': ['path']}} for i in range(2000)]; "
    "t = time.perf_counter(); [L.lint_definition('tool', d) for d in tools]; "
    "print(time.perf_counter() - t)"
)


def _lint_seconds(runs: int = 5) -> float:
    out = [float(subprocess.run([PY, "-c", LINT_CODE], capture_output=True, text=True, check=True).stdout)
           for _ in range(runs)]
    return statistics.median(out)


def _stdio_spec(mode: str, name: str, extra: tuple[str, ...] = ()):
    from mcplock.spec import ServerSpec

    cmd = stdio_command(mode=mode, extra_args=extra)
    return ServerSpec(name=name, transport="stdio", command=cmd[0], args=tuple(cmd[1:]))


def _probe_many_seconds(n: int, runs: int = 3) -> float:
    from mcplock.probe import ProbeOptions, probe_many
    from mcplock.snapshot import Snapshot

    times = []
    for _ in range(runs):
        specs = [_stdio_spec("slow", f"slow{i}", ("--delay", str(SLOW_DELAY))) for i in range(n)]
        t0 = time.perf_counter()
        result = probe_many(specs, ProbeOptions(timeout=20))
        times.append(time.perf_counter() - t0)
        bad = [k for k, v in result.items() if not isinstance(v, Snapshot)]
        if bad:
            raise RuntimeError(f"probe_many: {bad} failed: {result}")
    return statistics.median(times)


def _seconds_to_fail(spec, timeout: float, kind: str) -> float:
    from mcplock.errors import ProbeError
    from mcplock.probe import ProbeOptions, probe

    t0 = time.perf_counter()
    try:
        asyncio.run(probe(spec, ProbeOptions(timeout=timeout)))
    except ProbeError as e:
        if e.kind != kind:
            raise RuntimeError(f"expected a {kind} error, got {e.kind}: {e.message}") from e
        return time.perf_counter() - t0
    raise RuntimeError(f"{spec.name}: the probe did not fail")


def core_rows() -> list[tuple[str, str, str, str]]:
    from mcplock.spec import ServerSpec

    rows: list[tuple[str, str, str, str]] = []
    lint = _lint_seconds()
    rows.append(("lint 2,000 tool definitions (`lint_definition`, in a fresh interpreter)",
                 f"{lint * 1000:.0f} ms", "", "target < 1 s"))

    one, eight = _probe_many_seconds(1), _probe_many_seconds(N_SLOW)
    rows.append((f"`probe_many`, 1 slow stdio server ({SLOW_DELAY} s per answer), in-process",
                 f"{one * 1000:.0f} ms", "", "baseline"))
    rows.append((f"`probe_many`, {N_SLOW} such servers", f"{eight * 1000:.0f} ms", "",
                 f"{eight / one:.2f}x one server (target ≤ 2x)"))

    hang = _seconds_to_fail(_stdio_spec("hang", "hang"), 1, "timeout")
    rows.append(("probe of a stdio server that never answers, `timeout=1`: time to fail",
                 f"{hang * 1000:.0f} ms", "", "timeout + clean-up"))
    garbage = _seconds_to_fail(_stdio_spec("garbage", "garbage"), 1.5, "garbage")
    rows.append(("probe of a stdio server that writes only garbage, `timeout=1.5`: time to fail",
                 f"{garbage * 1000:.0f} ms", "", "≤ timeout + clean-up"))
    for transport, path in (("http", "/mcp"), ("sse", "/sse")):
        with http_fixture(mode="hang") as base:
            secs = _seconds_to_fail(ServerSpec(name="hang", transport=transport, url=base + path), 1, "timeout")
        rows.append((f"probe of a hanging {transport.upper()} server, `timeout=1`: time to fail",
                     f"{secs * 1000:.0f} ms", "", "timeout + clean-up"))
    return rows


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from _home import isolate

    isolate()
    from run import table  # bench/run.py (this directory is on sys.path)

    print(table(core_rows()))
