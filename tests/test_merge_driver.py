"""The merge driver (docs/merging.md) through real git merges and rebases in temporary repositories.

Each repository gets the driver from `mcplock merge-driver install` (the console script), so git
runs mcplock itself on every merge of mcp.lock; the locks are built with the real model and
writer and changed with mcplock's own commands.
"""

from __future__ import annotations

import copy
import os
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from mcplock.lock import review, store
from mcplock.lock.model import Lock
from mcplock.lock.read import load
from mcplock.lock.write import dumps

from conftest import MCPLOCK
from lockdata import TOOLS, accepted_server, snapshot
from ptyrun import answer


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        {
            "GIT_AUTHOR_NAME": "test",
            "GIT_AUTHOR_EMAIL": "test@example.invalid",
            "GIT_COMMITTER_NAME": "test",
            "GIT_COMMITTER_EMAIL": "test@example.invalid",
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_EDITOR": "true",
            "NO_COLOR": "1",
        }
    )
    return env


def git(repo: Path, *args: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
    r = subprocess.run(["git", *args], cwd=repo, env=_env(), capture_output=True, text=True, timeout=120)
    if ok:
        assert r.returncode == 0, (args, r.stdout, r.stderr)
    return r


def mcplock(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([MCPLOCK, *args], cwd=repo, env=_env(), capture_output=True, text=True, timeout=120)


def _base_lock() -> Lock:
    return Lock(servers={"docs": accepted_server("docs"), "notes": accepted_server("notes")})


def _accept_description(lock: Lock, server: str, description: str) -> None:
    """What `refresh` + `accept` do when the server now describes search_docs as ``description``."""
    srv = lock.servers[server]
    tools = copy.deepcopy(TOOLS)
    tools[0]["description"] = description
    review.stage(srv, snapshot(tools))
    for e in list(srv.entries()):
        review.accept(srv, e)


def _repo(tmp_path: Path, *, driver: bool = True) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "commit.gpgsign", "false")
    store.save(_base_lock(), str(repo / "mcp.lock"))
    if driver:
        r = mcplock(repo, "merge-driver", "install")
        assert r.returncode == 0, r.stderr
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    return repo


def _commit(repo: Path, message: str) -> None:
    git(repo, "commit", "-q", "-am", message)


def _two_branches(repo: Path, ours_edit, theirs_edit) -> None:
    """Branch `a` (checked out at the end) and branch `b`, each with one commit off main."""
    for branch, edit in (("b", theirs_edit), ("a", ours_edit)):
        git(repo, "checkout", "-q", "-b", branch, "main")
        edit(repo)
        _commit(repo, f"edit on {branch}")


def _independent_ours(repo: Path) -> None:
    assert mcplock(repo, "disable", "docs/search_docs").returncode == 0


def _independent_theirs(repo: Path) -> None:
    # the adjacent lines of the same tool table, and another server: a line merge conflicts here
    assert mcplock(repo, "approval", "docs/search_docs", "never").returncode == 0
    assert mcplock(repo, "disable", "notes/delete_page").returncode == 0


def _assert_both_kept(repo: Path) -> None:
    lock = load(repo / "mcp.lock")
    assert lock.servers["docs"].tools["search_docs"].enabled is False  # ours
    assert lock.servers["docs"].tools["search_docs"].approval == "never"  # theirs
    assert lock.servers["notes"].tools["delete_page"].enabled is False  # theirs
    assert lock.servers["notes"].tools["search_docs"].enabled is True  # untouched
    assert (repo / "mcp.lock").read_text() == dumps(lock)  # the writer's bytes


def test_install_is_idempotent_and_names_the_running_mcplock(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    attrs = (repo / ".gitattributes").read_text()
    assert attrs == "mcp.lock merge=mcplock\nmcp.lock.exports.json merge=mcplock\n"
    driver = git(repo, "config", "--local", "merge.mcplock.driver").stdout.strip()
    assert driver.endswith(" merge-driver run %O %A %B %P")
    command = driver[: -len(" merge-driver run %O %A %B %P")]
    assert command in ("mcplock", MCPLOCK)  # the console script that ran, absolute unless PATH finds it
    again = mcplock(repo, "merge-driver", "install")
    assert again.returncode == 0 and "already installed" in again.stdout
    assert (repo / ".gitattributes").read_text() == attrs
    assert git(repo, "check-attr", "merge", "mcp.lock").stdout.strip() == "mcp.lock: merge: mcplock"


def test_install_keeps_the_users_own_attributes(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / ".gitattributes").write_text("*.png binary")  # no trailing newline
    assert mcplock(repo, "merge-driver", "install").returncode == 0
    assert (
        repo / ".gitattributes"
    ).read_text() == "*.png binary\nmcp.lock merge=mcplock\nmcp.lock.exports.json merge=mcplock\n"


def test_install_outside_a_repository_is_a_usage_error(tmp_path: Path) -> None:
    r = mcplock(tmp_path, "merge-driver", "install")
    assert r.returncode == 2
    assert "not inside a git repository" in r.stderr and "Traceback" not in r.stderr


def test_without_the_driver_the_same_edits_conflict(tmp_path: Path) -> None:
    """The baseline the driver exists for: git's line merge conflicts on adjacent flags."""
    repo = _repo(tmp_path, driver=False)
    _two_branches(repo, _independent_ours, _independent_theirs)
    assert git(repo, "merge", "-q", "b", ok=False).returncode != 0
    assert "<<<<<<<" in (repo / "mcp.lock").read_text()


def test_independent_edits_merge_cleanly_and_check_passes(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    _two_branches(repo, _independent_ours, _independent_theirs)
    r = git(repo, "merge", "--no-edit", "b", ok=False)
    assert r.returncode == 0, (r.stdout, r.stderr)
    _assert_both_kept(repo)
    check = mcplock(repo, "check")
    assert check.returncode == 0, check.stdout + check.stderr


def test_independent_edits_rebase_cleanly(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    _two_branches(repo, _independent_ours, _independent_theirs)
    r = git(repo, "rebase", "b", ok=False)
    assert r.returncode == 0, (r.stdout, r.stderr)
    _assert_both_kept(repo)
    assert mcplock(repo, "check").returncode == 0


def _disagree_ours(repo: Path) -> None:
    lock = load(repo / "mcp.lock")
    _accept_description(lock, "docs", "Search the docs, version A.")
    lock.servers["notes"].tools["search_docs"].approval = "never"
    store.save(lock, str(repo / "mcp.lock"))


def _disagree_theirs(repo: Path) -> None:
    lock = load(repo / "mcp.lock")
    _accept_description(lock, "docs", "Search the docs, version B.")
    lock.servers["notes"].tools["delete_page"].enabled = False
    store.save(lock, str(repo / "mcp.lock"))


def _assert_one_conflict_named(repo: Path) -> None:
    check = mcplock(repo, "check")
    assert check.returncode == 2, check.stdout + check.stderr
    err = check.stderr
    assert "1 conflicted entry" in err
    assert "docs/search_docs: definition differs" in err
    assert "mcplock resolve docs/search_docs --ours" in err
    text = (repo / "mcp.lock").read_text()
    assert text.count("<<<<<<< ") == 1
    assert "version A." in text and "version B." in text  # both sides are in the file


@pytest.mark.parametrize("side, description", [("--ours", "version A."), ("--theirs", "version B.")])
def test_a_real_disagreement_is_one_conflicted_entry(tmp_path: Path, side: str, description: str) -> None:
    repo = _repo(tmp_path)
    _two_branches(repo, _disagree_ours, _disagree_theirs)
    r = git(repo, "merge", "--no-edit", "b", ok=False)
    assert r.returncode != 0 and "CONFLICT" in r.stdout
    _assert_one_conflict_named(repo)
    # every other command refuses the conflicted lock too, never serving one side silently
    assert mcplock(repo, "list").returncode == 2
    resolved = mcplock(repo, "resolve", "docs/search_docs", side)
    assert resolved.returncode == 0, resolved.stderr
    lock = load(repo / "mcp.lock")
    assert lock.servers["docs"].tools["search_docs"].definition["description"].endswith(description)
    assert lock.servers["notes"].tools["search_docs"].approval == "never"  # the rest of ours
    assert lock.servers["notes"].tools["delete_page"].enabled is False  # the rest of theirs
    assert (repo / "mcp.lock").read_text() == dumps(lock)
    assert mcplock(repo, "check").returncode == 0
    git(repo, "add", "mcp.lock")
    git(repo, "commit", "-q", "--no-edit")


def test_a_disagreement_stops_a_rebase_until_resolved(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    _two_branches(repo, _disagree_ours, _disagree_theirs)
    r = git(repo, "rebase", "b", ok=False)
    assert r.returncode != 0
    _assert_one_conflict_named(repo)
    # in a rebase, theirs is the commit being replayed: the branch's own version A
    assert mcplock(repo, "resolve", "--all", "--theirs").returncode == 0
    git(repo, "add", "mcp.lock")
    assert git(repo, "rebase", "--continue", ok=False).returncode == 0
    lock = load(repo / "mcp.lock")
    assert lock.servers["docs"].tools["search_docs"].definition["description"].endswith("version A.")
    assert lock.servers["notes"].tools["delete_page"].enabled is False
    assert lock.servers["notes"].tools["search_docs"].approval == "never"
    assert mcplock(repo, "check").returncode == 0


def test_resolve_usage_errors(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    _two_branches(repo, _disagree_ours, _disagree_theirs)
    git(repo, "merge", "--no-edit", "b", ok=False)
    both = mcplock(repo, "resolve", "docs/search_docs")
    assert both.returncode == 2 and "--ours or --theirs" in both.stderr
    unknown = mcplock(repo, "resolve", "docs/delete_page", "--ours")
    assert unknown.returncode == 2 and "conflicted: docs/search_docs" in unknown.stderr
    assert "<<<<<<<" in (repo / "mcp.lock").read_text()  # nothing taken


def test_a_version_that_is_not_a_lock_gets_a_line_merge(tmp_path: Path) -> None:
    """A hand-broken version: git's own markers, exit 1 — both sides kept, never dropped."""
    base, ours, theirs = (tmp_path / n for n in ("base", "ours", "theirs"))
    store.save(_base_lock(), str(base))
    text = base.read_text()
    ours.write_text(text.replace('policy = "all"', 'policy = "writes"\nbroken = [', 1))
    theirs.write_text(text.replace('policy = "all"', 'policy = "none"', 1))
    r = subprocess.run(
        [MCPLOCK, "merge-driver", "run", str(base), str(ours), str(theirs), "mcp.lock"],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=60,
    )
    assert r.returncode == 1, r.stderr
    assert "line by line" in r.stderr
    merged = ours.read_text()
    assert "<<<<<<< ours" in merged and 'policy = "writes"' in merged and 'policy = "none"' in merged


# -- the merge as data, without git ------------------------------------------------------------


def _merge(edit_ours, edit_theirs):
    from mcplock.lock.merge import merge

    base = _base_lock()
    ours, theirs = copy.deepcopy(base), copy.deepcopy(base)
    edit_ours(ours)
    edit_theirs(theirs)
    return merge(base, ours, theirs)


def test_a_quarantine_keeps_the_other_branchs_enabled_for_when_it_is_accepted() -> None:
    def quarantine(lock: Lock) -> None:  # refresh saw a changed search_docs: disabled until reviewed
        tools = copy.deepcopy(TOOLS)
        tools[0]["description"] = "changed upstream"
        review.stage(lock.servers["docs"], snapshot(tools))

    def disable(lock: Lock) -> None:
        lock.servers["docs"].tools["search_docs"].enabled = False

    m = _merge(quarantine, disable)
    assert m.clean
    entry = m.ours.servers["docs"].tools["search_docs"]
    assert entry.enabled is False and entry.pending is not None
    review.accept(m.ours.servers["docs"], entry)
    assert entry.enabled is False  # the other branch disabled it: accepting the change keeps that


def test_removed_on_one_branch_and_changed_on_the_other_is_one_conflict_for_the_server() -> None:
    from mcplock.lock.conflict import regions, render

    def remove(lock: Lock) -> None:
        del lock.servers["docs"]

    def change(lock: Lock) -> None:
        lock.servers["docs"].tools["delete_page"].enabled = False

    m = _merge(remove, change)
    assert [(c.server, c.whole) for c in m.conflicts] == [("docs", True)]
    found = regions(render(m))
    assert found is not None and [r.target for r in found] == ["docs"]
    assert found[0].ours == "" and "[server.docs.tool.delete_page]" in found[0].theirs


def test_one_flag_set_two_ways_conflicts_on_that_flag_only() -> None:
    from mcplock.lock.model import Entry

    def add(enabled: bool):
        def edit(lock: Lock) -> None:
            lock.servers["docs"].tools["new_tool"] = Entry("tool", "new_tool", enabled=enabled)

        return edit

    m = _merge(add(True), add(False))
    assert [(c.kind, c.key, c.units) for c in m.conflicts] == [("tool", "new_tool", ("enabled",))]


def test_instructions_and_the_package_pin_merge_as_items() -> None:
    from mcplock.packages.pin import PackagePin

    def pin(lock: Lock) -> None:
        srv = lock.servers["docs"]
        srv.spec = replace(srv.spec, package=PackagePin("npm", "docs-server", "1.0.0"))

    def instructions(lock: Lock) -> None:
        _accept_description(lock, "notes", "Search the notes.")
        review.stage(lock.servers["docs"], snapshot(instructions="New instructions."))
        review.accept(lock.servers["docs"], lock.servers["docs"].instructions)

    m = _merge(pin, instructions)
    assert m.clean
    docs = m.ours.servers["docs"]
    assert docs.spec.package == PackagePin("npm", "docs-server", "1.0.0")
    assert docs.instructions.definition == "New instructions."

    def other_pin(lock: Lock) -> None:
        srv = lock.servers["docs"]
        srv.spec = replace(srv.spec, package=PackagePin("npm", "docs-server", "2.0.0"))

    other = _merge(pin, other_pin)
    assert [(c.server, c.kind, c.units) for c in other.conflicts] == [("docs", None, ("package",))]


# -- init offers the driver ------------------------------------------------------------------------


def test_init_offers_the_driver_on_a_terminal_and_hints_off_it(tmp_path: Path) -> None:
    repo = _repo(tmp_path, driver=False)
    (repo / ".mcp.json").write_text('{"mcpServers": {"docs": {"command": "python", "args": ["docs.py"]}}}\n')
    off = mcplock(repo, "init")  # every server of the config is locked already: nothing runs
    assert off.returncode == 0, off.stderr
    assert "`mcplock merge-driver install`" in off.stderr and not (repo / ".gitattributes").exists()
    code, out = answer(["init"], ["y"], cwd=repo, env=_env())
    assert code == 0, out
    assert "merge mcp.lock as data" in out and "[Y/n]" in out
    assert (repo / ".gitattributes").read_text() == "mcp.lock merge=mcplock\nmcp.lock.exports.json merge=mcplock\n"
    assert git(repo, "config", "--local", "merge.mcplock.driver").stdout.strip().endswith("%O %A %B %P")
    code, out = answer(["init"], [], cwd=repo, env=_env())  # installed: not offered again
    assert code == 0 and "[Y/n]" not in out


def test_every_item_kind_of_the_model_merges_and_conflicts_alike() -> None:
    """Written over the model: an App's `ui://` document (an item kind of its own) conflicts as an item."""
    from mcplock.lock.conflict import regions, render, resolve
    from mcplock.lock.read import loads

    def ui(text: str):
        def edit(lock: Lock) -> None:
            srv = lock.servers["docs"]
            snap = snapshot()
            snap.ui = [{"uri": "ui://docs/app.html", "mimeType": "text/html", "text": text}]
            review.stage(srv, snap)
            for e in list(srv.entries()):
                review.accept(srv, e)

        return edit

    def ui_and_flag(lock: Lock) -> None:
        ui("<p>B</p>")(lock)
        lock.servers["notes"].tools["delete_page"].enabled = False

    m = _merge(ui("<p>A</p>"), ui_and_flag)
    found = regions(render(m))
    assert found is not None and [(r.target, r.units) for r in found] == [
        ("docs/ui:ui://docs/app.html", ("definition",))
    ]
    text, left = resolve(render(m), {found[0].target: "theirs"})
    lock = loads(text)
    assert not left and lock.servers["docs"].items["ui"]["ui://docs/app.html"].definition["text"] == "<p>B</p>"
    assert lock.servers["notes"].tools["delete_page"].enabled is False
