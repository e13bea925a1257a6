"""mcplock.model.paths: every per-user directory from one resolver, each override moving what it says."""

from __future__ import annotations

import os
from pathlib import Path

from mcplock.auth.store import TokenStore
from mcplock.core.trust import store_path
from mcplock.guard import evidence
from mcplock.lint.cache import cache_dir as lint_cache_dir
from mcplock.lock.one import cache_dir as lock_cache_dir
from mcplock.model import paths
from mcplock.packages.cache import cache_root


def _users_dirs(tmp_path: Path) -> dict[str, Path]:
    """Where each store of mcplock lands, asked through its own module."""
    return {
        "packages": cache_root(),
        "lint": lint_cache_dir(),
        "locks": lock_cache_dir(),
        "tokens": TokenStore().root,
        "trust": store_path().parent,
        "evidence": Path(evidence.path_for(str(tmp_path / "mcp.lock"))).parent,
    }


def test_mcplock_cache_dir_holds_every_cache_in_its_own_directory(tmp_path, monkeypatch):
    root = tmp_path / "caches"
    monkeypatch.setenv("MCPLOCK_CACHE_DIR", str(root))
    got = _users_dirs(tmp_path)
    # the packages were put in the root itself, beside lint/ and locks/
    assert got["packages"] == root / "packages"
    assert got["lint"] == root / "lint" and got["locks"] == root / "locks"


def test_the_defaults_follow_xdg_and_the_overrides_move_each_store(tmp_path, monkeypatch):
    got = _users_dirs(tmp_path)
    assert got == {
        "packages": tmp_path / "xdg-cache" / "mcplock" / "packages",
        "lint": tmp_path / "xdg-cache" / "mcplock" / "lint",
        "locks": tmp_path / "xdg-cache" / "mcplock" / "locks",
        "tokens": tmp_path / "xdg-config" / "mcplock",
        "trust": tmp_path / "xdg-data" / "mcplock",
        "evidence": tmp_path / "xdg-state" / "mcplock",
    }
    monkeypatch.setenv("MCPLOCK_CONFIG_DIR", str(tmp_path / "cfg"))
    monkeypatch.setenv("MCPLOCK_STATE_DIR", str(tmp_path / "state"))
    got = _users_dirs(tmp_path)
    assert got["tokens"] == got["trust"] == tmp_path / "cfg" and got["evidence"] == tmp_path / "state"


def test_a_relative_or_missing_xdg_variable_falls_back_to_the_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")  # not absolute: ignored, as XDG says
    monkeypatch.delenv("XDG_STATE_HOME")
    home = Path(os.environ["HOME"])
    assert paths.cache_dir("lint") == home / ".cache" / "mcplock" / "lint"
    assert paths.state_dir() == home / ".local" / "state" / "mcplock"
    env = {"HOME": "/h", "XDG_DATA_HOME": "/d"}
    assert paths.data_dir(env) == Path("/d/mcplock") and paths.config_dir(env) == Path("/h/.config/mcplock")


def test_a_switch_turns_a_cache_off():
    assert paths.cache_dir("lint", "MCPLOCK_LINT_CACHE", {"MCPLOCK_LINT_CACHE": "0"}) is None
    assert lint_cache_dir({"MCPLOCK_LINT_CACHE": "0", "MCPLOCK_CACHE_DIR": "/c"}) is None
    assert lock_cache_dir({"MCPLOCK_CACHE_DIR": "/c"}) == Path("/c/locks")
