"""Issue 42.8: a git merge where the merge driver merged `mcp.lock` and its export record
cleanly leaves the exported host files merged too, not three git conflicts.

`mcplock merge-driver install` registers the host files the export record names (and `export`
registers the ones it starts writing once the driver is installed); git then runs the driver on
them, which merges each file's settings as data (a rule list as a set, a key per key) onto the
branch's own text, so both branches' flags arrive. Real git, real merges, the console script.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from test_merge_driver import git, mcplock

from mcplock.lock import store
from mcplock.lock.model import Lock
from mcplock.lock.read import load

from lockdata import accepted_server

HOST_FILES = (".claude/settings.json", "opencode.json", ".codex/config.toml")


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "commit.gpgsign", "false")
    store.save(Lock(servers={n: accepted_server(n) for n in ("docs", "notes")}), str(repo / "mcp.lock"))
    entries = {n: {"command": "python", "args": [f"{n}.py"]} for n in ("docs", "notes")}
    (repo / ".mcp.json").write_text(json.dumps({"mcpServers": entries}, indent=2) + "\n")
    oc = {n: {"type": "local", "command": ["python", f"{n}.py"]} for n in entries}
    (repo / "opencode.json").write_text(json.dumps({"mcp": oc}, indent=2) + "\n")
    (repo / ".codex").mkdir()
    (repo / ".codex/config.toml").write_text("".join(f'[mcp_servers.{n}]\ncommand = "python"\n\n' for n in entries))
    r = mcplock(repo, "merge-driver", "install")
    assert r.returncode == 0, r.stderr
    r = mcplock(repo, "export")
    assert r.returncode == 0, r.stderr
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    return repo


def _branches(repo: Path) -> None:
    git(repo, "checkout", "-q", "-b", "b", "main")
    assert mcplock(repo, "approval", "docs/delete_page", "never").returncode == 0
    assert mcplock(repo, "disable", "notes/delete_page").returncode == 0
    git(repo, "commit", "-q", "-am", "theirs")
    git(repo, "checkout", "-q", "-b", "a", "main")
    assert mcplock(repo, "disable", "docs/search_docs").returncode == 0
    assert mcplock(repo, "approval", "notes/search_docs", "never").returncode == 0
    git(repo, "commit", "-q", "-am", "ours")


def test_a_merge_leaves_the_exported_host_files_merged(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    attributes = (repo / ".gitattributes").read_text()
    assert all(f"{f} merge=mcplock" in attributes for f in HOST_FILES), attributes
    _branches(repo)
    r = git(repo, "merge", "-q", "--no-edit", "b", ok=False)
    conflicted = git(repo, "diff", "--name-only", "--diff-filter=U").stdout.split()
    assert r.returncode == 0 and conflicted == [], (r.stdout, r.stderr, conflicted)
    for f in HOST_FILES:
        assert "<<<<<<<" not in (repo / f).read_text(), f
    lock = load(repo / "mcp.lock")
    assert lock.servers["docs"].tools["search_docs"].enabled is False
    assert lock.servers["docs"].tools["delete_page"].approval == "never"
    # both branches' flags in every host
    claude = json.loads((repo / ".claude/settings.json").read_text())["permissions"]
    assert set(claude["deny"]) == {"mcp__docs__search_docs", "mcp__notes__delete_page"}, claude
    assert set(claude["allow"]) == {"mcp__docs__delete_page", "mcp__notes__search_docs"}, claude
    perm = json.loads((repo / "opencode.json").read_text())["permission"]
    assert perm["docs_search_docs"] == perm["notes_delete_page"] == "deny"
    assert perm["docs_delete_page"] == perm["notes_search_docs"] == "allow"
    codex = tomllib.loads((repo / ".codex/config.toml").read_text())["mcp_servers"]
    assert codex["docs"]["enabled_tools"] == ["delete_page"] and codex["docs"]["disabled_tools"] == ["search_docs"]
    assert codex["notes"]["tools"]["search_docs"]["approval_mode"] == "approve"
    r = mcplock(repo, "check")
    assert r.returncode == 0, r.stdout + r.stderr
    r = mcplock(repo, "export", "--dry-run")  # no host file left to regenerate (the record may
    assert "+++" not in r.stdout, r.stdout  # still claim rules the merge took out: harmless, docs/merging.md)


def test_a_real_disagreement_in_a_host_file_says_what_to_run(tmp_path: Path) -> None:
    """Two branches set one of the user's own keys two ways: that file conflicts (git's line
    merge, both sides kept), the driver's message names the way out, and the other host files
    still merge as data."""
    repo = _repo(tmp_path)
    for branch, model in (("b", "model-b"), ("a", "model-a")):
        git(repo, "checkout", "-q", "-b", branch, "main")
        oc = json.loads((repo / "opencode.json").read_text())
        oc["model"] = model
        (repo / "opencode.json").write_text(json.dumps(oc, indent=2) + "\n")
        tool = "docs/search_docs" if branch == "a" else "notes/delete_page"
        assert mcplock(repo, "disable", tool).returncode == 0
        git(repo, "commit", "-q", "-am", branch)
    r = git(repo, "merge", "-q", "--no-edit", "b", ok=False)
    assert r.returncode != 0
    conflicted = git(repo, "diff", "--name-only", "--diff-filter=U").stdout.split()
    assert conflicted == ["opencode.json"], (conflicted, r.stdout, r.stderr)
    out = r.stdout + r.stderr
    assert "opencode.json: both branches changed `model`" in out and "then `mcplock export`" in out, out
    claude = json.loads((repo / ".claude/settings.json").read_text())["permissions"]
    assert set(claude["deny"]) == {"mcp__docs__search_docs", "mcp__notes__delete_page"}
    r = mcplock(repo, "check")
    assert r.returncode != 0 and "opencode.json" in r.stdout + r.stderr


def test_a_host_file_a_flag_command_writes_first_is_registered_too(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    store.save(Lock(servers={"docs": accepted_server("docs")}), str(repo / "mcp.lock"))
    (repo / ".cursor").mkdir()
    (repo / ".cursor/mcp.json").write_text(json.dumps({"mcpServers": {"docs": {"command": "python"}}}) + "\n")
    assert mcplock(repo, "merge-driver", "install").returncode == 0
    r = mcplock(repo, "export", "--host", "cursor")
    assert r.returncode == 0 and not (repo / ".cursor/cli.json").exists(), r.stderr  # every tool asks: no file
    r = mcplock(repo, "disable", "docs/search_docs")
    assert r.returncode == 0 and (repo / ".cursor/cli.json").exists(), r.stderr
    assert "added `.cursor/cli.json merge=mcplock`" in r.stdout, r.stdout
    assert ".cursor/cli.json merge=mcplock" in (repo / ".gitattributes").read_text()
    attr = git(repo, "check-attr", "merge", "--", ".cursor/cli.json").stdout
    assert attr.strip().endswith("merge: mcplock"), attr
