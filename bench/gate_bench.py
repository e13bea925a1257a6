"""The pre-commit gate with exports (issue 42.1; docs/performance.md): `check` and a flag
command in a project whose lock has been exported to Claude Code and opencode, against the same
commands in the same project before the export, at 100, 400 and 2,000 tools (four servers).

A flag command is timed as a pair run in turns, `disable T` then `enable T` (each changes the
lock, and with an export every host file with it); its figure is the median of both. The
export itself is timed once per size. Target: with exports within 2x without, at every size.

    python bench/run.py gate
"""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

from run import MCPLOCK, OUT, make_big_lock, measure_rounds, run_once  # type: ignore[import-not-found]

SIZES = tuple(int(n) for n in os.environ.get("MCPLOCK_BENCH_GATE_SIZES", "100,400,2000").split(","))
N_SERVERS = 4
HOSTS = ("claude-code", "opencode")


def _project(where: Path, n_tools: int) -> None:
    if where.exists():
        shutil.rmtree(where)
    make_big_lock(where / "mcp.lock", n_tools, N_SERVERS)
    entries = {f"server-{s}": {"command": "python", "args": ["-m", f"srv{s}"]} for s in range(N_SERVERS)}
    (where / ".mcp.json").write_text(json.dumps({"mcpServers": entries}, indent=2) + "\n")
    opencode = {"mcp": {n: {"type": "local", "command": ["python", "-m", n]} for n in entries}}
    (where / "opencode.json").write_text(json.dumps(opencode, indent=2) + "\n")


def _timed(where: Path, env: dict[str, str]) -> tuple[float, float]:
    """(check, flag command) medians in the project at ``where`` (``env`` names its lock)."""
    tool = "server-1/tool_1_0007"
    (check, _, rc), (dis, _, rc_d), (ena, _, rc_e) = measure_rounds(
        [
            ([MCPLOCK, "check"], env),
            ([MCPLOCK, "disable", tool], env),
            ([MCPLOCK, "enable", tool], env),
        ],
        runs=5,
    )
    assert rc == rc_d == rc_e == 0, f"check {rc}, disable {rc_d}, enable {rc_e} in {where}"
    return check, (dis + ena) / 2


def gate_rows() -> list[tuple[str, str, str, str]]:
    rows = []
    for n in SIZES:
        where = OUT / f"gate-{n}"
        _project(where, n)
        env = dict(
            os.environ, NO_COLOR="1", MCPLOCK_CACHE_DIR=str(OUT / "cache"), MCPLOCK_LOCKFILE=str(where / "mcp.lock")
        )
        check, flag = _timed(where, env)
        t0 = time.perf_counter()
        hosts = [a for h in HOSTS for a in ("--host", h)]
        export, _, rc = run_once([MCPLOCK, "export", *hosts], env=env, cwd=where)
        export = time.perf_counter() - t0 if rc == 0 else float("nan")
        assert rc == 0, f"export exited {rc} in {where}"
        check_x, flag_x = _timed(where, env)
        rows.append(
            (
                f"`check` at {n:,} tools, exported to {' and '.join(HOSTS)} / not exported",
                f"{check_x * 1000:.0f} ms / {check * 1000:.0f} ms",
                "",
                f"{check_x / check:.2f}x (target ≤ 2x)",
            )
        )
        rows.append(
            (
                f"`disable`/`enable` at {n:,} tools, exported / not exported",
                f"{flag_x * 1000:.0f} ms / {flag * 1000:.0f} ms",
                "",
                f"{flag_x / flag:.2f}x (target ≤ 2x)",
            )
        )
        rows.append(
            (f"`export --host {' --host '.join(HOSTS)}` at {n:,} tools, first run", f"{export * 1000:.0f} ms", "", "")
        )
    return rows
