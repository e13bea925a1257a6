"""Regenerate mcp.lock.example: a real lock of the bundled example server.

    .venv/bin/python scripts/make_example_lock.py [OUTPUT]

The server runs from the repository root (paths in the lock are relative to it), so
`mcplock --lockfile mcp.lock.example diff` works from a checkout. tests/test_example_lock.py
regenerates it into a temporary directory and fails when the committed file differs.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MCPLOCK = str(Path(sys.executable).parent / "mcplock")
SERVER = ["python3", "fixtures/mcp_fixture.py", "stdio", "--surface", "fixtures/surfaces/demo.json"]


def generate() -> str:
    with tempfile.TemporaryDirectory() as tmp:
        # the lock's directory is where a stdio server runs: give it the repository's fixtures
        os.symlink(ROOT / "fixtures", Path(tmp) / "fixtures")
        lock = Path(tmp) / "mcp.lock"
        r = subprocess.run(
            [MCPLOCK, "--lockfile", str(lock), "add", "docs", "--yes", "--policy", "writes", "--", *SERVER],
            capture_output=True,
            text=True,
            timeout=60,
        )
        if r.returncode != 0:
            raise SystemExit(f"mcplock add failed ({r.returncode}):\n{r.stderr}")
        return lock.read_text(encoding="utf-8")


def main() -> int:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "mcp.lock.example"
    out.write_text(generate(), encoding="utf-8")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
