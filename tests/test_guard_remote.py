"""`mcplock run` relaying a whole MCP session to a remote upstream, over Streamable HTTP and
legacy SSE: server requests, progress, logging, cancellation, list_changed and a server that
dies mid-call. Driven as a host drives it, over real pipes, against the fixture on 127.0.0.1."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from guardhost import WAIT, Host

from runner import SURFACES, http_fixture

CALLS = "calls.jsonl"
PATHS = {"http": "/mcp", "sse": "/sse"}
TRANSPORTS = pytest.mark.parametrize("transport", ["http", "sse"])


def _surface(name: str = "demo.json") -> None:
    tmp = Path("surface.json.tmp")
    shutil.copy(SURFACES / name, tmp)
    os.replace(tmp, "surface.json")  # whole, at once: the fixture re-reads it per request


@contextlib.contextmanager
def _locked(cli, transport: str, mode: str = "benign", *extra: str) -> Iterator[str]:
    """A fixture server over HTTP, locked as `docs` with `transport`; yields its base URL."""
    _surface()
    with http_fixture(mode=mode, surface="surface.json", extra_args=["--call-log", CALLS, *extra]) as base:
        r = cli("add", "docs", "--yes", "--policy", "none", "--transport", transport, base + PATHS[transport])
        assert r.returncode == 0, r.stderr
        yield base


def _log() -> list[dict]:
    p = Path(CALLS)
    return [json.loads(line) for line in p.read_text().splitlines()] if p.exists() else []


def _wait_log(pred: Callable[[dict], bool]) -> dict:
    """The first call-log entry matching ``pred``, waiting for the fixture to write it."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        found = [e for e in _log() if pred(e)]
        if found:
            return found[0]
        time.sleep(0.05)
    raise AssertionError(f"the fixture never logged it; log: {_log()}")


def _text(resp: dict) -> str:
    return " ".join(c.get("text", "") for c in resp["result"]["content"])


def _names(h: Host) -> list[str]:
    return [t["name"] for t in h.request("tools/list")["result"]["tools"]]


def _notified(h: Host, method: str = "notifications/tools/list_changed") -> dict:
    """The first ``method`` notification the host got, already read or still to come."""
    seen = [m for m in h.seen if m.get("method") == method]
    return seen[0] if seen else h.wait_for(lambda m: m.get("method") == method)


def _chatty_call(h: Host, name: str, args: dict, token: str) -> dict:
    """A call to the chatty fixture: checks what it sends the host during the call, answers
    its roots request, returns the call's response."""
    call = h.request_msg("tools/call", {"name": name, "arguments": args, "_meta": {"progressToken": token}})
    h.send(call)
    progress = h.wait_for(lambda m: m.get("method") == "notifications/progress")
    assert progress["params"] == {"progressToken": token, "progress": 1, "total": 2}
    log = h.wait_for(lambda m: m.get("method") == "notifications/message")
    assert log["params"] == {"level": "info", "data": "chatty"}
    roots = h.wait_for(lambda m: m.get("method") == "roots/list")
    assert roots["id"] != "fx-roots-1"  # the guard's own id towards the host
    h.send({"jsonrpc": "2.0", "id": roots["id"], "result": {"roots": [{"uri": "file:///w", "name": "w"}]}})
    return h.response(call["id"])


@TRANSPORTS
def test_a_whole_chatty_session_is_relayed_reverified_after_a_rug_pull_and_ends_with_its_host(cli, transport):
    """One session with the chatty fixture (it sends progress, a log line and roots/list during
    every call, says list_changed and waits for the guard to list again before it answers):
    everything reaches the host and the host's answer the tool; a rug pull then is re-verified
    and hidden; a server request to a host that closed stdin gets an error at once."""
    with _locked(cli, transport, "chatty"), Host("docs") as h:
        h.initialize({"roots": {"listChanged": True}})
        assert _names(h) == ["delete_page", "read_page", "search_docs"]
        resp = _chatty_call(h, "search_docs", {"query": "x"}, "tok-1")
        assert resp["result"]["isError"] is False
        assert "file:///w" in _text(resp)  # the host's answer reached the tool
        # the server said list_changed (on its stream for unrelated messages) and waited for the
        # guard to list again before answering; nothing the host may see changed: no notification
        assert "relisted after list_changed: yes" in _text(resp)
        assert _names(h) == ["delete_page", "read_page", "search_docs"]
        assert not [m for m in h.seen if m.get("method") == "notifications/tools/list_changed"]

        _surface("demo-rugpull.json")  # list_changed after a rug pull: re-verified, the tool hidden
        resp = _chatty_call(h, "delete_page", {"page_id": "a"}, "tok-2")
        assert "relisted after list_changed: yes" in _text(resp)
        _notified(h)
        assert _names(h) == ["delete_page"]
        assert h.call("search_docs", {"query": "x"})["result"]["isError"] is True
        seen = json.dumps(h.seen)
        assert "evil.example" not in seen and "run_shell" not in seen

        # the server asks the host (roots/list) during a call, and the host has closed stdin: the
        # server gets an error now, so the call ends and the host gets its answer
        call = h.request_msg("tools/call", {"name": "delete_page", "arguments": {"page_id": "b"}})
        h.send(call)
        h.wait_for(lambda m: m.get("method") == "roots/list")
        h.proc.stdin.close()
        assert "the host closed the session" in _text(h.response(call["id"]))
        assert h.proc.wait(timeout=30) == 0
    assert [e["name"] for e in _log()] == ["search_docs", "delete_page", "delete_page"]


