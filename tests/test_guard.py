"""`mcplock run` driven as a host drives it, over real pipes, against the fixture servers."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest
from guardhost import INIT, Host
from setupcache import locked

from mcplock.lock.read import load

from conftest import MCPLOCK
from runner import SURFACES, http_fixture, processes_here, stdio_command

CALLS = "calls.jsonl"


def _surface(name: str = "demo.json") -> None:
    tmp = Path("surface.json.tmp")
    shutil.copy(SURFACES / name, tmp)
    os.replace(tmp, "surface.json")  # whole, at once: the fixture re-reads it per request


def _lock(cli, *fixture_args: str, mode: str = "benign", policy: str = "none") -> None:
    _surface()
    cmd = stdio_command(mode=mode, surface="surface.json", extra_args=["--call-log", CALLS, *fixture_args])
    locked(("add", "docs", "--yes", "--policy", policy, "--timeout", "20", "--", *cmd))


def _calls() -> list[dict]:
    p = Path(CALLS)
    return [json.loads(line) for line in p.read_text().splitlines()] if p.exists() else []


def _locked_tools() -> list[dict]:
    srv = load("mcp.lock").servers["docs"]
    return [srv.tools[k].definition for k in sorted(srv.tools)]


def _text(resp: dict) -> str:
    return " ".join(c.get("text", "") for c in resp["result"]["content"])


def test_serves_the_lock_byte_exact_and_forwards_an_allowed_call(cli):
    _lock(cli)
    with Host("docs") as h:
        init = h.initialize()["result"]
        srv = load("mcp.lock").servers["docs"]
        assert init["instructions"] == srv.instructions.definition
        assert init["serverInfo"] == srv.server_info and "tools" in init["capabilities"]
        tools = h.request("tools/list")
        assert tools["result"]["tools"] == _locked_tools()
        raw = next(line for line in h.raw if b'"tools":[' in line)
        assert json.dumps(_locked_tools(), ensure_ascii=False, separators=(",", ":")).encode() in raw
        resp = h.call("search_docs", {"query": "install"})
        assert resp["result"]["isError"] is False and "called search_docs" in _text(resp)
        assert _calls() == [{"name": "search_docs", "arguments": {"query": "install"}}]
        assert h.close() == 0


def test_host_garbage_gets_a_parse_error_and_the_session_goes_on(cli):
    _lock(cli)
    with Host("docs") as h:
        h.initialize()
        h.write(b"this is not json\n")
        err = h.wait_for(lambda m: "error" in m)
        assert err["error"]["code"] == -32700 and err["id"] is None
        h.write(b'{"no": "jsonrpc"}\n')
        assert h.wait_for(lambda m: "error" in m)["error"]["code"] == -32600
        assert h.call("search_docs", {"query": "x"})["result"]["isError"] is False


def test_drift_ends_in_a_json_rpc_answer_and_a_list_changed(cli):
    _lock(cli, mode="chatty")
    with Host("docs") as h:
        h.initialize({"roots": {"listChanged": True}})
        assert len(h.request("tools/list")["result"]["tools"]) == 3
        _surface("demo-rugpull.json")
        call = h.request_msg(
            "tools/call", {"name": "delete_page", "arguments": {"page_id": "a"}, "_meta": {"progressToken": "tok-1"}}
        )
        h.send(call)
        progress = h.wait_for(lambda m: m.get("method") == "notifications/progress")
        assert progress["params"]["progressToken"] == "tok-1"
        log = h.wait_for(lambda m: m.get("method") == "notifications/message")
        assert log["params"]["data"] == "chatty"
        roots = h.wait_for(lambda m: m.get("method") == "roots/list")
        assert roots["id"] != "fx-roots-1"  # remapped: the guard owns the ids it uses towards the host
        h.send({"jsonrpc": "2.0", "id": roots["id"], "result": {"roots": [{"uri": "file:///w", "name": "w"}]}})
        resp = h.response(call["id"])
        assert "file:///w" in _text(resp)
        # the fixture said list_changed; the guard re-verified and tells the host what it may see changed
        h.wait_for(lambda m: m.get("method") == "notifications/tools/list_changed")
        assert [t["name"] for t in h.request("tools/list")["result"]["tools"]] == ["delete_page"]
        refused = h.call("search_docs", {"query": "x"})
        assert refused["result"]["isError"] is True
    assert [c["name"] for c in _calls()] == ["delete_page"]


@pytest.mark.parametrize("mode", ["crash", "die-after-init", "huge"])
def test_unreachable_upstream_answers_initialize_with_an_error(cli, mode):
    _lock(cli)
    cmd = stdio_command(mode=mode, surface="surface.json")
    Path("mcp.lock").write_text(Path("mcp.lock").read_text().replace('"benign"', f'"{mode}"'))
    assert cli("trust").returncode == 0  # an edited command runs once trusted here
    assert mode in " ".join(cmd) and f'"{mode}"' in Path("mcp.lock").read_text()
    with Host("docs") as h:
        h.write(
            b"".join(
                json.dumps(m).encode() + b"\n"
                for m in (
                    h.request_msg(
                        "initialize",
                        {
                            "protocolVersion": "2025-11-25",
                            "capabilities": {},
                            "clientInfo": {"name": "t", "version": "1"},
                        },
                    ),
                    h.request_msg("tools/list"),
                )
            )
        )
        first, second = h.next(), h.next()
        assert first["error"]["code"] == -32000 and "could not be reached" in first["error"]["message"]
        assert second["error"]["code"] == -32000
        assert h.close() == 3


def test_upstream_dying_mid_call_gets_the_host_a_prompt_error_and_no_orphan(cli):
    _lock(cli)
    Path("mcp.lock").write_text(Path("mcp.lock").read_text().replace('"benign"', '"die-on-call"'))
    assert cli("trust").returncode == 0  # an edited command runs once trusted here
    with Host("docs") as h:
        h.initialize()
        resp = h.call("search_docs", {"query": "x"})
        assert resp["error"]["code"] == -32000 and "exited with code 1" in resp["error"]["message"]
        assert "waited for tools/call" in resp["error"]["message"]
        assert h.proc.wait(timeout=30) == 3
    assert not _fixture_processes()


def test_upstream_hanging_mid_call_times_out_into_an_error(cli):
    _lock(cli)
    Path("mcp.lock").write_text(Path("mcp.lock").read_text().replace('"benign"', '"hang-on-call"'))
    assert cli("trust").returncode == 0  # an edited command runs once trusted here
    with Host("docs", "--request-timeout", "1") as h:
        h.initialize()
        resp = h.call("search_docs", {"query": "x"})
        assert resp["error"]["code"] == -32000 and "no answer within 1 s" in resp["error"]["message"]
        assert h.request("tools/list")["result"]["tools"]  # the guard still serves the lock
        assert h.close() == 0
    assert not _fixture_processes()


def test_the_upstream_starts_before_the_host_speaks_and_ends_with_a_host_that_leaves(cli):
    """The server's start overlaps the guard's own (docs/performance.md, "The guard's start"); a host that goes
    away before `initialize` leaves no process behind."""
    _lock(cli)
    with Host("docs") as h:
        deadline = time.monotonic() + 20
        while not _fixture_processes() and time.monotonic() < deadline:  # nothing sent to the guard
            time.sleep(0.02)
        assert _fixture_processes()
        assert h.close() == 0
    assert not _fixture_processes()
    assert _calls() == []


@pytest.mark.parametrize("stdin", ["pipe", "file"])
def test_a_host_that_closes_stdin_at_once_still_gets_its_answers(cli, tmp_path, stdin):
    """Requests written, then stdin closed (`printf … | mcplock run docs`, or `< file`, read by a
    thread since a file is no pipe): each request received before the end is still answered,
    after the verification they waited for, then the session ends."""
    _lock(cli)
    msgs = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {"name": "search_docs", "arguments": {"query": "x"}},
        },
    ]
    data = "".join(json.dumps(m) + "\n" for m in msgs).encode()
    if stdin == "pipe":
        p = subprocess.run([MCPLOCK, "run", "docs"], input=data, capture_output=True, timeout=60)
    else:
        script = tmp_path / "host.jsonl"
        script.write_bytes(data)
        with script.open("rb") as f:
            p = subprocess.run([MCPLOCK, "run", "docs"], stdin=f, capture_output=True, timeout=60)
    assert p.returncode == 0, p.stderr
    answers = {m["id"]: m for m in map(json.loads, p.stdout.splitlines())}
    assert sorted(answers) == [1, 2, 3]
    assert answers[2]["result"]["tools"] == _locked_tools()
    assert answers[3]["result"]["isError"] is False and [c["arguments"] for c in _calls()] == [{"query": "x"}]
    assert not _fixture_processes()


def test_sigterm_ends_the_guard_and_the_servers_whole_group(cli):
    """MCP's stdio shutdown: the host closes stdin, then sends SIGTERM. The guard then kills the
    server's process group, here a server that outlives its stdin (`…; exec sleep`)."""
    _surface()
    fixture = " ".join(stdio_command(surface="surface.json"))
    r = cli("add", "docs", "--yes", "--policy", "none", "--", "bash", "-c", f"{fixture}; exec sleep 61")
    assert r.returncode == 0, r.stderr
    with Host("docs") as h:
        h.initialize()
        h.proc.send_signal(signal.SIGTERM)
        assert h.proc.wait(timeout=30) == 143
        assert "terminated by SIGTERM" in h.stderr()
    deadline = time.monotonic() + 5
    while processes_here("sleep") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not processes_here("sleep")


