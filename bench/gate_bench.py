"""The pre-commit gate with exports (issue 42.1; docs/performance.md): `check` and a flag
command in a project whose lock has been exported to Claude Code and opencode, against the same
commands in a copy of the project that was not exported, at 100, 400 and 2,000 tools (four
servers). Both projects' commands run in turns (7 rounds), so that load on the shared machine
slows them alike. A flag command is timed as a pair, `disable T` then `enable T` (each changes
the lock, and with an export every host file with it); its figure is the mean of their medians.
The export itself is timed once per size. Target: with exports within 2x without, at every size.
Codex (TOML, issue 42.6): the first export of the same lock to a project's `.codex/config.toml`
(four server tables), timed once per size, and `check` after it against the plain project's.

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


def _codex_project(where: Path, n_tools: int) -> None:
    if where.exists():
        shutil.rmtree(where)
    make_big_lock(where / "mcp.lock", n_tools, N_SERVERS)
    (where / ".codex").mkdir()
    tables = (f'[mcp_servers.server-{s}]\ncommand = "python"\nargs = ["-m", "srv{s}"]\n\n' for s in range(N_SERVERS))
    (where / ".codex" / "config.toml").write_text("".join(tables))


def _codex_rows(n: int, plain: Path) -> list[tuple[str, str, str, str]]:
    """The first export to Codex at ``n`` tools, and `check` after it against the plain project's."""
    codex = OUT / f"gate-{n}-codex"
    _codex_project(codex, n)
    t0 = time.perf_counter()
    _, _, rc = run_once([MCPLOCK, "export", "--host", "codex"], env=_env(codex), cwd=codex)
    export = time.perf_counter() - t0
    assert rc == 0, f"export exited {rc} in {codex}"
    (c0, _, rc0), (c1, _, rc1) = measure_rounds([([MCPLOCK, "check"], _env(w)) for w in (plain, codex)], runs=5)
    assert rc0 == rc1 == 0, f"check exited {rc0}, {rc1}"
    return [
        (f"`export --host codex` at {n:,} tools, first run", f"{export * 1000:.0f} ms", "", ""),
        (
            f"`check` at {n:,} tools, exported to codex / not exported",
            f"{c1 * 1000:.0f} ms / {c0 * 1000:.0f} ms",
            "",
            f"{c1 / c0:.2f}x (target ≤ 2x)",
        ),
    ]


def _env(where: Path) -> dict[str, str]:
    return dict(
        os.environ, NO_COLOR="1", MCPLOCK_CACHE_DIR=str(OUT / "cache"), MCPLOCK_LOCKFILE=str(where / "mcp.lock")
    )


def _timed(plain: Path, exported: Path) -> tuple[tuple[float, float], tuple[float, float]]:
    """((check, flag command) without the export, the same with it): medians, the commands of
    both projects run in turns, so that load on the shared machine slows them alike."""
    tool = "server-1/tool_1_0007"
    cmds = [
        ([MCPLOCK, *args], _env(where))
        for args in (["check"], ["disable", tool], ["enable", tool])
        for where in (plain, exported)
    ]
    results = measure_rounds(cmds, runs=7)
    assert all(rc == 0 for _, _, rc in results), f"exit codes {[rc for _, _, rc in results]}"
    (c0, _, _), (c1, _, _), (d0, _, _), (d1, _, _), (e0, _, _), (e1, _, _) = results
    return (c0, (d0 + e0) / 2), (c1, (d1 + e1) / 2)


def gate_rows() -> list[tuple[str, str, str, str]]:
    rows = []
    hosts = [a for h in HOSTS for a in ("--host", h)]
    for n in SIZES:
        plain, exported = OUT / f"gate-{n}", OUT / f"gate-{n}-exported"
        _project(plain, n)
        _project(exported, n)
        t0 = time.perf_counter()
        _, _, rc = run_once([MCPLOCK, "export", *hosts], env=_env(exported), cwd=exported)
        export = time.perf_counter() - t0
        assert rc == 0, f"export exited {rc} in {exported}"
        (check, flag), (check_x, flag_x) = _timed(plain, exported)
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
        rows.append((f"`export {' '.join(hosts)}` at {n:,} tools, first run", f"{export * 1000:.0f} ms", "", ""))
        rows += _codex_rows(n, plain)
    return rows
