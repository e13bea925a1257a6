"""`mcplock run` and `mcplock call` in both protocol eras (docs/protocol.md): a host on the current
Python SDK's `Client` (mode auto: server/discover first) through the guard, a legacy host, the
modern-only fixture server and the legacy one upstream. Real processes, real pipes."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
from pathlib import Path

import pytest
from guardhost import INIT, Host
from setupcache import locked

from mcplock.lock.read import load

from conftest import MCPLOCK
from runner import FIXTURES_DIR, SURFACES, stdio_command

pytestmark = pytest.mark.timeout(120)

MODERN = FIXTURES_DIR / "modern_fixture.py"
CALLS = "calls.jsonl"
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
    "io.modelcontextprotocol/clientInfo": {"name": "modern-host", "version": "1"},
}


def _surface(name: str) -> None:
    tmp = Path("surface.json.tmp")
    shutil.copy(SURFACES / name, tmp)
    os.replace(tmp, "surface.json")


def _lock(cli, upstream: str, *extra: str) -> None:
    _surface("demo.json")
    if upstream == "modern":
        cmd = [sys.executable, str(MODERN), "stdio", "--surface", "surface.json", "--call-log", CALLS, *extra]
    else:
        cmd = stdio_command(surface="surface.json", extra_args=["--call-log", CALLS, *extra])
    locked(("add", "docs", "--yes", "--policy", "none", "--timeout", "30", "--", *cmd), ("disable", "docs/delete_page"))


def _calls() -> list[dict]:
    p = Path(CALLS)
    return [json.loads(line) for line in p.read_text().splitlines()] if p.exists() else []


async def _sdk_host(tool: str, args: dict) -> tuple[list[str], str]:
    """The current SDK's Client (mode auto) through `mcplock run docs`: tools seen, a call's text."""
    from mcp.client import Client
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(command=MCPLOCK, args=["run", "docs"], env=dict(os.environ))
    async with asyncio.timeout(5):  # generous, and far below the SDK's 10 s discover fallback
        async with Client(params) as client:
            names = [t.name for t in (await client.list_tools()).tools]
    async with Client(params) as client:
        res = await client.call_tool(tool, args)
    return names, " ".join(getattr(c, "text", "") for c in res.content)


@pytest.mark.parametrize("upstream", ["modern", "legacy"])
def test_a_modern_sdk_host_connects_at_once_and_sees_only_accepted_tools(cli, upstream):
    _lock(cli, upstream)
    locked = sorted(load("mcp.lock").servers["docs"].tools)
    names, text = asyncio.run(_sdk_host("search_docs", {"query": "install"}))
    assert sorted(names) == sorted(n for n in locked if n != "delete_page")
    assert "called search_docs" in text
    assert [c["name"] for c in _calls()] == ["search_docs"]


def test_a_modern_host_is_served_at_2026_07_28_and_a_legacy_host_at_2025_11_25(cli):
    _lock(cli, "modern")
    with Host("docs") as h:  # modern: discover answered from the lock, requests with the envelope
        d = h.request("server/discover", {"_meta": ENVELOPE})["result"]
        assert "2026-07-28" in d["supportedVersions"] and "tools" in d["capabilities"]
        assert d["_meta"]["io.modelcontextprotocol/serverInfo"] == load("mcp.lock").servers["docs"].server_info
        tools = h.request("tools/list", {"_meta": ENVELOPE})["result"]
        assert tools["resultType"] == "complete" and "ttlMs" in tools and "cacheScope" in tools
        assert "delete_page" not in [t["name"] for t in tools["tools"]]
        res = h.request("tools/call", {"name": "search_docs", "arguments": {"query": "x"}, "_meta": ENVELOPE})
        assert res["result"]["resultType"] == "complete"
        refused = h.request("tools/call", {"name": "delete_page", "arguments": {"page_id": "x"}, "_meta": ENVELOPE})
        assert refused["result"]["isError"] is True  # a refusal as an isError result, never a reserved code
        assert h.close() == 0
    with Host("docs") as h:  # legacy: the same modern-only upstream, served at 2025-11-25
        init = h.request("initialize", INIT)["result"]
        assert init["protocolVersion"] == "2025-11-25"
        h.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        assert "resultType" not in h.request("tools/list")["result"]
        assert "called search_docs" in json.dumps(h.call("search_docs", {"query": "y"}))
        assert h.close() == 0
    # the modern-only upstream got the envelope on every call (it refuses anything else)
    assert [c["name"] for c in _calls()] == ["search_docs", "search_docs"]


# a modern host's subscriptions/listen, the upstream's own and the re-verify it sets off:
# tests/test_guard_memory.py::test_a_modern_host_gets_change_notifications_only_on_its_subscription


@pytest.mark.parametrize("upstream", ["modern", "legacy"])
def test_mcplock_call_in_both_eras(cli, upstream):
    _lock(cli, upstream)
    r = cli("call", "docs/search_docs", "--args", '{"query": "q"}')
    assert r.returncode == 0, r.stderr
    assert "called search_docs" in r.stdout
    assert cli("call", "docs/delete_page", "--args", '{"page_id": "p"}').returncode == 1
    assert [c["name"] for c in _calls()] == ["search_docs"]


def test_x_mcp_header_over_http_mirrored_and_an_invalid_tool_never_used(cli, tmp_path):
    from runner import listening

    surface = {
        "tools": [
            {
                "name": "route",
                "description": "Route a query.",
                "inputSchema": {
                    "type": "object",
                    "properties": {"region": {"type": "string", "x-mcp-header": "Region"}, "q": {"type": "string"}},
                },
            },
            {
                "name": "broken",
                "description": "Score it.",
                "inputSchema": {"type": "object", "properties": {"score": {"type": "number", "x-mcp-header": "Score"}}},
            },
        ]
    }
    Path("surface.json").write_text(json.dumps(surface))
    calls = tmp_path / "http-calls.jsonl"
    cmd = [sys.executable, str(MODERN), "http", "--port", "0", "--surface", "surface.json", "--call-log", str(calls)]
    with listening(cmd) as started:
        url = started.lines[0][1] + "/mcp"
        r = cli("add", "web", url, "--yes", "--policy", "none")
        assert r.returncode == 0, r.stderr
        assert "invalid x-mcp-header" in r.stdout + r.stderr  # the finding, shown when it is added
        r = cli("call", "web/broken", "--args", '{"score": 1.5}')
        assert r.returncode == 1 and "x-mcp-header" in r.stderr
        r = cli("call", "web/route", "--args", '{"region": "us-west1", "q": "x"}')
        assert r.returncode == 0, r.stderr
        with Host("web") as h:
            h.request("server/discover", {"_meta": ENVELOPE})
            names = [t["name"] for t in h.request("tools/list", {"_meta": ENVELOPE})["result"]["tools"]]
            assert names == ["route"]
            res = h.request("tools/call", {"name": "broken", "arguments": {"score": 2}, "_meta": ENVELOPE})
            assert res["result"]["isError"] is True
            assert h.close() == 0
    logged = [json.loads(line) for line in calls.read_text().splitlines()]
    assert [c["name"] for c in logged] == ["route"]
    assert logged[0]["headers"]["Mcp-Param-Region"] == "us-west1"
    assert logged[0]["headers"]["Mcp-Name"] == "route" and "Mcp-Param-Q" not in logged[0]["headers"]


async def _sdk_host_answering(tool: str, args: dict) -> tuple[list[str], str]:
    """The current SDK's Client through `mcplock run docs`, answering elicitations: the messages
    it was asked and the call's text."""
    from mcp.client import Client
    from mcp.client.stdio import StdioServerParameters
    from mcp_types import ElicitResult

    asked: list[str] = []

    async def answer(ctx, params):
        asked.append(params.message)
        return ElicitResult(action="accept", content={"room": "Orion", "seats": 3})

    params = StdioServerParameters(command=MCPLOCK, args=["run", "docs"], env=dict(os.environ))
    async with asyncio.timeout(60):
        async with Client(params, elicitation_callback=answer) as client:
            res = await client.call_tool(tool, args)
    return asked, " ".join(getattr(c, "text", "") for c in res.content)


