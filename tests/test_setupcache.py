"""tests/setupcache.py holds what it says: `add` writes the lock and the trust record and nothing
else, and a set-up written from the cache is one the commands accept as their own."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
import setupcache

from runner import SURFACES, stdio_command


@pytest.fixture(autouse=True)
def _a_cache_of_its_own(monkeypatch):
    """Each test starts with nothing cached: another test in the same worker may have run the same
    set-up already, and these tests say when the commands run for real."""
    monkeypatch.setattr(setupcache, "_made", {})


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


def test_a_flag_set_up_is_reused_unless_it_kept_an_export_in_step(cli, tmp_path):
    from lockdata import make_lock

    steps = (("disable", "docs/delete_page"), ("approval", "docs/search_docs", "never"))
    make_lock()
    assert setupcache.locked(*steps, inputs=()) is True
    made = Path("mcp.lock").read_bytes()
    for where in ("second", "third"):
        os.chdir(tmp_path)
        os.mkdir(where)
        os.chdir(where)
        make_lock()
        if where == "third":  # exported: the flag commands rewrite the host's file too
            Path(".mcp.json").write_text('{"mcpServers": {"docs": {"command": "python"}}}\n')
            assert cli("export", "--host", "claude-code").returncode == 0
            before = Path(".claude/settings.json").read_text() if Path(".claude/settings.json").exists() else ""
            assert setupcache.locked(*steps, inputs=()) is True
            assert Path(".claude/settings.json").read_text() != before  # kept in step, by the commands
            make_lock()
            cli("export", "--host", "claude-code")
            assert setupcache.locked(*steps, inputs=()) is True  # never reused
        else:
            assert setupcache.locked(*steps, inputs=()) is False
            assert Path("mcp.lock").read_bytes() == made