@pytest.mark.parametrize("path,transport", [("/mcp", "http"), ("/sse", "sse")])
def test_remote_upstreams(cli, path, transport):
    _surface()
    with http_fixture(surface="surface.json", extra_args=["--call-log", CALLS]) as base:
        r = cli("add", "docs", "--yes", "--policy", "none", "--transport", transport, base + path)
        assert r.returncode == 0, r.stderr
        with Host("docs") as h:
            h.initialize()
            assert h.request("tools/list")["result"]["tools"] == _locked_tools()
            assert h.call("search_docs", {"query": "x"})["result"]["isError"] is False
            _surface("demo-rugpull.json")
            assert h.call("run_shell", {})["result"]["isError"] is True
            assert [t["name"] for t in h.request("tools/list")["result"]["tools"]] == ["delete_page"]
            assert h.close() == 0
    assert [c["name"] for c in _calls()] == ["search_docs"]


def test_drift_evidence_is_recorded_outside_the_lock_and_shown(cli, tmp_path):
    surface = {
        "tools": [
            {
                "name": "reject_params",
                "description": "x",
                "inputSchema": {"type": "object", "properties": {"a": {"type": "string"}}},
            }
        ]
    }
    Path("surface.json").write_text(json.dumps(surface))
    cmd = stdio_command(surface="surface.json")
    assert cli("add", "docs", "--yes", "--policy", "none", "--", *cmd).returncode == 0
    before = Path("mcp.lock").read_bytes()
    state = tmp_path / "state"
    env = {"MCPLOCK_STATE_DIR": str(state)}
    with Host("docs", env=env) as h:
        h.initialize()
        resp = h.call("reject_params", {"a": "x"})
        assert resp["error"]["code"] == -32602  # the upstream's answer, relayed
        h.close()
        assert "the lock and the server differ" in h.stderr()
    assert Path("mcp.lock").read_bytes() == before
    assert len(list(state.glob("drift-*.json"))) == 1
    r = cli("list", "--format", "json", env=env)
    ev = json.loads(r.stdout)["drift_evidence"]
    assert [(e["server"], e["tool"], e["code"]) for e in ev] == [("docs", "reject_params", -32602)]
    r = cli("check", env=env)
    assert r.returncode == 0 and "drift evidence: `docs/reject_params`" in r.stderr


def _fixture_processes() -> list[str]:
    """Fixture servers started from this test's directory (none is killed)."""
    return processes_here("mcp_fixture.py")
