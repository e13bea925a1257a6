"""Pinned launch on a warm cache against an unpinned `npx` launch of the same server.

`mcplock diff` of one server-memory release, twice: with its `[server.NAME.package]` pin (mcplock
verifies the cached tree file by file, then runs `node` on the package's bin) and without it (the
lock's own command, `npx -y PKG@V`, npx's cache warm). Both are whole fresh `mcplock` processes:
spawn, handshake, `tools/list`, compare. Needs the npm registry once, to fill the caches.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

PACKAGE = "@modelcontextprotocol/server-memory@2026.8.31"


def pins_rows(out: Path, mcplock: str) -> list[tuple[str, str, str, str]]:
    from run import measure  # type: ignore[import-not-found]

    work = out / "pins"
    work.mkdir(parents=True, exist_ok=True)
    env = {
        **os.environ,
        "MCPLOCK_CACHE_DIR": str(work / "cache"),
        "npm_config_cache": str(work / "npx-cache"),
        "MEMORY_FILE_PATH": str(work / "memory.json"),
        "NO_COLOR": "1",
    }
    pinned, unpinned = work / "pinned.lock", work / "unpinned.lock"
    if not pinned.exists():
        subprocess.run(
            [mcplock, "--lockfile", str(pinned), "add", "memory", "--yes", "--", "npx", "-y", PACKAGE],
            env=env,
            check=True,
            capture_output=True,
        )
    text = pinned.read_text()
    unpinned.write_text(re.sub(r"\n\[server\.memory\.package\]\n(?:[^\[\n][^\n]*\n)*", "\n", text))
    assert "[server.memory.package]" not in unpinned.read_text()
    for lock in (pinned, unpinned):  # the bench's own locks (dropping the pin is another launch: trust both)
        subprocess.run([mcplock, "--lockfile", str(lock), "trust", "memory"], env=env, check=True, capture_output=True)
    rows = []
    times = {}
    for name, lock in (("unpinned", unpinned), ("pinned", pinned)):
        t, _rss, code = measure([mcplock, "--lockfile", str(lock), "diff"], env=env)
        if code != 0:
            raise SystemExit(f"mcplock diff ({name}) exited {code}")
        times[name] = t
    rows.append(
        (
            f"`mcplock diff`, `npx -y {PACKAGE}` unpinned (npx cache warm)",
            f"{times['unpinned'] * 1000:.0f} ms",
            "",
            "baseline",
        )
    )
    rows.append(
        (
            "same server pinned: verify the cached tree, run `node` on its bin (warm cache)",
            f"{times['pinned'] * 1000:.0f} ms",
            "",
            f"{times['pinned'] / times['unpinned']:.2f}x unpinned (target ≤ 1.2x)",
        )
    )
    return rows