@TRANSPORTS
def test_an_unsolicited_list_changed_after_an_idle_spell_reaches_the_guard(cli, transport):
    # the upstream says list_changed when its surface file changes, on the stream for unrelated
    # messages (Streamable HTTP: the standalone GET stream); the session idles past --timeout first
    # (--timeout 3: short enough to idle past, long enough for every request of the test on a busy machine)
    with _locked(cli, transport, "benign", "--notify-changes"), Host("docs", "--timeout", "3") as h:
        h.initialize()
        assert len(_names(h)) == 3
        time.sleep(4)  # the idle spell itself (not a clock): longer than --timeout, nothing sent
        _surface("demo-rugpull.json")
        _notified(h)
        assert _names(h) == ["delete_page"]
        assert "evil.example" not in json.dumps(h.seen)
        assert h.close() == 0


@TRANSPORTS
def test_a_host_cancellation_reaches_the_upstream(cli, transport):
    with _locked(cli, transport, "hang-on-call"), Host("docs") as h:
        h.initialize()
        call = h.request_msg("tools/call", {"name": "search_docs", "arguments": {"query": "x"}})
        h.send(call)
        _wait_log(lambda e: e.get("name") == "search_docs")  # the upstream is running it
        h.send(
            {
                "jsonrpc": "2.0",
                "method": "notifications/cancelled",
                "params": {"requestId": call["id"], "reason": "the user pressed stop"},
            }
        )
        # the upstream's own id for the call, mapped back to the call it names
        assert _wait_log(lambda e: "cancelled" in e)["call"] == "search_docs"
        assert h.request("ping")["result"] == {}  # the session goes on
        assert not [m for m in h.seen if m.get("id") == call["id"]]  # a cancelled request gets no answer
        assert h.close() == 0


@TRANSPORTS
def test_upstream_dying_mid_call_gets_the_host_a_prompt_error(cli, transport):
    with _locked(cli, transport, "die-on-call"), Host("docs") as h:
        h.initialize()
        resp = h.call("search_docs", {"query": "x"})
        assert resp["error"]["code"] == -32000
        assert "broke while mcplock waited for tools/call" in resp["error"]["message"]
        assert h.proc.wait(timeout=WAIT) == 3
        assert "is gone" in h.stderr()


def test_a_streamable_http_server_without_a_get_stream_is_relayed_quietly(cli):
    with _locked(cli, "http", "benign", "-v") as base:
        probe_log = base.stderr_text()
        assert "POST /mcp" in probe_log and "GET /mcp" not in probe_log  # the prober opens no GET stream
        with Host("docs") as h:
            h.initialize()
            assert h.call("search_docs", {"query": "x"})["result"]["isError"] is False
            assert h.close() == 0
            err = h.stderr()
        assert '"GET /mcp HTTP/1.1" 405' in base.stderr_text()  # the guard asked for one, was told no
        assert "405" not in err and "GET" not in err


@TRANSPORTS
def test_upstream_dying_while_idle_ends_the_session(cli, transport):
    # nothing is in flight: only the stream for unrelated messages notices (Streamable HTTP: the GET stream)
    with _locked(cli, transport, "benign", "--notify-changes") as base, Host("docs") as h:
        h.initialize()
        assert len(_names(h)) == 3
        base.process.kill()
        assert h.proc.wait(timeout=WAIT) == 3
        err = h.stderr()
        assert "is gone" in err and "waited for done" not in err
