"""Streamable HTTP: an answer stream that ends before the answer is resumed with GET and
Last-Event-ID after the server's retry delay (SEP-1699), bounded; against
fixtures/resumable_fixture.py through `mcplock call`."""

from __future__ import annotations

import contextlib
import json
import sys
import urllib.request

import pytest

from conftest import ROOT, run_cli
from runner import listening

FIXTURE = ROOT / "fixtures" / "resumable_fixture.py"
CALL = ("call", "srv/get_weather", "--args", '{"city": "Paris"}', "--timeout", "20")


@contextlib.contextmanager
def server(*args: str):
    with listening([sys.executable, str(FIXTURE), *args]) as started:
        yield started.lines[0][1]


def _stats(base: str) -> dict:
    with urllib.request.urlopen(base + "/admin/stats", timeout=5) as r:
        return json.loads(r.read())


def _lock(base: str) -> None:
    r = run_cli("add", "srv", base + "/mcp", "--yes", "--policy", "none")
    assert r.returncode == 0, r.stderr


def test_a_stream_that_ends_early_is_resumed():
    with server() as base:
        _lock(base)
        r = run_cli(*CALL)
        assert r.returncode == 0, r.stderr
        assert json.loads(r.stdout)["content"][0]["text"] == "fixture: called get_weather"
        assert _stats(base) == {"gets": 1, "last-event-ids": ["e1"]}


@pytest.mark.parametrize(
    ("behaviour", "gets", "why"),
    [
        ("no-get", 0, "resuming it (GET with Last-Event-ID) got HTTP 405"),
        ("never", 5, "(resumed 5 times)"),
    ],
)
def test_resumption_is_bounded_and_explained(behaviour, gets, why):
    with server("--behaviour", behaviour) as base:
        _lock(base)
        r = run_cli(*CALL)
        assert r.returncode == 3, r.stdout + r.stderr
        assert "the event stream ended without an answer to tools/call" in r.stderr and why in r.stderr
        assert _stats(base)["gets"] == gets


def test_the_guards_standalone_stream_is_resumed_where_it_broke_off():
    """The standalone GET stream ends after event s1: the guard opens it again after the
    server's retry delay with Last-Event-ID s1, and the host gets what came after (`two`),
    which a fresh stream would never carry."""
    from guardhost import Host

    with server("--behaviour", "standalone") as base:
        _lock(base)
        with Host("srv") as h:
            h.initialize()
            logs = [
                h.wait_for(lambda m: m.get("method") == "notifications/message")["params"]["data"] for _ in range(2)
            ]
            assert logs == ["one", "two"]
            assert h.call("get_weather", {"city": "Paris"})["result"]["isError"] is False
            assert h.close() == 0
        ids = _stats(base)["last-event-ids"]
        assert ids[:2] == [None, "s1"] and set(ids[2:]) <= {"s2"}
