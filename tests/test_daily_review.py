"""The daily review loop against real fixture servers: a staged change is pending review, not
drift; one probe feeds several reports (`--report FORMAT=FILE`)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from runner import SURFACES, stdio_command


def _surface(name="demo.json") -> None:
    shutil.copy(SURFACES / name, "surface.json")


def _add(cli, *extra):
    cmd = stdio_command(mode="benign", surface="surface.json")
    r = cli("add", "docs", "--yes", "--timeout", "10", *extra, "--", *cmd)
    assert r.returncode == 0, r.stderr
    return r


def test_a_staged_change_is_pending_review_not_drift(cli):
    _surface()
    _add(cli)
    _surface("demo-rugpull.json")
    r = cli("diff", "--format", "json")
    doc = json.loads(r.stdout)
    assert r.returncode == 1 and doc["summary"]["drift"] == 1 and doc["summary"]["pending"] == 0
    assert cli("refresh").returncode == 0

    r = cli("diff", "--format", "json")
    assert r.returncode == 1, r.stderr  # the gate still fails while anything is pending
    doc = json.loads(r.stdout)
    srv = doc["servers"][0]
    assert doc["summary"]["drift"] == 0 and doc["summary"]["changes"] == 0 and srv["changes"] == []
    assert set(doc["summary"]) >= {"servers", "drift", "unreachable", "changes", "pending"}
    pending = {(p["kind"], p["name"]): p for p in srv["pending"]}
    assert len(pending) == len(srv["pending"])  # each item once
    assert pending[("tool", "run_shell")]["change"] == "new"
    assert pending[("tool", "search_docs")]["change"] == "changed"
    assert pending[("tool", "search_docs")]["fields"] == ["description"]
    assert pending[("tool", "search_docs")]["severity"] == "critical"  # its findings stay with it
    assert any(f["rule"] == "hidden-instructions" for f in pending[("tool", "search_docs")]["findings"])

    r = cli("diff")
    assert r.returncode == 1
    assert "docs: pending review" in r.stdout and "drift" not in r.stdout.split("\n")[0]
    assert r.stdout.count("run_shell") == 2  # its row, and the list of what awaits review
    assert "0 with drift" in r.stdout and "mcplock refresh" not in r.stdout
    assert "awaiting review: " in r.stdout and "docs/run_shell" in r.stdout and "mcplock accept docs" in r.stdout

    # drift past what was staged is drift again, and still listed once
    _surface("demo.json")
    r = cli("diff", "--format", "json")
    srv = json.loads(r.stdout)["servers"][0]
    keys = [(c["kind"], c["name"]) for c in srv["changes"]] + [(p["kind"], p["name"]) for p in srv["pending"]]
    assert len(keys) == len(set(keys)), keys

    assert cli("accept", "--all", "--include-critical").returncode == 0
    _surface("demo-rugpull.json")
    r = cli("diff")
    assert r.returncode == 0, r.stdout


def test_report_writes_several_formats_from_one_probe(cli):
    _surface()
    _add(cli)
    _surface("demo-rugpull.json")
    r = cli(
        "diff",
        "--format",
        "json",
        "--report",
        "markdown=out.md",
        "--report",
        "sarif=out.sarif",
        "--report",
        "github=out.txt",
    )
    assert r.returncode == 1, r.stderr
    doc = json.loads(r.stdout)  # stdout keeps its --format
    assert doc["summary"]["drift"] == 1
    md = Path("out.md").read_text(encoding="utf-8")
    assert md.startswith("## ❌ mcplock diff") and "<details>" in md and "{+" in md
    sarif = json.loads(Path("out.sarif").read_text(encoding="utf-8"))
    assert sarif["runs"][0]["invocations"][0]["exitCode"] == 1
    assert Path("out.txt").read_text(encoding="utf-8").startswith("::")
    assert "wrote the markdown report to out.md" in r.stderr

    r = cli("check", "--report", "json=check.json")
    assert r.returncode == 0 and json.loads(Path("check.json").read_text())["command"] == "check"
    for bad in ("text=x.txt", "markdown", "yaml=x.yml", "sarif="):
        r = cli("diff", "--report", bad)
        assert r.returncode == 2 and "FORMAT=FILE" in r.stderr and "Traceback" not in r.stderr, bad
    r = cli("check", "--report", "json=mcp.lock")  # never over the lock
    assert r.returncode == 2 and json.loads(Path("check.json").read_text())


def test_server_requests_during_a_probe_are_answered_harmlessly():
    from mcplock.probe._common import answer_server_request

    def ans(method):
        return answer_server_request({"jsonrpc": "2.0", "id": 7, "method": method, "params": {}})

    assert ans("roots/list") == {"jsonrpc": "2.0", "id": 7, "result": {"roots": []}}  # no roots shared
    assert ans("elicitation/create")["result"] == {"action": "decline"}
    assert ans("sampling/createMessage")["error"]["code"] == -1  # refused, no model is called
    assert ans("ping")["result"] == {}
    assert ans("tools/call")["error"]["code"] == -32601


def test_client_capabilities_option_and_lock_key(cli):
    _surface()
    _add(cli, "--client-capabilities", "sampling,roots")
    text = Path("mcp.lock").read_text(encoding="utf-8")
    assert 'client-capabilities = ["roots", "sampling"]' in text  # one order, whatever was typed
    r = cli("add", "other", "--client-capabilities", "telepathy", "--", *stdio_command())
    assert r.returncode == 2 and "telepathy" in r.stderr and "Traceback" not in r.stderr
    Path("mcp.lock").write_text(text.replace('["roots", "sampling"]', '["roots", "mind-reading"]'), encoding="utf-8")
    r = cli("check")
    assert r.returncode == 2 and "client-capabilities" in r.stderr


def test_an_unset_variable_is_named_and_strict_refuses(cli):
    _surface()
    cmd = stdio_command(mode="benign", surface="surface.json")
    r = cli(
        "add",
        "docs",
        "--yes",
        "--timeout",
        "10",
        "--env",
        "TOKEN=${FORK_HAS_NO_SECRET}",
        "--env",
        "MODE=${MCPLOCK_TEST_MODE:-fast}",
        "--",
        *cmd,
    )
    assert r.returncode == 0, r.stderr
    assert "warning: server `docs` uses ${FORK_HAS_NO_SECRET}: unset and without a default" in r.stderr
    assert "MCPLOCK_TEST_MODE" not in r.stderr  # it has a default
    r = cli("diff")
    assert r.returncode == 0 and "${FORK_HAS_NO_SECRET}" in r.stderr
    r = cli("diff", "--strict")
    assert r.returncode == 2 and "${FORK_HAS_NO_SECRET}" in r.stderr and "export FORK_HAS_NO_SECRET" in r.stderr
    assert "probing" not in r.stderr  # refused before anything ran
    r = cli("refresh", "--strict", env={"FORK_HAS_NO_SECRET": "s3cret-value"})
    assert r.returncode == 0 and "warning" not in r.stderr and "s3cret-value" not in r.stderr + r.stdout
