"""`diff` and `check` with `--format` and `--output` through the real CLI: a rug pull reported
in every format with the same exit code, a SARIF file located in the lock, a tampered lock
caught by `check` in every format."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from formats_samples import DIFF_KEYS, _validate_sarif

# --- the CLI ---------------------------------------------------------------------------------------------


def _surface(name: str) -> None:
    from runner import SURFACES

    shutil.copy(SURFACES / name, "surface.json")


def _locked_fixture(cli) -> str:
    from runner import stdio_command

    _surface("demo.json")
    r = cli("add", "docs", "--yes", "--timeout", "10", "--", *stdio_command(surface="surface.json"))
    assert r.returncode == 0, r.stderr
    return Path("mcp.lock").read_text(encoding="utf-8")


def test_cli_diff_sarif_to_file_on_a_rug_pull(cli):
    lock_text = _locked_fixture(cli)
    r = cli("diff", "--format", "sarif", "--output", "x.sarif")
    assert r.returncode == 0 and r.stdout == "", (r.stdout, r.stderr)
    _validate_sarif(json.loads(Path("x.sarif").read_text(encoding="utf-8")))

    _surface("demo-rugpull.json")
    r = cli("diff", "--format", "sarif", "--output", "x.sarif")
    assert r.returncode == 1, r.stderr
    assert r.stdout == ""
    assert "x.sarif" in r.stderr
    doc = json.loads(Path("x.sarif").read_text(encoding="utf-8"))
    _validate_sarif(doc)
    results = {(res["ruleId"], res["message"]["text"].split("`")[1]): res for res in doc["runs"][0]["results"]}
    changed = results[("drift/tool-changed", "docs/search_docs")]
    loc = changed["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"]["uri"] == "mcp.lock"
    assert loc["region"]["startLine"] == lock_text.splitlines().index("[server.docs.tool.search_docs]") + 1
    assert ("drift/tool-added", "docs/run_shell") in results
    assert Path("mcp.lock").read_text(encoding="utf-8") == lock_text  # diff never writes

    # every format: the same exit code; json still the contract
    for fmt in ("text", "json", "markdown", "github"):
        r = cli("diff", "--format", fmt)
        assert r.returncode == 1, (fmt, r.stderr)
    r = cli("diff", "--format", "json")
    assert set(json.loads(r.stdout)) == DIFF_KEYS
    r = cli("diff", "--format", "github")
    assert re.search(
        r"^::error file=mcp\.lock,line=\d+,title=mcplock drift/tool-changed \((?:critical|high)\)"
        r"%3A docs/search_docs::",
        r.stdout,
        re.M,
    ), r.stdout
    r = cli("diff", "--format", "markdown", "--output", "summary.md")
    assert r.returncode == 1 and r.stdout == ""
    assert Path("summary.md").read_text(encoding="utf-8").startswith("## ❌ mcplock diff: changes need review (exit 1)")


def test_cli_diff_unknown_format_is_a_usage_error(cli):
    _locked_fixture(cli)
    r = cli("diff", "--format", "xml")
    assert r.returncode == 2 and "sarif" in r.stderr


def test_cli_check_formats(cli):
    from lockdata import make_lock

    make_lock()
    for fmt in ("text", "json", "markdown", "sarif", "github"):
        r = cli("check", "--format", fmt)
        assert r.returncode == 0, (fmt, r.stdout, r.stderr)
    r = cli("check", "--format", "sarif")
    _validate_sarif(json.loads(r.stdout))
    assert json.loads(r.stdout)["runs"][0]["results"] == []
    # tamper with a description: exit 1 in every format, located at the tool's table
    text = Path("mcp.lock").read_text(encoding="utf-8")
    m = re.search(r'^description = "(.*)"$', text, re.M)
    assert m, text
    Path("mcp.lock").write_text(text.replace(m.group(0), 'description = "tampered"', 1), encoding="utf-8")
    for fmt in ("text", "json", "markdown", "sarif", "github"):
        r = cli("check", "--format", fmt)
        assert r.returncode == 1, (fmt, r.stdout, r.stderr)
    r = cli("check", "--format", "sarif", "--output", "check.sarif")
    assert r.returncode == 1 and r.stdout == ""
    doc = json.loads(Path("check.sarif").read_text(encoding="utf-8"))
    _validate_sarif(doc)
    (res,) = [x for x in doc["runs"][0]["results"] if x["ruleId"] == "check/hash-mismatch"]
    line = res["locations"][0]["physicalLocation"]["region"]["startLine"]
    tampered_at = text[: text.index(m.group(0))].count("\n") + 1
    headers = [i for i, ln in enumerate(text.splitlines(), 1) if ln.startswith("[server.") and i < tampered_at]
    assert line == headers[-1]  # the table of the tampered tool
    r = cli("check", "--format", "github")
    assert r.stdout.startswith(f"::error file=mcp.lock,line={line},title=mcplock check/hash-mismatch")
    r = cli("check", "--output", "check.txt")
    assert r.returncode == 1 and r.stdout == "" and "hash-mismatch" in Path("check.txt").read_text(encoding="utf-8")
    r = cli("check", "--format", "yaml")
    assert r.returncode == 2
