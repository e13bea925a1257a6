"""The composite GitHub Action (action.yml): well-formed, and its shell steps run for real
against `mcplock check` with a fake runner environment (GITHUB_STEP_SUMMARY, GITHUB_OUTPUT …)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import ROOT

ACTION = ROOT / "action.yml"
BIN = Path(sys.executable).parent


def _action() -> dict:
    return yaml.safe_load(ACTION.read_text(encoding="utf-8"))


def test_action_is_well_formed():
    a = _action()
    assert a["name"] and a["description"]
    assert a["runs"]["using"] == "composite"
    inputs = a["inputs"]
    for name in ("version", "path", "lockfile", "args", "sarif", "fail-on-drift"):
        assert name in inputs, name
        assert "description" in inputs[name] and "default" in inputs[name]
    for name, spec in inputs.items():
        assert set(spec) <= {"description", "required", "default", "deprecationMessage"}, name
    for name, spec in a["outputs"].items():
        assert spec["description"] and spec["value"].startswith("${{ steps."), name
    steps = a["runs"]["steps"]
    for step in steps:
        assert ("run" in step) != ("uses" in step), step
        if "run" in step:
            assert step["shell"] == "bash"  # composite run steps need an explicit shell
    used = set(re.findall(r"inputs\.([a-z-]+)", ACTION.read_text(encoding="utf-8")))
    assert used <= set(inputs), used - set(inputs)
    ids = {s.get("id") for s in steps}
    for ref in re.findall(r"steps\.([a-z-]+)\.outputs", ACTION.read_text(encoding="utf-8")):
        assert ref in ids, ref
    run = next(s for s in steps if s.get("id") == "run")["run"]
    assert '--report "markdown=' in run and "GITHUB_STEP_SUMMARY" in run and '--report "sarif=' in run
    assert run.count('mcplock "$MCPLOCK_COMMAND"') == 1  # one run, every report


def _expr(value: str, inputs: dict[str, str], outputs: dict[str, str]) -> str:
    def sub(m: re.Match[str]) -> str:
        e = m.group(1).strip()
        if e.startswith("inputs."):
            return inputs[e[7:]]
        if e.startswith("steps.run.outputs."):
            return outputs.get(e[18:], "")
        if e == "github.action_path":
            return str(ROOT)
        raise AssertionError(f"unknown expression {e}")

    return re.sub(r"\$\{\{(.*?)\}\}", sub, str(value))


def _run_action(tmp_path: Path, **overrides: str) -> tuple[int, dict[str, str], str, str]:
    """Run the action's `run` and `Decide` steps (not the install: mcplock is on PATH already)."""
    a = _action()
    inputs = {k: str(v.get("default", "")) for k, v in a["inputs"].items()}
    inputs.update(overrides)
    summary = tmp_path / "summary.md"
    gh_output = tmp_path / "github_output"
    runner_temp = tmp_path / "runner-temp"
    runner_temp.mkdir(exist_ok=True)
    summary.write_text("", encoding="utf-8")
    gh_output.write_text("", encoding="utf-8")
    outputs: dict[str, str] = {}
    log = ""
    code = 0
    for step in a["runs"]["steps"]:
        if step.get("id") != "run" and step.get("name") != "Decide":
            continue
        env = dict(os.environ)
        env.update(
            {
                "GITHUB_STEP_SUMMARY": str(summary),
                "GITHUB_OUTPUT": str(gh_output),
                "RUNNER_TEMP": str(runner_temp),
                "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
            }
        )
        env.update({k: _expr(v, inputs, outputs) for k, v in step.get("env", {}).items()})
        cwd = Path.cwd() / _expr(step.get("working-directory", "."), inputs, outputs)
        # as the runner does: `bash --noprofile --norc -eo pipefail {0}`
        r = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        log += r.stdout + r.stderr
        for line in gh_output.read_text(encoding="utf-8").splitlines():
            k, _, v = line.partition("=")
            outputs[k] = v
        code = r.returncode
        if code != 0:
            break
    return code, outputs, summary.read_text(encoding="utf-8"), log


