"""Smoke tests for the fixture MCP server (fixtures/mcp_fixture.py) over real pipes and sockets.

They check that the fixture really does what fixtures/README.md promises, so that the probe
tests built on it test mcplock and not a broken fixture.
"""

from __future__ import annotations

import json
import os
import selectors
import shutil
import subprocess
import time
from pathlib import Path

import httpx2
import pytest

from runner import SURFACES, http_fixture, stdio_command  # fixtures/ is on sys.path (tests/conftest.py)

ROOT = Path(__file__).resolve().parents[1]

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "mcplock-test", "version": "0"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
ACCEPT = {"Accept": "application/json, text/event-stream"}


def rpc(msg_id: int, method: str, params: dict | None = None) -> dict:
    msg = {"jsonrpc": "2.0", "id": msg_id, "method": method}
    if params is not None:
        msg["params"] = params
    return msg


class Stdio:
    """The fixture over real pipes; reads raw stdout lines with a timeout."""

    def __init__(self, cmd: list[str]):
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.buf = b""
        self.sel = selectors.DefaultSelector()
        self.sel.register(self.proc.stdout, selectors.EVENT_READ)

    def send(self, msg) -> None:
        self.proc.stdin.write(json.dumps(msg).encode() + b"\n")
        self.proc.stdin.flush()

    def raw_line(self, timeout: float = 5.0) -> bytes | None:
        """Next stdout line, or None on timeout; raises EOFError when stdout closes."""
        deadline = time.monotonic() + timeout
        chunks = [self.buf]  # a list, not bytes +=: the huge mode sends one 50 MB line
        while b"\n" not in chunks[-1]:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not self.sel.select(remaining):
                self.buf = b"".join(chunks)
                return None
            chunk = os.read(self.proc.stdout.fileno(), 1 << 20)
            if not chunk:
                raise EOFError(b"".join(chunks))
            chunks.append(chunk)
        line, self.buf = b"".join(chunks).split(b"\n", 1)
        return line

    def recv(self, timeout: float = 5.0) -> dict:
        line = self.raw_line(timeout)
        assert line is not None, "no answer in time"
        return json.loads(line)

    def call(self, msg_id: int, method: str, params: dict | None = None) -> dict:
        self.send(rpc(msg_id, method, params))
        reply = self.recv()
        assert reply["id"] == msg_id
        return reply

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(5)
        for f in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                f.close()
            except OSError:
                pass
        self.sel.close()


def stdio(mode: str = "benign", surface=None, extra_args=()) -> Stdio:
    return Stdio(stdio_command(mode=mode, surface=surface, extra_args=extra_args))


# ------------------------------------------------------------------------------------- stdio


def test_stdio_handshake_lists_and_errors():
    s = stdio()
    try:
        s.send(INIT)
        init = s.recv()["result"]
        assert init["protocolVersion"] == "2025-06-18"  # echoed: a supported version
        assert set(init["capabilities"]) == {"tools", "prompts", "resources"}
        assert init["serverInfo"]["name"] == "mcplock-fixture"
        assert init["instructions"]
        s.send(INITIALIZED)  # no answer to a notification: the next line answers ping
        assert s.call(2, "ping")["result"] == {}
        tools = s.call(3, "tools/list")["result"]["tools"]
        assert len(tools) == 3 and "nextCursor" not in s.call(4, "tools/list")["result"]
        assert any("$defs" in t["inputSchema"] for t in tools)
        assert len(s.call(5, "prompts/list")["result"]["prompts"]) == 1
        assert len(s.call(6, "resources/templates/list")["result"]["resourceTemplates"]) == 1
        assert len(s.call(7, "resources/list")["result"]["resources"]) == 2
        assert s.call(8, "no/such/method")["error"]["code"] == -32601
        s.send(rpc(9, "initialize", {**INIT["params"], "protocolVersion": "1999-01-01"}))
        assert s.recv()["result"]["protocolVersion"] == "2025-11-25"
    finally:
        s.close()


def test_stdio_pagination_every_list():
    s = stdio(extra_args=["--page-size", "1"])
    try:
        s.send(INIT)
        s.recv()
        expected = {
            "tools/list": ("tools", 3),
            "prompts/list": ("prompts", 1),
            "resources/templates/list": ("resourceTemplates", 1),
            "resources/list": ("resources", 2),
        }
        msg_id = 10
        for method, (key, count) in expected.items():
            items, cursors, cursor = [], [], None
            while True:
                msg_id += 1
                result = s.call(msg_id, method, {"cursor": cursor} if cursor else {})["result"]
                assert len(result[key]) == 1
                items += result[key]
                cursor = result.get("nextCursor")
                if cursor is None:
                    break
                assert isinstance(cursor, str) and cursor not in cursors
                cursors.append(cursor)
            assert len(items) == count, method
        assert s.call(99, "tools/list", {"cursor": "bogus"})["error"]["code"] == -32602
    finally:
        s.close()