def test_a_legacy_servers_question_reaches_a_modern_host_as_input_required(cli):
    # the legacy fixture asks `elicitation/create` during every call; a 2026-07-28 host takes no
    # server requests: the guard answers the call input_required with that question, and the
    # host's retry answers the server and gets the original call's result
    _lock(cli, "legacy", "--mode", "elicit")
    asked, text = asyncio.run(_sdk_host_answering("search_docs", {"query": "rooms"}))
    assert asked == ["[server `docs` asks] Book the meeting room?"]  # the server's, never the guard's
    assert text == 'fixture: called search_docs elicited: {"action":"accept","content":{"room":"Orion","seats":3}}'
    assert [c["name"] for c in _calls()] == ["search_docs"]  # one call upstream: the retry was not sent


def test_a_modern_sdk_host_lists_a_legacy_servers_resources(cli):
    # a 2025-11-25 server's resources/list (and resources/read) answers carry no caching fields;
    # a 2026-07-28 host requires them (the SDK refuses the answer without): the guard adds them
    async def host() -> list[str]:
        from mcp.client import Client
        from mcp.client.stdio import StdioServerParameters

        params = StdioServerParameters(command=MCPLOCK, args=["run", "cal"], env=dict(os.environ))
        async with asyncio.timeout(60), Client(params) as client:
            return [str(r.uri) for r in (await client.list_resources()).resources]

    assert cli("add", "cal", "--yes", "--policy", "none", "--", *stdio_command()).returncode == 0
    assert asyncio.run(host()) == ["calendar://today", "file:///notes/readme.md"]


