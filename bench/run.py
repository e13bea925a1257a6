"""mcplock benchmarks: fresh processes, median of several runs, peak RSS per process.

    make bench            # all
    python bench/run.py offline|probe|core|guard|eras|pins|severity|fleet|gate

Offline: `check` and `list` on a generated 2,000-tool lock against a bare `tomllib`
parse of the same file in the same run; `--version` against `python -c pass`.
Probe: `diff` over 8 slow local servers against one of them; probing 20 servers' peak memory.
Core (bench/core_bench.py): lint of 2,000 tools, in-process probe concurrency, time to give up on
a hung server.
Guard (bench/guard_bench.py): `mcplock run` against a direct session in the same run (per-call
overhead, first `tools/list` beyond the upstream's own start, peak RSS).
Eras (bench/eras_bench.py): a modern (2026-07-28) host's connect time through `mcplock run` and
directly, a bare client and the Python SDK's `Client`.
Pins (bench/pins_bench.py): a pinned launch on a warm cache against an unpinned `npx` launch.
Severity (bench/severity_bench.py): `check` with the lint cache warm and off against the floor,
and the intent model on 2,000 distinct tool definitions, honest and with directives.
Fleet (bench/fleet_bench.py): `fleet` over 1,000 locks of 10 servers (lint cache warm and off) and
over their 1,000 JSON inventories.
Gate (bench/gate_bench.py): `check` and a flag command with exports to Claude Code and opencode
against the same commands without, at 100, 400 and 2,000 tools; the first export to Codex.
Results are printed as a Markdown table and written to bench/out/results.md.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "out"
PY = sys.executable
MCPLOCK = str(Path(PY).parent / "mcplock")
sys.path.insert(0, str(ROOT))


def run_once(cmd: list[str], env: dict[str, str] | None = None, cwd: str | None = None) -> tuple[float, float, int]:
    """(seconds, peak RSS MiB, exit code) of one fresh process."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=cwd)
    _, status, usage = os.wait4(p.pid, 0)
    dt = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    return dt, usage.ru_maxrss / 1024, p.returncode


def measure(cmd: list[str], runs: int = 7, **kw) -> tuple[float, float, int]:
    run_once(cmd, **kw)  # warm the page cache
    results = [run_once(cmd, **kw) for _ in range(runs)]
    return statistics.median(r[0] for r in results), max(r[1] for r in results), results[-1][2]


Timed = tuple[float, float, int]


def measure_rounds(cmds: list[tuple[list[str], dict[str, str] | None]], runs: int = 7) -> list[Timed]:
    """:func:`measure` of several commands, run in turns (one of each per round)."""
    for cmd, env in cmds:
        run_once(cmd, env=env)  # warm the page cache (and check's lint cache)
    results: list[list[Timed]] = [[] for _ in cmds]
    for _ in range(runs):
        for i, (cmd, env) in enumerate(cmds):
            results[i].append(run_once(cmd, env=env))
    return [(statistics.median(r[0] for r in rs), max(r[1] for r in rs), rs[-1][2]) for rs in results]


def make_big_lock(path: Path, n_tools: int = 2000, n_servers: int = 4) -> None:
    from mcplock.lock import review, store
    from mcplock.lock.model import Lock, ServerEntry
    from mcplock.lock.spec import ServerSpec
    from mcplock.model.snapshot import Snapshot

    lock = Lock()
    per = n_tools // n_servers
    for s in range(n_servers):
        tools = []
        for i in range(per):
            tools.append(
                {
                    "name": f"tool_{s}_{i:04d}",
                    "title": f"Tool {i}",
                    "description": f"Does thing {i} on the {s} backend.\nReturns a JSON document with the result.\n"
                    "Use it when the user asks about things.",
                    "inputSchema": {
                        "type": "object",
                        "properties": {
                            "query": {"type": "string", "maxLength": 200, "description": "What to look for"},
                            "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 10},
                            "filters": {"$ref": "#/$defs/filters"},
                        },
                        "required": ["query"],
                        "additionalProperties": False,
                        "$defs": {"filters": {"type": "object", "properties": {"tag": {"type": "string"}}}},
                    },
                    "annotations": {"readOnlyHint": i % 2 == 0},
                }
            )
        srv = ServerEntry(
            name=f"server-{s}",
            spec=ServerSpec(f"server-{s}", transport="stdio", command="python", args=("-m", f"srv{s}")),
        )
        snap = Snapshot(server_info={"name": f"srv{s}", "version": "1.0"}, tools=tools, instructions="Be careful.")
        review.stage(srv, snap)
        for e in list(srv.entries()):
            review.accept(srv, e)
        lock.servers[srv.name] = srv
    path.parent.mkdir(parents=True, exist_ok=True)
    store.save(lock, str(path))


