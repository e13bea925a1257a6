"""The machine-readable reports of `diff` and `check`: SARIF (validated against the official
SARIF 2.1.0 schema and what GitHub code scanning needs, locations in the lock, stable
fingerprints) and the JSON contract (docs/architecture.md: keys may be added, never renamed or
removed); the format dispatch."""

from __future__ import annotations

import json

import pytest
from formats_samples import (
    CHECK_FINDING_KEYS,
    CHECK_KEYS,
    CHECK_SUMMARY_KEYS,
    DIFF_CHANGE_KEYS,
    DIFF_ERROR_KEYS,
    DIFF_KEYS,
    DIFF_SERVER_KEYS,
    DIFF_SUMMARY_KEYS,
    LOCK_TEXT,
    FakeLock,
    _diff_outputs,
    _line_of,
    _validate_sarif,
    sample_diffs,
    sample_findings,
)

from mcplock.render import formats

# --- sarif ---------------------------------------------------------------------------------------------


def test_diff_sarif_structure_and_locations():
    doc = formats.diff_sarif(sample_diffs(), "mcp.lock", 1, lock_text=LOCK_TEXT, uri="mcp.lock")
    _validate_sarif(doc)
    run = doc["runs"][0]
    ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
    assert ids == sorted(
        [
            "drift/instructions-changed",
            "drift/prompt-changed",
            "drift/tool-removed",
            "drift/tool-added",
            "drift/tool-changed",
            "lint/hidden-instructions",
            "lint/ansi-escape",
            "pending/review",
            "unreachable",
        ]
    )
    lines = {
        (r["ruleId"], r["message"]["text"].split("`")[1] if "`" in r["message"]["text"] else ""): r["locations"][0][
            "physicalLocation"
        ]["region"]["startLine"]
        for r in run["results"]
    }
    assert lines[("drift/tool-changed", "docs/search_docs")] == _line_of("[server.docs.tool.search_docs]")
    assert lines[("drift/tool-removed", "docs/old_tool")] == _line_of("[server.docs.tool.old_tool]")
    assert lines[("drift/tool-added", "docs/pipe|tick")] == _line_of("[server.docs]")  # no table yet: the server's
    assert lines[("drift/instructions-changed", "docs/instructions")] == _line_of("[server.docs]")
    assert lines[("drift/prompt-changed", "docs/prompt:summarize")] == _line_of("[server.docs.prompt.summarize]")
    assert lines[("pending/review", "notes/write_note")] == _line_of("[server.notes.tool.write_note]")
    assert lines[("unreachable", "remote")] == _line_of("[server.remote]")
    levels = {r["ruleId"]: r["level"] for r in run["results"]}
    assert levels["drift/tool-changed"] == "error" and levels["pending/review"] == "warning"
    rules = {r["id"]: r for r in run["tool"]["driver"]["rules"]}
    assert rules["drift/tool-changed"]["properties"]["security-severity"] == "9.5"  # the worst seen: critical
    assert "security-severity" not in rules["pending/review"]["properties"]


def test_sarif_fingerprints_are_stable():
    a = formats.diff_sarif(sample_diffs(), "mcp.lock", 1, lock_text=LOCK_TEXT)
    diffs = sample_diffs()
    diffs[0].changes[-1].live_hash = "sha256:" + "9" * 64  # the same item, changed again
    diffs[0].changes[-1].severity = "high"
    b = formats.diff_sarif(diffs, "mcp.lock", 1, lock_text=LOCK_TEXT + "\n# trailing\n")
    fa = [r["partialFingerprints"] for r in a["runs"][0]["results"]]
    fb = [r["partialFingerprints"] for r in b["runs"][0]["results"]]
    assert fa == fb


def test_check_sarif_structure():
    doc = formats.check_sarif(sample_findings(), "mcp.lock", 1, lock_text=LOCK_TEXT, uri="mcp.lock")
    _validate_sarif(doc)
    run = doc["runs"][0]
    assert [r["id"] for r in run["tool"]["driver"]["rules"]] == [
        "check/config-changed",
        "check/hash-mismatch",
        "check/not-locked",
        "pending/review",
    ]
    lines = [r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in run["results"]]
    assert lines == [
        _line_of("[server.docs.tool.search_docs]"),
        _line_of("[server.notes.tool.write_note]"),
        _line_of("[server.remote]"),
        1,
    ]
    assert run["automationDetails"]["id"] == "mcplock/check/"


def test_sarif_without_lock_text_points_at_line_one():
    doc = formats.diff_sarif(sample_diffs(), "sub dir/mcp.lock", 1)
    _validate_sarif(doc)
    locs = {r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in doc["runs"][0]["results"]}
    assert locs == {1}
    first = doc["runs"][0]["results"][0]["locations"][0]
    assert first["physicalLocation"]["artifactLocation"]["uri"] == "sub%20dir/mcp.lock"


def test_artifact_path(tmp_path):
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "sub").mkdir()
    assert formats.artifact_path(str(repo / "sub" / "mcp.lock"), cwd=str(repo / "sub")) == "sub/mcp.lock"
    other = tmp_path / "plain"
    other.mkdir()
    assert formats.artifact_path(str(other / "mcp.lock"), cwd=str(other)) == "mcp.lock"
    assert formats.artifact_path("mcp.lock") == "mcp.lock"  # the test's cwd: no git work tree above it


# --- json contract ---------------------------------------------------------------------------------------


def test_diff_json_contract():
    doc = json.loads(_diff_outputs()["diff.json"])
    assert set(doc) == DIFF_KEYS
    assert doc["version"] == 1 and doc["command"] == "diff" and doc["exit_code"] == 1 and doc["lockfile"] == "mcp.lock"
    for s in doc["servers"]:
        assert set(s) == DIFF_SERVER_KEYS
        assert s["status"] in ("ok", "drift", "unreachable")
        assert s["error"] is None or set(s["error"]) == DIFF_ERROR_KEYS
        for c in s["changes"]:
            assert set(c) == DIFF_CHANGE_KEYS
            assert c["kind"] in ("tool", "prompt", "resource-template", "resource", "instructions")
            assert c["change"] in ("added", "removed", "changed")
            assert c["severity"] in ("critical", "high", "medium", "low", "info")
    assert set(doc["summary"]) == DIFF_SUMMARY_KEYS
    assert doc["summary"] == {"servers": 4, "drift": 1, "unreachable": 1, "changes": 5, "pending": 2}
    finding = doc["servers"][0]["changes"][-1]["findings"][0]
    assert set(finding) == {"rule", "severity", "message", "where"}


def test_check_json_contract():
    doc = formats.check_json(sample_findings(), FakeLock(), "mcp.lock", 1)
    assert set(doc) == CHECK_KEYS
    assert all(set(f) == CHECK_FINDING_KEYS for f in doc["findings"])
    assert set(doc["summary"]) == CHECK_SUMMARY_KEYS and doc["summary"] == {"servers": 4, "findings": 4, "warnings": 0}


def test_report_dispatch():
    diffs = sample_diffs()
    for fmt in ("json", "markdown", "sarif", "github"):
        assert formats.diff_report(fmt, diffs, "mcp.lock", 1, lock_text=LOCK_TEXT, path="mcp.lock")
        assert formats.check_report(
            fmt, sample_findings(), FakeLock(), "mcp.lock", 1, lock_text=LOCK_TEXT, path="mcp.lock"
        )
    with pytest.raises(ValueError):
        formats.diff_report("text", diffs, "mcp.lock", 1)