def _tamper() -> None:
    text = Path("mcp.lock").read_text(encoding="utf-8")
    m = re.search(r'^description = "(.*)"$', text, re.M)
    assert m
    Path("mcp.lock").write_text(text.replace(m.group(0), 'description = "tampered"', 1), encoding="utf-8")


def test_action_steps_clean_then_failing(tmp_path):
    from lockdata import make_lock

    make_lock()
    code, outputs, summary, log = _run_action(tmp_path, command="check", sarif="true")
    assert code == 0, log
    assert outputs["exit-code"] == "0"
    assert summary.startswith("## ✅ mcplock check: clean")
    doc = json.loads(Path(outputs["sarif-file"]).read_text(encoding="utf-8"))
    assert doc["version"] == "2.1.0" and doc["runs"][0]["results"] == []

    _tamper()
    code, outputs, summary, log = _run_action(tmp_path, command="check", sarif="true")
    assert code == 1, log
    assert outputs["exit-code"] == "1"
    assert "mcplock check: 1 problem(s)" in summary and "hash\\-mismatch" not in summary
    assert re.search(r"^::error file=mcp\.lock,line=\d+,title=mcplock check/hash-mismatch", log, re.M), log
    doc = json.loads(Path("mcplock.sarif").read_text(encoding="utf-8"))
    assert [r["ruleId"] for r in doc["runs"][0]["results"]] == ["check/hash-mismatch"]

    code, outputs, _, log = _run_action(tmp_path, command="check", **{"fail-on-drift": "false", "annotations": "false"})
    assert code == 0, log
    assert outputs["exit-code"] == "1" and "::error" not in log


@pytest.mark.parametrize("bad", ["refresh", "diff; rm -rf /"])
def test_action_refuses_other_commands(tmp_path, bad):
    from lockdata import make_lock

    make_lock()
    code, _, _, log = _run_action(tmp_path, command=bad)
    assert code == 2 and "must be diff, check, audit, update, update-pr, renovate or surface" in log


def test_action_update_writes_the_pull_request_body(tmp_path):
    from lockdata import make_lock

    make_lock()  # a local server: nothing to move, no registry asked
    code, outputs, summary, log = _run_action(tmp_path, command="update")
    assert code == 0, log
    assert outputs["exit-code"] == "0"
    body = Path(outputs["report-file"]).read_text(encoding="utf-8")
    assert body.startswith("## mcplock update") and body == summary
    assert "No server of this lock runs a registry package" in body


def test_action_usage_error_fails(tmp_path):
    code, outputs, _, log = _run_action(tmp_path, command="check", lockfile="missing.lock")
    assert code == 2, log
    assert outputs["exit-code"] == "2"


COUNTER = """import os, sys
with open(sys.argv[1], "a") as fh:
    fh.write("probe\\n")
os.execv(sys.executable, [sys.executable, *sys.argv[2:]])
"""


def test_action_diff_probes_each_server_once_for_every_report(tmp_path, cli):
    """`diff` with the summary, annotations and SARIF: one launch of the server feeds all three."""
    import shutil

    from runner import SURFACES, stdio_command

    shutil.copy(SURFACES / "demo.json", "surface.json")
    Path("counter.py").write_text(COUNTER, encoding="utf-8")
    log = Path("probes.log").resolve()
    cmd = stdio_command(mode="benign", surface=Path("surface.json").resolve())
    r = cli(
        "add",
        "docs",
        "--yes",
        "--timeout",
        "10",
        "--",
        sys.executable,
        str(Path("counter.py").resolve()),
        str(log),
        *cmd[1:],
    )
    assert r.returncode == 0, r.stderr
    shutil.copy(SURFACES / "demo-rugpull.json", "surface.json")
    log.write_text("", encoding="utf-8")

    code, outputs, summary, out = _run_action(tmp_path, command="diff", sarif="true")
    assert log.read_text(encoding="utf-8").count("probe") == 1, out  # one probe, three reports
    assert code == 1 and outputs["exit-code"] == "1", out
    assert "mcplock diff: changes need review" in summary and "<details>" in summary  # the word diff
    assert re.search(r"^::error file=mcp\.lock,line=\d+,title=mcplock drift/tool-changed", out, re.M), out
    doc = json.loads(Path(outputs["sarif-file"]).read_text(encoding="utf-8"))
    assert {"drift/tool-changed", "drift/tool-added"} <= {r["ruleId"] for r in doc["runs"][0]["results"]}


