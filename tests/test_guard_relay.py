"""`mcplock run`'s relay path: calls decided and written in the read callback keep their ids,
their order and every check; what the upstream says about ids the guard never sent reaches
nobody; a cancelled call gets no answer. Plus the line splitter both pipes use."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from guardhost import Host
from setupcache import locked
from test_guard import _fixture_processes

from mcplock.probe._pipes import Lines

from runner import SURFACES, stdio_command

CALLS = "calls.jsonl"


def _lock_fixture(cli, mode: str = "benign") -> None:
    Path("surface.json").write_bytes((SURFACES / "demo.json").read_bytes())
    cmd = stdio_command(mode=mode, surface="surface.json", extra_args=["--call-log", CALLS])
    locked(("add", "docs", "--yes", "--policy", "none", "--timeout", "20", "--", *cmd))


def _calls() -> list[dict]:
    p = Path(CALLS)
    text = p.read_text() if p.exists() else ""
    return [json.loads(line) for line in text.split("\n") if line]  # not splitlines(): U+2028 is in a string


def test_pipelined_calls_keep_their_ids_their_order_and_every_check(cli):
    _lock_fixture(cli)
    odd = 'é ☃ \u2028 "q" \\ 🎉'
    ids = ["x-é", 7, "7", 2**70, -1, 1.5]
    msgs = []
    for i, rid in enumerate(ids):
        msgs.append(
            {
                "jsonrpc": "2.0",
                "id": rid,
                "method": "tools/call",
                "params": {"name": "search_docs", "arguments": {"query": f"{odd} {i}"}},
            }
        )
    msgs.insert(2, {"jsonrpc": "2.0", "id": "unknown", "method": "tools/call", "params": {"name": "nope"}})
    msgs.insert(
        4,
        {
            "jsonrpc": "2.0",
            "id": "invalid",
            "method": "tools/call",
            "params": {"name": "search_docs", "arguments": {"query": ""}},
        },
    )
    with Host("docs") as h:
        h.initialize()
        h.send(*msgs)  # one write: every message is handled in the same read callback
        answers: dict[str, dict] = {}
        while len(answers) < len(msgs):  # in whatever order they come (refusals need no upstream)
            m = h.next()
            assert m is not None, h.stderr()
            answers[json.dumps(m["id"])] = m
        assert all(answers[json.dumps(rid)]["result"]["isError"] is False for rid in ids)
        assert answers['"unknown"']["result"]["_meta"]["mcplock/refused"] == "unknown"
        assert answers['"invalid"']["error"]["code"] == -32602
        for rid in ids:  # each id comes back as the host wrote it, type and all
            assert any(f'"id":{json.dumps(rid, ensure_ascii=False)},'.encode() in line for line in h.raw)
        assert h.close() == 0
    # only the allowed calls reached the server, in the order the host sent them, strings intact
    assert _calls() == [{"name": "search_docs", "arguments": {"query": f"{odd} {i}"}} for i in range(len(ids))]


STRAY = r"""
import json, sys
TOOL = {"name": "echo", "description": "Echo.",
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}}
def send(m):
    sys.stdout.write(json.dumps(m) + "\n"); sys.stdout.flush()
for line in sys.stdin:
    m = json.loads(line)
    rid, method = m.get("id"), m.get("method")
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": rid, "result": {"protocolVersion": m["params"]["protocolVersion"],
              "capabilities": {"tools": {}}, "serverInfo": {"name": "stray", "version": "1"}}})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": rid, "result": {"tools": [TOOL]}})
    elif method == "tools/call":
        # answers to ids the guard never sent (its ids are integers), then the real one, then a repeat
        for bogus in (rid + 1000, str(rid), None):
            send({"jsonrpc": "2.0", "id": bogus, "result": {"content": [{"type": "text", "text": "BOGUS"}]}})
        text = m["params"]["arguments"]["text"]
        send({"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": text}]}})
        send({"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": "BOGUS again"}]}})
    elif rid is not None and method is not None:
        send({"jsonrpc": "2.0", "id": rid, "result": {}})
"""


def test_an_upstream_answer_to_an_id_the_guard_never_sent_reaches_nobody(cli):
    Path("stray.py").write_text(STRAY)
    r = cli("add", "stray", "--yes", "--policy", "none", "--", sys.executable, "stray.py")
    assert r.returncode == 0, r.stderr
    with Host("stray") as h:
        h.initialize()
        text = 'é\u2028☃ "x"'
        first = h.call("echo", {"text": text})
        assert first["result"]["content"] == [{"type": "text", "text": text}]
        assert h.call("echo", {"text": "second"})["result"]["content"][0]["text"] == "second"
        assert h.request("ping")["result"] == {}
        assert h.close() == 0
    assert not any(b"BOGUS" in line for line in h.raw)
    answers = [m for m in h.seen if "method" not in m]
    assert [m["id"] for m in answers] == [101, 102, 103, 104]  # initialize, two calls, ping: one answer each


def test_a_call_the_host_cancels_gets_no_answer(cli):
    _lock_fixture(cli, mode="hang-on-call")
    with Host("docs", "--request-timeout", "1") as h:
        h.initialize()
        first = h.request_msg("tools/call", {"name": "search_docs", "arguments": {"query": "a"}})
        h.send(
            first,
            {
                "jsonrpc": "2.0",
                "method": "notifications/cancelled",
                "params": {"requestId": first["id"], "reason": "user"},
            },
        )
        second = h.call("search_docs", {"query": "b"})  # sent after: times out after the first would have
        assert "no answer within 1 s" in second["error"]["message"]
        assert not any(m.get("id") == first["id"] for m in h.seen)
        assert h.close() == 0
    assert not _fixture_processes()  # the hung server's group is gone with the guard


def _splitter(limit: int, skip: bool, *, released: bool = True):
    got: list[object] = []
    lines = Lines(
        limit, got.append, lambda: got.append("too-large") or skip, lambda: got.append("end"), released=released
    )
    return lines, got


def test_lines_split_on_newline_only_across_reads():
    lines, got = _splitter(100, True)
    for chunk in (b'{"a":', b'"\xe2\x80\xa8"}\n{"b"', b":1}\n\n", b"tail"):
        lines.feed(chunk)
    assert got == [b'{"a":"\xe2\x80\xa8"}\n', b'{"b":1}\n', b"\n"]
    lines.eof()
    assert got[3:] == [b"tail", "end"]
    lines.feed(b"more\n")
    assert got[5:] == []


@pytest.mark.parametrize("chunks", [[b"x" * 11 + b"\nok\n"], [b"x" * 6, b"x" * 6, b"\nok\n"], [b"x" * 12, b"\nok\n"]])
def test_an_over_long_line_is_skipped_for_the_host(chunks):
    lines, got = _splitter(10, True)
    for c in chunks:
        lines.feed(c)
    assert got == ["too-large", b"ok\n"]


def test_an_over_long_line_stops_an_upstream_reader():
    lines, got = _splitter(10, False)
    lines.feed(b"ok\n" + b"y" * 11)
    lines.feed(b"\nnever\n")
    lines.eof()
    assert got == [b"ok\n", "too-large"]


def test_nothing_is_handed_over_before_release():
    lines, got = _splitter(10, True, released=False)
    lines.feed(b"a\nb")
    lines.eof()
    assert got == []
    lines.release()
    assert got == [b"a\n", b"b", "end"]


def test_a_line_of_exactly_the_limit_passes():
    lines, got = _splitter(4, False)
    lines.feed(b"abcd\n")
    lines.feed(b"ab")
    lines.feed(b"cd\n")
    assert got == [b"abcd\n", b"abcd\n"]
