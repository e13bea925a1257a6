"""Fleet benchmark (docs/organisation.md, docs/performance.md): `mcplock fleet` over 1,000
projects of 10 servers each — as 1,000 `mcp.lock` files (a directory of checkouts) and as the
1,000 JSON inventories `mcplock inventory` makes of them (CI artifacts) — in a fresh process, the
lint cache warm (a scheduled job keeps it between runs) and off (every lock's tools linted).

The projects draw their servers from a pool of 40 npm packages at 3 versions, 5 tools each, so a
server runs in many projects at several versions, as in a real organisation; one release is
locked with two different surfaces (the report's critical finding).

    python bench/run.py fleet
"""

from __future__ import annotations

import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

from run import MCPLOCK, OUT  # type: ignore[import-not-found]

PROJECTS = 1000
SERVERS = 10
POOL = 40
VERSIONS = ("1.0.0", "1.1.0", "2.0.0")


def _tools(pkg: int, version: str, odd: bool = False) -> list[dict[str, object]]:
    return [
        {
            "name": f"p{pkg}_tool_{t}",
            "description": f"Does thing {t} of package {pkg} ({version})." + (" And something else." if odd else ""),
            "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
        }
        for t in range(5)
    ]


def make_project(root: Path, p: int, odd: bool = False) -> None:
    """Project ``p`` under ``root/checkouts`` (its ``mcp.lock``) and its JSON inventory under
    ``root/artifacts``; ``odd``: its first server's surface differs from every other project's."""
    from mcplock.lock import review, store
    from mcplock.lock.model import Lock, ServerEntry
    from mcplock.lock.spec import ServerSpec
    from mcplock.model.snapshot import Snapshot
    from mcplock.org import inventory
    from mcplock.packages.pin import PackagePin

    from orgdata import integrity  # type: ignore[import-not-found]

    rng = random.Random(p)
    lock = Lock()
    for i, pkg in enumerate(rng.sample(range(POOL), SERVERS)):
        version = rng.choice(VERSIONS)
        name = f"@acme/mcp-server-{pkg}"
        pin = PackagePin("npm", name, version, integrity=integrity(f"{name}@{version}"))
        args = ("-y", f"{name}@{version}")
        spec = ServerSpec(f"s{pkg}", transport="stdio", command="npx", args=args, package=pin)
        srv = ServerEntry(name=f"s{pkg}", spec=spec, server_info={"name": name, "version": version})
        review.stage(srv, Snapshot(server_info=srv.server_info, tools=_tools(pkg, version, odd and i == 0)))
        for e in list(srv.entries()):
            review.accept(srv, e)
        lock.servers[srv.name] = srv
    d = root / "checkouts" / f"project-{p:04d}"
    d.mkdir(parents=True, exist_ok=True)
    store.save(lock, str(d / "mcp.lock"))
    inv = inventory.project(str(d / "mcp.lock"), name=f"project-{p:04d}")
    (root / "artifacts").mkdir(parents=True, exist_ok=True)
    (root / "artifacts" / f"project-{p:04d}.inventory.json").write_text(json.dumps(inv))


def make_fleet(root: Path, n: int = PROJECTS) -> None:
    """``n`` projects (:func:`make_project`), the last one having seen another answer from a release."""
    for p in range(n):
        make_project(root, p, odd=p == n - 1)


def _timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float, float, int]:
    """(wall seconds, CPU seconds — user + system —, peak RSS MiB, exit code) of one fresh process:
    on a shared machine the CPU time is what compares from one run to the next."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(p.pid, 0)
    return (
        time.perf_counter() - t0,
        usage.ru_utime + usage.ru_stime,
        usage.ru_maxrss / 1024,
        os.waitstatus_to_exitcode(status),
    )


def fleet_rows() -> list[tuple[str, str, str, str]]:
    root = OUT / "fleet"
    if not (root / "artifacts" / f"project-{PROJECTS - 1:04d}.inventory.json").exists():
        make_fleet(root)
    env = dict(os.environ)
    off = {**env, "MCPLOCK_LINT_CACHE": "0"}
    rows = []
    for label, path, e in (
        ("1,000 locks × 10 servers, lint cache warm", "checkouts", env),
        ("1,000 locks × 10 servers, lint cache off", "checkouts", off),
        ("1,000 JSON inventories × 10 servers", "artifacts", env),
    ):
        cmd = [MCPLOCK, "fleet", str(root / path), "--format", "json"]
        _timed(cmd, e)  # warm the page cache (and the lint cache)
        runs = [_timed(cmd, e) for _ in range(3)]
        assert all(r[3] == 1 for r in runs), f"{label}: not exit 1 (the divergent surface is a critical finding)"
        wall, cpu = statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)
        load = os.getloadavg()[0]
        rows.append(
            (
                f"`fleet`: {label}",
                f"{wall:.2f} s (load {load:.0f})",
                f"{max(r[2] for r in runs):.0f} MiB",
                f"{cpu:.2f} s CPU",
            )
        )
    return rows


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
    from _home import isolate

    isolate()
    for row in fleet_rows():
        print(" | ".join(row))
