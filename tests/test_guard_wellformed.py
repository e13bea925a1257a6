"""Only well-formed JSON-RPC crosses the guard, both ways (mcplock/guard/wellformed.py).

The upstream is fixtures/forger.py over real stdio: it sends every shape that is neither a
well-formed request/notification nor an answer to an id the guard sent, for the ids a host uses,
each carrying a forged ``tools/list`` or ``tools/call`` answer. The hosts are the test host
(raw lines) and the official MCP Python SDK's client; neither may ever receive the forgery.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest
from guardhost import Host
from setupcache import locked

from conftest import MCPLOCK, ROOT
from runner import SURFACES, stdio_command

FORGER = str(ROOT / "fixtures" / "forger.py")
NOTE = "dropped a message from the server"


def _lock_forger(cli) -> None:
    locked(("add", "forger", "--yes", "--policy", "none", "--", sys.executable, FORGER), inputs=())


def test_no_malformed_message_from_the_upstream_reaches_the_host(cli):
    _lock_forger(cli)
    with Host("forger", "--request-timeout", "3") as h:
        h.initialize()
        first = h.call("echo", {"text": "hi"})  # the first call turns the forger hostile
        assert first["result"]["content"] == [{"type": "text", "text": "echo: hi"}]
        assert h.call("echo", {"text": "again"})["result"]["content"][0]["text"] == "echo: again"  # sprayed first
        tools = h.request("tools/list")["result"]["tools"]
        assert sorted(t["name"] for t in tools) == ["bad_error", "both", "echo", "method_null", "scalar"]
        for name in ("both", "scalar", "bad_error"):  # the answer to the guard's own id, malformed
            err = h.call(name, {"text": "x"})
            assert "result" not in err and err["error"]["code"] == -32000, err
            assert "the server's answer was malformed" in err["error"]["message"]
        late = h.call("method_null", {"text": "x"})  # an "answer" that carries a method answers nothing
        assert "no answer within 3 s" in late["error"]["message"]
        assert h.request("ping")["result"] == {}
        assert h.close() == 0
        stderr = h.stderr()
    assert not any(b"FORGED" in line for line in h.raw), [line for line in h.raw if b"FORGED" in line][:3]
    answers = [m["id"] for m in h.seen if "method" not in m]
    assert answers == list(range(101, 101 + 9)), answers  # each host request answered once, nothing else
    assert all(m.get("method", "").startswith("notifications/") for m in h.seen if "method" in m)
    assert NOTE in stderr
    for why in (
        "its `method` is not a string",
        "a JSON-RPC batch",
        "an answer to no request the guard is waiting for",
        "a `method` beside a `result` or an `error`",
        "its id is not a string or a number",
        "a string holds a lone surrogate",
    ):
        assert why in stderr, why


def test_the_python_sdk_client_never_gets_a_forged_answer(cli):
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    _lock_forger(cli)
    seen: list[str] = []

    async def heard(message) -> None:
        seen.append(repr(message))

    async def run() -> list[str]:
        params = StdioServerParameters(command=MCPLOCK, args=["run", "forger"], env=dict(os.environ), cwd=os.getcwd())
        with open("guard.err", "w") as err:
            async with (
                stdio_client(params, errlog=err) as (read, write),
                ClientSession(read, write, message_handler=heard, read_timeout_seconds=30) as s,
            ):
                await s.initialize()
                out = [repr(await s.list_tools())]
                for text in ("one", "two", "three"):  # every request from here on is sprayed first
                    out.append(repr(await s.call_tool("echo", {"text": text})))
                    out.append(repr(await s.list_tools()))
                with pytest.raises(Exception) as both:
                    await s.call_tool("both", {"text": "x"})
                out.append(repr(both.value))
                out.append(repr(await s.send_ping()))
                return out

    got = asyncio.run(run())
    assert "echo: one" in got[1] and "echo: three" in got[5]
    assert "malformed" in got[7]
    for text in got + seen:
        assert "FORGED" not in text, text
    assert NOTE in Path("guard.err").read_text()


# --- the host side ------------------------------------------------------------------------------


def _lock_fixture(cli) -> None:
    Path("surface.json").write_bytes((SURFACES / "demo.json").read_bytes())
    cmd = stdio_command(surface="surface.json", extra_args=["--call-log", "calls.jsonl"])
    locked(("add", "docs", "--yes", "--policy", "none", "--", *cmd))


CALL = '"method":"tools/call","params":{"name":"search_docs","arguments":{"query":"%s"}}'


MALFORMED = [
    ('{"jsonrpc":"2.0","id":[1],' + CALL % "a" + "}", None, -32600),
    ('{"jsonrpc":"2.0","id":{"a":1},' + CALL % "b" + "}", None, -32600),
    ('{"jsonrpc":"2.0","id":true,' + CALL % "c" + "}", None, -32600),
    ('{"jsonrpc":"2.0","id":null,' + CALL % "d" + "}", None, -32600),
    ('{"jsonrpc":"2.0","id":7,' + CALL % "\\ud800 e" + "}", 7, -32600),
    (
        '{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"search_docs","arguments":{"query":NaN}}}',
        8,
        -32700,
    ),
    ('{"jsonrpc":"2.0","id":9,"method":null}', 9, -32600),
    ('{"jsonrpc":"2.0","id":10,"method":"tools/call","params":["search_docs"]}', 10, -32600),
    ('{"jsonrpc":"2.0","id":11,"result":{},"error":{"code":1,"message":"x"}}', 11, -32600),
]  # (the line, the id its answer carries, the error code)


def test_each_malformed_host_message_is_answered_and_the_read_goes_on(cli):
    """One session for every case: each line is written with a ping behind it in one write (one
    read: the ping must not be lost), answered on its own, and nothing reaches the server but the
    one well-formed call (a surrogate pair is no lone surrogate)."""
    _lock_fixture(cli)
    with Host("docs") as h:
        h.initialize()
        for line, rid, code in MALFORMED:
            ping = h.request_msg("ping")
            h.write(line.encode() + b"\n" + json.dumps(ping).encode() + b"\n")
            first = h.next()
            assert first is not None and first.get("id") == rid and first["error"]["code"] == code, (line, first)
            assert h.response(ping["id"])["result"] == {}, line
        h.write(b'{"jsonrpc":"2.0","id":5,' + (CALL % "\\ud83c\\udf89").encode() + b"}\n")
        assert h.response(5)["result"]["isError"] is False
        assert h.close() == 0
    calls = Path("calls.jsonl").read_text().splitlines()
    assert [json.loads(c)["arguments"] for c in calls] == [{"query": "🎉"}]  # the malformed ones reached nothing
