"""mcplock.guard.refusal.answer in-process, over a real pipe: what a refused guard answers and
when it stops (tests/test_daily_round2.py runs the same through `mcplock run`)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
import threading

import pytest

from mcplock.guard.refusal import answer

pytestmark = pytest.mark.skipif(os.name == "nt", reason="select() takes no pipes on Windows")


def _run(chunks: list[bytes], *, close: bool = True, first_wait: float = 5.0, grace: float = 0.3):
    r, w = os.pipe()

    def feed() -> None:  # in a thread: a pipe holds 64 KiB, the guard reads as it answers
        with contextlib.suppress(OSError):  # the reader stopped (the cap) and closed its end
            for c in chunks:
                os.write(w, c)
        if close:
            os.close(w)

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    out = io.BytesIO()
    try:
        with os.fdopen(r, "rb", buffering=0) as src:
            n = answer(
                "docs",
                "not trusted",
                "run `mcplock trust docs`",
                "untrusted",
                stdin=src,
                stdout=out,
                first_wait=first_wait,
                grace=grace,
            )
    finally:
        writer.join(5)
        if not close:
            os.close(w)
    return n, [json.loads(x) for x in out.getvalue().splitlines()]


def test_each_request_is_answered_and_a_notification_not():
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": "x", "method": "tools/list"},
    ]
    data = "".join(json.dumps(m) + "\n" for m in lines).encode()
    n, answers = _run([data[:10], data[10:]])  # a line split across reads
    assert n == 2 and [a["id"] for a in answers] == [1, "x"]
    assert all(a["error"]["code"] == -32001 for a in answers)
    assert "mcplock did not start `docs`: not trusted — run `mcplock trust docs`" in answers[0]["error"]["message"]


def test_no_request_within_the_first_wait_ends_it():
    assert _run([], close=False, first_wait=0.2) == (0, [])


def test_a_flood_ends_it_at_the_cap():
    n, answers = _run([b"x" * (1 << 16)] * 70)
    assert n == 0 and answers == []


def test_at_a_terminal_or_without_a_descriptor_nothing_is_read():
    assert answer("docs", "m", None, "c", stdin=io.BytesIO(b"{}\n"), stdout=io.BytesIO()) == 0
    if sys.stdin is not None and sys.stdin.isatty():  # pragma: no cover - only at a terminal
        assert answer("docs", "m", None, "c", stdout=io.BytesIO()) == 0