def test_stdio_surface_is_reread_and_lossless(tmp_path):
    surface = tmp_path / "surface.json"
    shutil.copy(SURFACES / "demo.json", surface)
    s = stdio(surface=surface)
    try:
        s.send(INIT)
        assert s.recv()["result"]["serverInfo"]["name"] == "docs-server"
        names = [t["name"] for t in s.call(2, "tools/list")["result"]["tools"]]
        assert names == ["search_docs", "read_page", "delete_page"]
        shutil.copy(SURFACES / "demo-rugpull.json", surface)  # rug pull between two probes
        tools = s.call(3, "tools/list")["result"]["tools"]
        assert [t["name"] for t in tools] == [*names, "run_shell"]
        assert "evil.example" in tools[0]["description"] and "<IMPORTANT>" in tools[0]["description"]
        assert "pattern" not in tools[1]["inputSchema"]["properties"]["page_id"]

        shutil.copy(SURFACES / "unicode.json", surface)
        s.send(rpc(4, "tools/list"))
        raw = s.raw_line()
        source = json.loads((SURFACES / "unicode.json").read_text(encoding="utf-8"))
        assert json.loads(raw)["result"]["tools"] == source["tools"]
        # number spelling and unknown fields survive byte for byte
        for token in (b'"weights":[1.5,1e-7,1.0,-0.0,2.50]', b'"x-vendor"', b'"_meta"', b'"default":null'):
            assert token in raw
        assert "capabilities" in s.call(5, "initialize", INIT["params"])["result"]
    finally:
        s.close()


def test_stdio_hang_crash_garbage():
    s = stdio("hang")
    try:
        s.send(INIT)
        assert s.raw_line(timeout=1.0) is None
        s.proc.stdin.close()  # even EOF on stdin does not make it exit
        time.sleep(0.2)
        assert s.proc.poll() is None
    finally:
        s.close()

    proc = subprocess.run(stdio_command(mode="crash"), input=b"", capture_output=True, timeout=10)
    assert proc.returncode == 1
    assert b"fatal: cannot open database /nope" in proc.stderr and proc.stdout == b""

    s = stdio("garbage")
    try:
        for i in range(2):
            s.send(rpc(i, "initialize", INIT["params"]))
            line = s.raw_line()
            with pytest.raises(ValueError):
                json.loads(line)
    finally:
        s.close()


def test_stdio_banner_still_answers():
    s = stdio("banner")
    try:
        s.send(INIT)
        lines = [s.raw_line() for _ in range(4)]  # 2 banner lines, 1 before the reply, the reply
        for line in lines[:3]:
            with pytest.raises(ValueError):
                json.loads(line)
        assert json.loads(lines[3])["result"]["protocolVersion"] == "2025-06-18"
    finally:
        s.close()


def test_stdio_cursor_modes_duplicate_schema_and_errors():
    s = stdio("endless-cursor")
    try:
        cursor, seen = None, set()
        for i in range(5):
            result = s.call(i + 1, "tools/list", {"cursor": cursor} if cursor else {})["result"]
            assert len(result["tools"]) == 1 and result["nextCursor"] not in seen
            seen.add(result["nextCursor"])
            cursor = result["nextCursor"]
    finally:
        s.close()

    s = stdio("repeat-cursor")
    try:
        first = s.call(1, "tools/list")["result"]["nextCursor"]
        assert s.call(2, "tools/list", {"cursor": first})["result"]["nextCursor"] == first
    finally:
        s.close()

    s = stdio("duplicate")
    try:
        names = [t["name"] for t in s.call(1, "tools/list")["result"]["tools"]]
        assert names.count("search") == 2
    finally:
        s.close()

    s = stdio("bad-schema")
    try:
        assert isinstance(s.call(1, "tools/list")["result"]["tools"], str)
        assert any("name" not in p for p in s.call(2, "prompts/list")["result"]["prompts"])
    finally:
        s.close()

    s = stdio("error-on-tools")
    try:
        assert s.call(1, "initialize", INIT["params"])["result"]
        assert s.call(2, "tools/list")["error"] == {"code": -32603, "message": "database offline"}
    finally:
        s.close()


def test_stdio_die_after_init_and_slow():
    s = stdio("die-after-init")
    try:
        s.send(INIT)
        assert s.recv()["result"]["protocolVersion"]
        assert s.proc.wait(5) == 1
    finally:
        s.close()

    s = stdio("slow", extra_args=["--delay", "0.4"])
    try:
        start = time.monotonic()
        s.send(INIT)
        assert s.raw_line(timeout=0.2) is None
        assert s.recv()["result"]
        assert time.monotonic() - start >= 0.4
    finally:
        s.close()


def test_stdio_huge():
    s = stdio("huge")
    try:
        s.send(rpc(1, "tools/list"))
        line = s.raw_line(timeout=20)
        assert len(line) > 50 * 1024 * 1024
        tools = json.loads(line)["result"]["tools"]
        assert max(len(t["description"]) for t in tools) == 50 * 1024 * 1024
    finally:
        s.close()


# -------------------------------------------------------------------------------------- http