def test_discover_is_answered_before_the_guard_imports_asyncio(cli, tmp_path):
    # docs/performance.md, "The guard's start": a modern host's connect is the answer to its
    # server/discover, which comes from the lock alone. With an `asyncio` that never finishes
    # importing, the guard still answers it (then never gets further)
    import select
    import subprocess

    _lock(cli, "modern")
    shadow = tmp_path / "shadow" / "asyncio"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("import time\ntime.sleep(60)\n")
    env = {**os.environ, "PYTHONPATH": str(shadow.parent)}
    proc = subprocess.Popen(
        [MCPLOCK, "run", "docs"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env
    )
    try:
        msg = {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": ENVELOPE}}
        proc.stdin.write(json.dumps(msg).encode() + b"\n")
        proc.stdin.flush()
        ready, _, _ = select.select([proc.stdout], [], [], 30)
        assert ready, "server/discover was not answered before asyncio was imported"
        answer = json.loads(proc.stdout.readline())
        assert answer["id"] == 1 and "2026-07-28" in answer["result"]["supportedVersions"]
        assert (
            answer["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]
            == load("mcp.lock").servers["docs"].server_info
        )
    finally:
        proc.kill()
        proc.wait()


async def _sdk_host_approving(action: str) -> tuple[list[dict], object]:
    """The SDK's Client through `mcplock run docs`, answering each question with ``action``."""
    from mcp.client import Client
    from mcp.client.stdio import StdioServerParameters
    from mcp_types import ElicitResult

    asked: list[dict] = []

    async def answer(ctx, params):
        asked.append({"message": params.message, "meta": params.meta})
        return ElicitResult(action=action, content={} if action == "accept" else None)

    params = StdioServerParameters(command=MCPLOCK, args=["run", "docs"], env=dict(os.environ))
    async with asyncio.timeout(60), Client(params, elicitation_callback=answer) as client:
        return asked, await client.call_tool("search_docs", {"query": "q"})


def test_the_guards_approval_reaches_a_modern_host_as_its_own_input_required(cli):
    # a 2026-07-28 host takes no elicitation/create request: the guard's approval question comes
    # inside an input_required answer, marked as mcplock's; an accept lets the call through (a
    # decline refuses it: tests/test_guard_memory.py, as the other decisions of the bridges)
    _lock(cli, "legacy")
    assert cli("approval", "docs/search_docs", "always").returncode == 0
    asked, res = asyncio.run(_sdk_host_approving("accept"))
    (q,) = asked
    assert q["message"].startswith("[mcplock approval] Allow the MCP tool `search_docs`")
    assert q["meta"] == {"mcplock/approval": True}
    assert not res.is_error and "called search_docs" in res.content[0].text
    assert [c["name"] for c in _calls()] == ["search_docs"]


def test_a_legacy_http_servers_question_reaches_a_modern_host_as_input_required(cli):
    # over Streamable HTTP the question comes on the call's own event stream (--sse-responses)
    from runner import http_fixture

    _surface("demo.json")
    with http_fixture(mode="elicit", surface="surface.json", extra_args=["--sse-responses"]) as base:
        assert cli("add", "web", base + "/mcp", "--yes", "--policy", "none").returncode == 0
        with Host("web") as h:
            h.request("server/discover", {"_meta": ENVELOPE})
            first = h.request("tools/call", {"name": "search_docs", "arguments": {"query": "x"}, "_meta": ENVELOPE})
            res = first["result"]
            assert res["resultType"] == "input_required"
            ((key, req),) = res["inputRequests"].items()
            assert req["params"]["message"] == "[server `web` asks] Book the meeting room?"
            done = h.request(
                "tools/call",
                {
                    "name": "search_docs",
                    "arguments": {"query": "x"},
                    "requestState": res["requestState"],
                    "inputResponses": {key: {"action": "accept", "content": {"room": "Vega"}}},
                    "_meta": ENVELOPE,
                },
            )
            assert done["result"]["resultType"] == "complete"
            assert '"room":"Vega"' in json.dumps(done["result"]["content"]).replace('\\"', '"').replace(" ", "")
            assert h.close() == 0