def offline() -> list[tuple[str, str, str, str]]:
    lock = OUT / "big" / "mcp.lock"
    make_big_lock(lock)
    size = lock.stat().st_size / 1024
    # the lint cache of `check` in bench/out (the warm-up run fills it); the cold row turns it off
    env = dict(os.environ, MCPLOCK_LOCKFILE=str(lock), NO_COLOR="1", MCPLOCK_CACHE_DIR=str(OUT / "cache"))
    # in rounds (floor, check and list with and without the cache): on a shared machine a burst of
    # load then slows them alike, and the ratios to the floor hold
    off = dict(env, MCPLOCK_LINT_CACHE="0")
    (
        (floor, floor_mem, _),
        (check, check_mem, rc),
        (cold, cold_mem, rc_cold),
        (lst, lst_mem, rc_list),
        (lst_cold, lst_cold_mem, rc_list_cold),
    ) = measure_rounds(
        [
            ([PY, "-c", f"import tomllib; tomllib.load(open({str(lock)!r}, 'rb'))"], None),
            ([MCPLOCK, "check"], env),
            ([MCPLOCK, "check"], off),
            ([MCPLOCK, "list"], env),
            ([MCPLOCK, "list"], off),
        ]
    )
    assert rc == rc_cold == rc_list == rc_list_cold == 0, (
        f"check or list exited {rc}, {rc_cold}, {rc_list}, {rc_list_cold}"
    )
    pas, _, _ = measure([PY, "-c", "pass"])
    rows = []
    ver, _, _ = measure([MCPLOCK, "--version"], env=env)
    hlp, _, _ = measure([MCPLOCK, "--help"], env=env)
    rows.append(
        (
            f"bare `tomllib` parse of the 2,000-tool lock ({size:.0f} KiB), fresh process",
            f"{floor * 1000:.0f} ms",
            f"{floor_mem:.0f} MiB",
            "floor",
        )
    )
    rows.append(
        (
            "`mcplock check` (2,000 tools: parse, verify every hash, the accepted tools' critical findings "
            "from the lint cache)",
            f"{check * 1000:.0f} ms",
            f"{check_mem:.0f} MiB",
            f"{check / floor:.1f}x floor (target < 1 s, ≤ 4x, < 150 MB)",
        )
    )
    rows.append(
        (
            "the same, lint cache off (`MCPLOCK_LINT_CACHE=0`: every accepted tool linted)",
            f"{cold * 1000:.0f} ms",
            f"{cold_mem:.0f} MiB",
            f"{cold / floor:.1f}x floor",
        )
    )
    rows.append(
        (
            "`mcplock list` (2,000 tools: verify every hash once, the lint from the lint cache)",
            f"{lst * 1000:.0f} ms",
            f"{lst_mem:.0f} MiB",
            f"{lst / floor:.1f}x floor",
        )
    )
    rows.append(
        (
            "the same, lint cache off",
            f"{lst_cold * 1000:.0f} ms",
            f"{lst_cold_mem:.0f} MiB",
            f"{lst_cold / floor:.1f}x floor",
        )
    )
    rows.append(("`python -c pass`", f"{pas * 1000:.0f} ms", "", ""))
    rows.append(("`mcplock --version`", f"{ver * 1000:.0f} ms", "", f"{ver / pas:.1f}x `python -c pass` (target ≤ 8x)"))
    rows.append(("`mcplock --help`", f"{hlp * 1000:.0f} ms", "", ""))
    return rows


def table(rows: list[tuple[str, str, str, str]]) -> str:
    out = ["| what | time (median) | peak RSS | ratio |", "|---|---|---|---|"]
    out += [f"| {a} | {b} | {c} | {d} |" for a, b, c, d in rows]
    return "\n".join(out)


def main(argv: list[str]) -> int:
    which = argv[1:] or ["offline", "probe", "core", "guard", "eras", "pins", "severity", "fleet", "gate"]
    rows: list[tuple[str, str, str, str]] = []
    if "offline" in which:
        rows += offline()
    if "probe" in which:
        from probe_bench import probe_rows  # type: ignore[import-not-found]

        rows += probe_rows(OUT, MCPLOCK)
    if "core" in which:
        from core_bench import core_rows  # type: ignore[import-not-found]

        rows += core_rows()
    if "guard" in which:
        from guard_bench import guard_rows  # type: ignore[import-not-found]

        rows += guard_rows(MCPLOCK)
    if "eras" in which:
        from eras_bench import eras_rows  # type: ignore[import-not-found]

        rows += eras_rows(MCPLOCK)
    if "pins" in which:
        from pins_bench import pins_rows  # type: ignore[import-not-found]

        rows += pins_rows(OUT, MCPLOCK)
    if "severity" in which:
        from severity_bench import severity_rows  # type: ignore[import-not-found]

        rows += severity_rows()
    if "fleet" in which:
        sys.path.insert(0, str(ROOT / "tests"))  # tests/orgdata.py: the pins' integrity values
        from fleet_bench import fleet_rows  # type: ignore[import-not-found]

        rows += fleet_rows()
    if "gate" in which:
        from gate_bench import gate_rows  # type: ignore[import-not-found]

        rows += gate_rows()
    text = table(rows)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "results.md").write_text(text + "\n")
    print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}")
    print(text)
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    from _home import as_installed, isolate

    isolate()
    as_installed()  # an installed mcplock has its .pyc files (docs/performance.md)
    raise SystemExit(main(sys.argv))
