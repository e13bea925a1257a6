"""The mcp-lock/1 export and `verify-lock` through the console script (docs/failing-safe.md,
round 5): a document that drops a server or differs in a field an enforcer acts on never
"agrees" (issue 47, item 12); huge integers and NFC twins are refused or left out with a reason,
never a traceback, and mcplock's own export always verifies (items 16, 17); an export and its
signature that fell behind the lock are reported by `check`, and `verify-lock` on another tool's
document points at `--no-lock` (issue 42, item 5)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_signing import keygen

from mcplock.interop.digests import entry_integrity

from lockdata import TOOLS, make_lock, snapshot

NS = "dev.mcplock"


def _export(cli) -> dict:
    r = cli("export", "--format", "mcp-lock-v1")
    assert r.returncode == 0, r.stderr
    return json.loads(Path("mcp-lock.json").read_text())


def _write(doc: dict, name: str = "mcp-lock.json") -> None:
    for e in doc["entries"]:
        e["integrity"] = entry_integrity(e)  # as a forger recomputes it
    Path(name).write_text(json.dumps(doc, indent=2))


def _drop(doc: dict) -> None:
    doc["entries"] = []
    doc["extensions"] = {NS: {"omitted": [{"server": "docs", "reason": "left out on purpose"}]}}


EDITS = {
    "dropped and claimed omitted": _drop,
    "target.transport": lambda d: d["entries"][0]["target"].update(transport="sse"),
    "version": lambda d: d["entries"][0].update(version="9.9.9"),
    "client": lambda d: d["entries"][0].update(client="cursor"),
    "scope": lambda d: d["entries"][0].update(scope="user"),
    "verification": lambda d: d["entries"][0].update(verification=[]),
    "extension policy": lambda d: d["entries"][0]["extensions"][NS].update(policy="none"),
    "extension pending": lambda d: d["entries"][0]["extensions"][NS].update(pending=3),
}


@pytest.mark.parametrize("edit", list(EDITS))
def test_verify_lock_never_agrees_with_a_document_that_says_otherwise(cli, edit):
    make_lock()
    doc = _export(cli)
    assert cli("verify-lock", "mcp-lock.json").returncode == 0  # the honest twin agrees
    EDITS[edit](doc)
    _write(doc, "edited.json")
    r = cli("verify-lock", "edited.json")
    assert r.returncode == 1, (edit, r.stdout, r.stderr)
    assert "disagrees" in r.stdout and "agrees with" not in r.stdout, r.stdout


HUGE = 10**400 + 1


def test_huge_integers_are_left_out_of_the_export_and_refused_in_a_document(cli):
    tools = [{**TOOLS[0], "inputSchema": {**TOOLS[0]["inputSchema"], "maximum": HUGE}}]
    make_lock(snap=snapshot(tools=tools))
    r = cli("export", "--format", "mcp-lock-v1")
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    assert "docs is not in the export" in r.stderr and "beyond what a double holds" in r.stderr
    r = cli("verify-lock", "mcp-lock.json")  # mcplock's own export: left out for a reason it would leave it out for
    assert "Traceback" not in r.stderr and "not-in-document" not in r.stdout, r.stdout + r.stderr
    # documents holding such numbers: a problem named, never a traceback
    for digits in (400, 5000):
        Path("big.json").write_text('{"specVersion": 1, "entries": [], "x": ' + "9" * digits + "}")
        r = cli("verify-lock", "big.json", "--no-lock")
        assert r.returncode == 1, (digits, r.stdout, r.stderr)
        assert "Traceback" not in r.stderr and "unexpectedly" not in r.stderr, r.stderr
        assert "digits" in r.stdout, r.stdout


def test_nfc_twins_are_never_exported_as_two_keys(cli):
    twins = [{**TOOLS[0], "name": "caf\u00e9"}, {**TOOLS[0], "name": "cafe\u0301"}]
    make_lock(snap=snapshot(tools=twins))
    r = cli("export", "--format", "mcp-lock-v1")
    assert r.returncode == 0, r.stderr
    assert "NFC" in r.stderr
    r = cli("verify-lock", "mcp-lock.json")  # mcplock's own export reads (its one server left out: empty)
    assert "nfc-duplicate-key" not in r.stdout and "agrees with mcp.lock" in r.stdout, r.stdout + r.stderr


def test_check_reports_an_export_and_a_signature_that_fell_behind(cli):
    make_lock()
    keygen("alice")
    _export(cli)
    assert cli("sign", "--key", "alice", "--document", "mcp-lock.json").returncode == 0
    assert cli("check").returncode == 0
    assert cli("disable", "docs/delete_page").returncode == 0
    r = cli("check")
    assert r.returncode == 1, r.stdout + r.stderr
    out = r.stdout + r.stderr
    assert "mcp-lock.json (mcp-lock/1) no longer matches the lock" in out and "docs" in out
    assert "mcplock export --format mcp-lock-v1" in out
    _export(cli)  # the way the hint names: the document is in step, its signature is not
    r = cli("check")
    assert r.returncode == 1 and "mcp-lock.sig signs another version of mcp-lock.json" in r.stdout + r.stderr
    assert cli("sign", "--key", "alice", "--document", "mcp-lock.json").returncode == 0
    assert cli("check").returncode == 0


def test_verify_lock_on_another_tools_document_points_at_no_lock(cli):
    make_lock()
    doc = _export(cli)
    for e in doc["entries"]:
        e.pop("extensions", None)
        e["target"]["identifier"] = "other-tool-pinned-this"
    doc.pop("extensions", None)
    _write(doc, "theirs.json")
    r = cli("verify-lock", "theirs.json")
    assert r.returncode == 1
    assert "verify-lock theirs.json --no-lock" in r.stdout and "export it again" not in r.stdout, r.stdout
    assert cli("verify-lock", "theirs.json", "--no-lock").returncode == 0
