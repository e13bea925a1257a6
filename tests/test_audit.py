"""`mcplock audit` through the console script against the OSV stand-in (fixtures/osv_api.py,
real HTTP on 127.0.0.1, seeded with real records): malware first, vulnerabilities with severity
and fix, the --fail-on gate, every format (SARIF against its schema), an OSV that is down or
hostile (unknown, exit 3, never "no advisory"), and nothing but names and versions sent."""

from __future__ import annotations

import copy
import json
import re
import socket

import pytest
from formats_samples import _validate_sarif
from osv_api import OsvApi, real_records
from test_pins_offline import write_lock

from mcplock.packages.pin import PackagePin

from conftest import run_cli

SECRET_ARG = "/home/alice/secret-project"
SERVERS = {
    "postmark": ("npx", ["-y", "postmark-mcp"], PackagePin("npm", "postmark-mcp", "1.0.16")),
    "fs": ("npx", ["-y", "@modelcontextprotocol/server-filesystem@2025.3.28", SECRET_ARG], None),
    "remote": (
        "npx",
        ["-y", "mcp-remote", "https://x.example/mcp?token=tok123"],
        PackagePin("npm", "mcp-remote", "0.1.15"),
    ),
    "git": ("uvx", ["mcp-server-git==2025.7.1"], PackagePin("pypi", "mcp-server-git", "2025.7.1")),
    "time": ("uvx", ["mcp-server-time"], PackagePin("pypi", "mcp-server-time", "2026.10.19")),
    "floating": ("npx", ["-y", "some-pkg"], None),
    # behind a wrapper no pin reaches it, but it launches an exact release: that release is asked about
    "wrapped": ("sh", ["-c", "npx -y mcp-remote@0.1.15 https://x.example/mcp"], None),
    "local": ("node", ["server.js"], None),
}


def audit(osv_env: dict[str, str], *args: str):
    return run_cli("audit", *args, env=osv_env)


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_malware_first_then_vulnerabilities_with_severity_and_fix(project):
    write_lock(**SERVERS)
    with OsvApi() as osv:
        r = audit(osv.env())
        sent = [body for _m, _p, _h, body in osv.calls("POST")]
        headers = [h for _m, _p, h, _b in osv.requests]
    assert r.returncode == 1, r.stderr
    out = r.stdout
    assert out.index("MAL-2025-47604") < out.index("GHSA-6xpm-ggf7-wc3p") < out.index("GHSA-hc55-p739-j48w")
    assert "MALWARE" in out and "critical 9.6" in out and "fixed in 0.1.16" in out and "high 7.3" in out
    assert "no advisory" in out.split("time", 1)[1].splitlines()[0]
    assert "not asked: runs npm package some-pkg with no exact version" in out
    assert "wrapped  npm mcp-remote@0.1.15  (launched without a pin)" in out
    # only ecosystems, names and versions left the machine: no argument, path, URL or token
    assert [sorted((q["package"]["name"], q["version"]) for q in b["queries"]) for b in sent] == [
        sorted(
            [
                ("@modelcontextprotocol/server-filesystem", "2025.3.28"),
                ("mcp-remote", "0.1.15"),
                ("mcp-server-git", "2025.7.1"),
                ("mcp-server-time", "2026.10.19"),
                ("postmark-mcp", "1.0.16"),
            ]
        )
    ]
    dumped = json.dumps([sent, headers])
    assert SECRET_ARG not in dumped and "tok123" not in dumped and "server.js" not in dumped


def test_fail_on_sets_the_gate_and_malware_always_fails(project):
    write_lock(git=SERVERS["git"], time=SERVERS["time"])
    with OsvApi() as osv:
        low, high = audit(osv.env()), audit(osv.env(), "--fail-on", "high", "--format", "json")
        write_lock(git=SERVERS["git"], postmark=SERVERS["postmark"])
        only_malware = audit(osv.env(), "--fail-on", "malware")
    assert low.returncode == 1, low.stdout
    assert high.returncode == 0, high.stdout  # medium vulnerabilities, --fail-on high
    doc = json.loads(high.stdout)
    git = next(x for x in doc["releases"] if x["server"] == "git")
    assert git["state"] == "vulnerable" and {a["fails"] for a in git["advisories"]} == {False}
    assert doc["exit_code"] == 0 and doc["summary"]["vulnerabilities-medium"] == 3
    assert only_malware.returncode == 1 and "MAL-2025-47604" in only_malware.stdout