def test_action_takes_a_policy_path(tmp_path):
    from lockdata import make_lock

    make_lock()
    Path("org-policy.toml").write_text('version = 1\n[tools]\ndeny = ["*delete*"]\n', encoding="utf-8")
    code, outputs, summary, log = _run_action(tmp_path, command="check", sarif="true", policy="org-policy.toml")
    assert code == 1, log
    assert "docs/delete\\_page" in summary or "docs/delete_page" in summary
    assert outputs["exit-code"] == "1"
    assert re.search(r"^::error file=mcp\.lock,line=\d+,title=mcplock check/policy/tools\.deny", log, re.M), log
    doc = json.loads(Path("mcplock.sarif").read_text(encoding="utf-8"))
    assert [r["ruleId"] for r in doc["runs"][0]["results"]] == ["check/policy/tools.deny"]
    Path("org-policy.toml").write_text("version = 1\n[tool]\n", encoding="utf-8")  # a typo: exit 2, never ignored
    code, outputs, _, log = _run_action(tmp_path, command="check", policy="org-policy.toml")
    assert code == 2 and outputs["exit-code"] == "2" and "unknown key `tool`" in log


def test_action_audit_joins_the_check_and_fails_on_malware_or_an_osv_outage(tmp_path, monkeypatch):
    """`audit: true` beside `check`: one more report in the summary, annotations, its own SARIF;
    malware fails the job, an OSV that does not answer fails it as `fail-on-unreachable` says."""
    import socket

    from osv_api import OsvApi
    from test_pins_offline import NPM_INTEGRITY, write_lock

    from mcplock.packages.pin import PackagePin

    pin = PackagePin("npm", "postmark-mcp", "1.0.16", NPM_INTEGRITY)
    write_lock(postmark=("npx", ["-y", "postmark-mcp"], pin))
    with OsvApi() as osv:
        monkeypatch.setenv("MCPLOCK_OSV_URL", osv.url)
        code, outputs, summary, log = _run_action(tmp_path, command="check", audit="true", sarif="true")
    assert code == 1, log
    assert outputs["exit-code"] == "0" and outputs["audit-exit-code"] == "1"
    assert "mcplock check: clean" in summary and "mcplock audit" in summary
    assert "| MAL-2025-47604 | **MALWARE** |" in summary
    assert re.search(r"^::error file=mcp\.lock,line=\d+,title=mcplock audit/MAL-2025-47604::", log, re.M), log
    doc = json.loads(Path(outputs["audit-sarif-file"]).read_text(encoding="utf-8"))
    assert [r["ruleId"] for r in doc["runs"][0]["results"]] == ["MAL-2025-47604"]

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    monkeypatch.setenv("MCPLOCK_OSV_URL", f"http://127.0.0.1:{s.getsockname()[1]}")
    s.close()
    code, outputs, summary, log = _run_action(tmp_path, command="audit")
    assert code == 3 and outputs["audit-exit-code"] == "3", log
    assert "OSV did not answer" in log and "Unknown" in summary
    code, outputs, _, log = _run_action(tmp_path, command="check", audit="true", **{"fail-on-unreachable": "false"})
    assert code == 0 and outputs["audit-exit-code"] == "3", log