def test_http_streamable_session_lifecycle():
    with http_fixture() as base, httpx2.Client(timeout=5) as c:
        assert base.startswith("http://127.0.0.1:")
        url = base + "/mcp"
        r = c.post(url, json=INIT, headers=ACCEPT)
        assert r.status_code == 200 and r.headers["content-type"].startswith("application/json")
        assert r.json()["result"]["protocolVersion"] == "2025-06-18"
        sid = r.headers["mcp-session-id"]
        h = {**ACCEPT, "Mcp-Session-Id": sid}
        r = c.post(url, json=INITIALIZED, headers=h)
        assert r.status_code == 202 and r.content == b""
        assert c.post(url, json=rpc(2, "tools/list"), headers=ACCEPT).status_code == 400  # no session id
        assert c.post(url, json=rpc(2, "tools/list"), headers={**ACCEPT, "Mcp-Session-Id": "nope"}).status_code == 404
        r = c.post(url, json=rpc(2, "tools/list"), headers=h)
        assert r.status_code == 200 and len(r.json()["result"]["tools"]) == 3
        assert c.post(url, json=rpc(3, "ping"), headers={"Accept": "application/json"}).status_code == 406
        assert c.get(url, headers={"Accept": "text/event-stream"}).status_code == 405
        assert c.delete(url, headers={"Mcp-Session-Id": sid}).status_code == 200
        assert c.post(url, json=rpc(4, "tools/list"), headers=h).status_code == 404  # session ended


def test_http_sse_responses_and_pagination():
    with http_fixture(extra_args=["--sse-responses", "--page-size", "2"]) as base, httpx2.Client(timeout=5) as c:
        r = c.post(base + "/mcp", json=INIT, headers=ACCEPT)
        assert r.headers["content-type"].startswith("text/event-stream")
        assert r.text.startswith("event: message\ndata: ") and r.text.endswith("\n\n")
        sid = r.headers["mcp-session-id"]
        r = c.post(base + "/mcp", json=rpc(2, "tools/list"), headers={**ACCEPT, "Mcp-Session-Id": sid})
        result = json.loads(r.text.split("data: ", 1)[1])["result"]
        assert len(result["tools"]) == 2 and result["nextCursor"]


def test_http_legacy_sse():
    with (
        http_fixture() as base,
        httpx2.Client(timeout=5) as c,
        c.stream("GET", base + "/sse", headers={"Accept": "text/event-stream"}) as stream,
    ):
        assert stream.status_code == 200
        lines = stream.iter_lines()
        assert next(lines) == "event: endpoint"
        endpoint = next(lines).removeprefix("data: ")
        assert endpoint.startswith("/messages?session_id=")
        r = c.post(base + endpoint, json=INIT)
        assert r.status_code == 202
        assert c.post(base + "/messages?session_id=unknown", json=INIT).status_code == 404
        event = [next(lines) for _ in range(3)]  # blank line, event:, data:
        assert event[1] == "event: message"
        assert json.loads(event[2].removeprefix("data: "))["result"]["protocolVersion"] == "2025-06-18"


def test_http_status_modes():
    init_post = {"json": INIT, "headers": ACCEPT}
    with httpx2.Client(timeout=5) as c:
        with http_fixture("401") as base:
            r = c.post(base + "/mcp", **init_post)
            assert r.status_code == 401 and r.json()["error"]
            assert r.headers["www-authenticate"] == (
                f'Bearer resource_metadata="{base}/.well-known/oauth-protected-resource"'
            )
        with http_fixture("405") as base:
            assert c.post(base + "/mcp", **init_post).status_code == 405
            with c.stream("GET", base + "/sse") as stream:  # the legacy endpoint still works
                assert stream.status_code == 200 and next(stream.iter_lines()) == "event: endpoint"
        with http_fixture("410") as base:
            for r in (c.post(base + "/mcp", **init_post), c.get(base + "/sse")):
                assert r.status_code == 410
                assert r.json() == {"error": "This endpoint was retired on 2026-01-01; use https://new.example/mcp"}
        with http_fixture("404") as base:
            assert c.post(base + "/mcp", **init_post).status_code == 404
            assert c.get(base + "/sse").status_code == 404
        with http_fixture("html") as base:
            r = c.post(base + "/mcp", **init_post)
            assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
            assert "<html" in r.text


def test_http_hostile_common_modes():
    with httpx2.Client(timeout=5) as c:
        with http_fixture("hang") as base, pytest.raises(httpx2.ReadTimeout):
            c.post(base + "/mcp", json=INIT, headers=ACCEPT, timeout=1.0)
        with http_fixture("garbage") as base:
            r = c.post(base + "/mcp", json=INIT, headers=ACCEPT)
            with pytest.raises(ValueError):
                json.loads(r.text)
        with http_fixture("die-after-init") as base:
            r = c.post(base + "/mcp", json=INIT, headers=ACCEPT)
            assert r.json()["result"]
            assert base.process.wait(5) == 1
        with http_fixture("error-on-tools") as base:
            sid = c.post(base + "/mcp", json=INIT, headers=ACCEPT).headers["mcp-session-id"]
            r = c.post(base + "/mcp", json=rpc(2, "tools/list"), headers={**ACCEPT, "Mcp-Session-Id": sid})
            assert r.json()["error"]["message"] == "database offline"
    with pytest.raises(RuntimeError, match="cannot open database"), http_fixture("crash"):
        pass
