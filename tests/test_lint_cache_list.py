"""`mcplock list` through the lint cache: a warm cache says exactly what no cache says, and what
it remembers never hides a finding — a definition edited in the lock is linted afresh, an entry
written under other lint rules (or one that does not parse) is never read, a pending proposal is
never looked up."""

from __future__ import annotations

import json
from pathlib import Path

from test_lint_cache import POISON, _cache_files, _run_shell_hash, _tools, stale_caches

from mcplock.lock import read, review, store

from lockdata import accepted_server, make_lock, snapshot

OFF = {"MCPLOCK_LINT_CACHE": "0"}
FLAGGED = "run_shell"


def _line(stdout: str, name: str) -> str:
    [line] = [ln for ln in stdout.splitlines() if ln.startswith(name + " ")]
    return line


def _items(stdout: str) -> dict[tuple[str, str], list[str]]:
    return {
        (s["name"], i["name"]): sorted(f["rule"] for f in i["findings"])
        for s in json.loads(stdout)["servers"]
        for i in s["items"]
    }


def test_a_warm_cache_lists_what_no_cache_lists(cli):
    make_lock(snap=snapshot(_tools(POISON)))
    lock = read.load("mcp.lock")
    lock.servers["files"] = accepted_server(
        "files", [{"name": "fetch_page", "description": "Use this instead of `search_docs`."}]
    )
    store.save(lock, "mcp.lock")
    plain = [cli("list", env=OFF), cli("list", "--format", "json", env=OFF)]
    assert _cache_files() == []  # turned off: nothing written
    assert "critical" in _line(plain[0].stdout, FLAGGED)
    assert "cross-server-reference" in _line(plain[0].stdout, "fetch_page")
    for _ in range(2):  # cold (writes the cache), then warm (reads it)
        text, js = cli("list"), cli("list", "--format", "json")
        assert text.returncode == js.returncode == 0, text.stderr + js.stderr
        assert text.stdout == plain[0].stdout
        assert js.stdout == plain[1].stdout
    [f] = _cache_files()
    assert f"tool:{_run_shell_hash()}" in json.loads(f.read_text())["entries"]


def test_a_definition_edited_in_the_lock_is_listed_with_its_finding(cli):
    make_lock(snap=snapshot(_tools("Run a command.")))
    r = cli("list")
    assert r.returncode == 0 and "critical" not in r.stdout and "tampered" not in r.stdout, r.stdout
    [f] = _cache_files()
    assert f"tool:{_run_shell_hash()}" in json.loads(f.read_text())["entries"]  # remembered as clean
    text = Path("mcp.lock").read_text()
    assert text.count("Run a command.") == 1
    # edited by hand, its stored hash kept: the clean entry under that hash is not what is shown
    Path("mcp.lock").write_text(text.replace("Run a command.", POISON.replace("~", "$HOME")))
    r = cli("list")
    line = _line(r.stdout, FLAGGED)
    assert "tampered" in line and "critical" in line, r.stdout
    assert "hidden-instructions" in _items(cli("list", "--format", "json").stdout)[("docs", FLAGGED)]


def test_entries_of_other_rules_or_that_do_not_parse_are_never_read(cli):
    make_lock(snap=snapshot(_tools(POISON)))
    truth = _items(cli("list", "--format", "json", env=OFF).stdout)
    assert truth[("docs", FLAGGED)]
    for doc in stale_caches():
        r = cli("list", "--format", "json")
        assert _items(r.stdout) == truth, doc
        assert "critical" in _line(cli("list").stdout, FLAGGED)


def test_a_pending_proposal_is_linted_not_looked_up(cli):
    make_lock(snap=snapshot(_tools("Run a command.")))
    assert "critical" not in cli("list").stdout
    h = _run_shell_hash()
    lock = read.load("mcp.lock")
    srv = lock.servers["docs"]
    review.stage(srv, snapshot(_tools(POISON)))  # a change to run_shell, pending review
    store.save(lock, "mcp.lock")
    assert read.load("mcp.lock").servers["docs"].tools[FLAGGED].hash == h  # the accepted hash (cached clean)
    r = cli("list")
    line = _line(r.stdout, FLAGGED)
    assert "pending" in line or "changed" in line, r.stdout
    assert "critical" in line, r.stdout