def test_json_markdown_and_sarif(project):
    write_lock(**SERVERS)
    with OsvApi() as osv:
        j = audit(osv.env(), "--format", "json")
        md = audit(osv.env(), "--format", "markdown")
        sarif = audit(osv.env(), "--format", "sarif", "-o", "audit.sarif")
    doc = json.loads(j.stdout)
    assert doc["command"] == "audit" and doc["version"] == 1 and doc["exit_code"] == 1 == j.returncode
    states = {x["server"]: x["state"] for x in doc["releases"]}
    assert states == {
        "postmark": "malware",
        "fs": "vulnerable",
        "remote": "vulnerable",
        "git": "vulnerable",
        "time": "clean",
        "floating": "not-asked",
        "local": "not-asked",
        "wrapped": "vulnerable",
    }
    (mal,) = next(x for x in doc["releases"] if x["server"] == "postmark")["advisories"]
    assert mal["kind"] == "malware" and mal["severity"] == "critical" and mal["fails"]
    assert md.returncode == 1
    rows = [ln for ln in md.stdout.splitlines() if ln.startswith("| `")]
    assert "MAL-2025-47604" in rows[0] and "**MALWARE**" in rows[0]
    assert sarif.returncode == 1 and sarif.stdout == ""
    s = json.loads((project / "audit.sarif").read_text())
    _validate_sarif(s)
    rules = {r["id"]: r for r in s["runs"][0]["tool"]["driver"]["rules"]}
    assert rules["GHSA-6xpm-ggf7-wc3p"]["properties"]["security-severity"] == "9.6"
    assert rules["MAL-2025-47604"]["properties"]["security-severity"] == "10.0"
    lock_lines = (project / "mcp.lock").read_text().splitlines()
    for res in s["runs"][0]["results"]:
        line = lock_lines[res["locations"][0]["physicalLocation"]["region"]["startLine"] - 1]
        assert (
            line == f"[server.{res['properties']['server']}.package]"
            or line == f"[server.{res['properties']['server']}]"
        )


def _closed_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


@pytest.mark.parametrize("mode", ["down", "garbage", "huge"])
def test_osv_down_or_hostile_is_unknown_exit_3_never_clean(project, mode):
    write_lock(time=SERVERS["time"], floating=SERVERS["floating"])
    with OsvApi() as osv:
        env = osv.env()
        if mode == "down":
            env = {"MCPLOCK_OSV_URL": f"http://127.0.0.1:{_closed_port()}"}
        else:
            setattr(osv, mode, True)
        j = audit(env, "--format", "json")
        r = audit(env) if mode == "down" else j
    assert r.returncode == 3 == j.returncode, r.stdout + r.stderr
    if mode == "down":
        assert "UNKNOWN: OSV did not answer" in r.stdout and "no advisory" not in r.stdout
    assert "Traceback" not in r.stderr + j.stderr
    (time,) = [x for x in json.loads(j.stdout)["releases"] if x["server"] == "time"]
    assert time["state"] == "unknown" and time["reason"] and "advisories" not in time


def test_known_malware_still_fails_when_another_release_is_unknown(project):
    write_lock(postmark=SERVERS["postmark"], remote=SERVERS["remote"])
    with OsvApi() as osv:
        osv.fail["/v1/vulns/GHSA-6xpm"] = 503
        r = audit(osv.env(), "--format", "json")
    doc = json.loads(r.stdout)
    assert r.returncode == 1
    assert {x["server"]: x["state"] for x in doc["releases"]} == {"postmark": "malware", "remote": "unknown"}


def test_escapes_in_advisory_text_never_reach_the_terminal_or_markdown_raw(project):
    rec = copy.deepcopy(real_records()["GHSA-6xpm-ggf7-wc3p"])
    rec["summary"] = "\x1b]8;;https://evil.example\x07click\x1b]8;;\x07 [x](javascript:alert(1)) @org/team <img src=x>"
    rec["aliases"] = ["CVE-2025-6514\x1b[2J"]
    write_lock(remote=SERVERS["remote"])
    with OsvApi({"GHSA-6xpm-ggf7-wc3p": rec}) as osv:
        text = audit(osv.env())
        md = audit(osv.env(), "--format", "markdown")
    assert text.returncode == 1 == md.returncode
    for out in (text.stdout, md.stdout):
        assert "\x1b" not in out and "\x07" not in out
    assert "\\x1b" in text.stdout
    for raw in ("<img", "](javascript", "[x]"):  # markup only escaped: `\<img`, `\](`
        assert re.search(r"(?<!\\)" + re.escape(raw), md.stdout) is None, raw
    assert "@org" not in md.stdout  # a mention would ping people in a PR comment


def test_bad_fail_on_is_a_usage_error(project):
    write_lock(time=SERVERS["time"])
    r = run_cli("audit", "--fail-on", "moderate")
    assert r.returncode == 2 and "unknown --fail-on level" in r.stderr and "Traceback" not in r.stderr
