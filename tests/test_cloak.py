"""`mcplock diff --cloak` (docs/protocol.md, "Cloaking"): each server probed again as each
well-known host announces itself and once more after a few requests in one session, against the
repo's cloaking server (fixtures/cloak_fixture.py) in both eras: whoever sees another listing is
named in a critical finding (exit 1); a server that answers everyone alike stays quiet."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "fixtures" / "cloak_fixture.py"


HOSTS = {
    "Claude Code (clientInfo `claude-code` 2.1.332)",
    "Cursor (clientInfo `cursor-vscode` 1.0.0)",
    "Codex (clientInfo `codex-mcp-client` 0.58.0)",
    "Gemini CLI (clientInfo `gemini-cli-mcp-client` 0.61.0)",
    "VS Code (clientInfo `Visual Studio Code` 1.106.0)",
}


def _add(cli, *flags: str) -> None:
    r = cli("add", "notes", "--yes", "--", sys.executable, str(FIXTURE), *flags)
    assert r.returncode == 0, r.stderr


def _cloak(cli, *extra: str) -> tuple[int, dict]:
    r = cli("diff", "--cloak", "--format", "json", *extra)
    return r.returncode, json.loads(r.stdout)


@pytest.mark.parametrize(
    ("era", "by", "who"),
    [
        ("legacy", "name:cursor-vscode", {"Cursor (clientInfo `cursor-vscode` 1.0.0)"}),
        ("modern", "name:Visual Studio Code", {"VS Code (clientInfo `Visual Studio Code` 1.106.0)"}),
        ("modern", "lacks:roots", {"Codex (clientInfo `codex-mcp-client` 0.58.0)"}),
        # every identity pings and lists again in its session, as its host does (issue 47.8)
        ("legacy", "requests:1", {"mcplock, asked again (the same session, after 3 more listings)", *HOSTS}),
    ],
)
def test_a_server_that_answers_one_host_otherwise_is_named(cli, era, by, who):
    _add(cli, "--era", era, "--by", by)
    assert load_tools() == ["search_notes"]  # the probe's answer: the honest one
    plain = cli("diff", "--format", "json")
    assert plain.returncode == 0 and "cloaking" not in json.loads(plain.stdout)["servers"][0]  # no --cloak: as before
    code, d = _cloak(cli)
    assert code == 1 and d["exit_code"] == 1
    found = d["servers"][0]["cloaking"]
    assert {f["identity"] for f in found} == who
    assert {(f["kind"], f["name"], f["change"], f["severity"]) for f in found} == {
        ("tool", "search_notes", "changed", "critical"),
        ("tool", "sync_notes", "only-here", "critical"),
    }
    assert d["servers"][0]["changes"] == []  # not drift of the lock: another answer to another host
    if by != "name:cursor-vscode":
        return  # every report format once (each run probes six times)
    text = cli("diff", "--cloak")
    label = next(iter(who)).split(" (")[0]
    assert text.returncode == 1 and "cloaked tool sync_notes" in text.stdout and label in text.stdout
    md = cli("diff", "--cloak", "--format", "markdown")
    assert md.returncode == 1 and "Cloaking probe" in md.stdout and "sync_notes" in md.stdout
    gh = cli("diff", "--cloak", "--format", "github")
    assert gh.returncode == 1 and "::error" in gh.stdout
    assert "title=mcplock cloaking (critical)%3A notes/sync_notes" in gh.stdout
    sarif = json.loads(cli("diff", "--cloak", "--format", "sarif").stdout)
    results = [r for r in sarif["runs"][0]["results"] if r["ruleId"] == "cloaking"]
    assert len(results) == 2 and all(r["level"] == "error" for r in results)


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_a_server_that_answers_everyone_alike_stays_quiet(cli, era):
    _add(cli, "--era", era)
    code, d = _cloak(cli)
    assert code == 0 and d["servers"][0]["cloaking"] == []
    text = cli("diff", "--cloak")
    assert text.returncode == 0 and "cloaked" not in text.stdout
    assert "0 cloaking finding(s)" in text.stdout  # the summary counts them (issue 42.2)


def test_the_identities_are_the_hosts_own():
    """What each identity announces is what that host sends (docs/protocol.md lists the sources)."""
    from mcplock.probe.cloak import IDENTITIES

    names = {i.label: i.name for i in IDENTITIES}
    assert names == {
        "Claude Code": "claude-code",
        "Cursor": "cursor-vscode",
        "Codex": "codex-mcp-client",
        "Gemini CLI": "gemini-cli-mcp-client",
        "VS Code": "Visual Studio Code",
    }
    hostcli = ROOT / "tests" / "hostcli" / "node_modules"
    gemini = hostcli / "@google" / "gemini-cli" / "package.json"
    if gemini.is_file():  # the installed host's own client name (make setup installs it)
        bundle = gemini.parent / "bundle"
        assert any('name: "gemini-cli-mcp-client"' in p.read_text(errors="replace") for p in bundle.glob("*.js"))


def load_tools() -> list[str]:
    from mcplock.lock.read import load

    return sorted(load("mcp.lock").servers["notes"].tools)


def test_the_actions_cloak_input_runs_diff_cloak(cli, tmp_path):
    from test_formats_ci import _run_action

    _add(cli, "--by", "name:claude-code")
    assert cli("trust", "notes").returncode == 0
    code, outputs, summary, log = _run_action(tmp_path, command="diff")
    assert code == 0 and outputs["exit-code"] == "0", log  # without cloak: the probe's answer is the lock's
    code, outputs, summary, log = _run_action(tmp_path, command="diff", cloak="true")
    assert code == 1 and outputs["exit-code"] == "1", log
    assert "Cloaking probe" in summary and "Claude Code" in summary and "sync_notes" in summary
    code, outputs, _, log = _run_action(tmp_path, command="check", cloak="true")
    assert code == 2 and "input 'cloak' applies to 'command: diff'" in log
