"""tests/setupcache.py holds what it says: `add` writes the lock and the trust record and nothing
else, and a set-up written from the cache is one the commands accept as their own."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import setupcache

from runner import SURFACES, stdio_command


def _files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()}


def test_a_cached_set_up_is_the_lock_and_the_trust_the_commands_made(cli, tmp_path):
    shutil.copy(SURFACES / "demo.json", "surface.json")
    steps = (
        ("add", "docs", "--yes", "--policy", "none", "--", *stdio_command(surface="surface.json")),
        ("disable", "docs/delete_page"),
    )
    assert setupcache.locked(*steps) is True
    # what they wrote: the lock here, the trust record in the user's data directory, nothing more
    assert _files(Path.cwd()) == {"mcp.lock", "surface.json"}
    data = Path(os.environ["XDG_DATA_HOME"]) / "mcplock"
    assert _files(tmp_path) - {f"work/{f}" for f in _files(Path.cwd())} == {
        str((data / name).relative_to(tmp_path)) for name in ("trust.json", "trust.lock")
    }
    made = Path("mcp.lock").read_bytes()

    other = tmp_path / "other"  # another project: untrusted until the cache writes its record
    other.mkdir()
    os.chdir(other)
    shutil.copy(SURFACES / "demo.json", "surface.json")
    assert setupcache.locked(*steps) is False
    assert Path("mcp.lock").read_bytes() == made
    r = cli("diff")  # launches the locked command: trusted here, and the lock is the server's
    assert r.returncode == 0, r.stdout + r.stderr

    Path("surface.json").write_text("{}")  # another input: the commands run again
    Path("mcp.lock").unlink()
    assert setupcache.locked(*steps[:1]) is True
