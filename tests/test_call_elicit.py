"""`mcplock call` answering the server's questions (elicitation) during a call, through the real
CLI against the fixture's mode `elicit` (stdio; Streamable HTTP on the standalone GET stream and
on the call's own event stream; legacy SSE), and the library's `on_elicit` hook."""

from __future__ import annotations

import asyncio
import json
import re
import shutil
from contextlib import ExitStack

import pytest

import mcplock

from ptyrun import Pty
from runner import SURFACES, http_fixture, stdio_command

# stdio; Streamable HTTP with the question on the GET stream; on the call's POST stream; legacy SSE
TRANSPORTS = ["stdio", "http-get", "http-post", "sse"]
DEFAULTS = {"room": "Atlas", "seats": 4, "budget": 12.5, "kind": "review", "notify": True}
HOSTILE = {
    "tools": [{"name": "book", "description": "Book a room.", "inputSchema": {"type": "object"}}],
    "elicitation": {
        "message": "::add-mask::x\nPick \x1b[31mred\x1b[0m",
        "requestedSchema": {
            "type": "object",
            "required": ["who"],
            "properties": {
                "who": {
                    "type": "string",
                    "title": "Name\x1b]8;;http://evil.example\x07\u202e",
                    "default": "me",
                    "description": "[bold]not markup[/bold]",
                },
            },
        },
    },
}


def _lock(cli, stack: ExitStack, transport: str, surface: dict | None = None) -> None:
    if surface is None:
        shutil.copy(SURFACES / "demo.json", "surface.json")
    else:
        with open("surface.json", "w", encoding="utf-8") as fh:
            json.dump(surface, fh)
    if transport == "stdio":
        target = ["--", *stdio_command(mode="elicit", surface="surface.json")]
    else:
        extra = ["--sse-responses"] if transport == "http-post" else []
        base = stack.enter_context(http_fixture(mode="elicit", surface="surface.json", extra_args=extra))
        target = [base + "/sse", "--transport", "sse"] if transport == "sse" else [base + "/mcp"]
    r = cli("add", "docs", "--yes", "--policy", "none", *target)
    assert r.returncode == 0, r.stderr


def _elicited(stdout: str) -> dict:
    items = json.loads(stdout)["content"]
    texts = [i["text"] for i in items if i["text"].startswith("elicited: ")]
    assert len(texts) == 1, items
    return json.loads(texts[0].removeprefix("elicited: "))


def _on_pty(out: str) -> dict:
    """What the server was answered, from the result JSON a terminal showed."""
    m = re.search(r'"text": ("elicited: .*")\r?\n', out)
    assert m, out
    return json.loads(json.loads(m.group(1)).removeprefix("elicited: "))


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_off_a_terminal_the_question_is_declined_and_said_once(cli, transport):
    with ExitStack() as stack:
        _lock(cli, stack, transport)
        r = cli("call", "docs/search_docs", "--args", '{"query": "x"}')
    assert r.returncode == 0, r.stderr
    assert _elicited(r.stdout) == {"action": "decline"}
    assert r.stderr.count("Book the meeting room?") == 1
    assert "declined (no terminal to ask on; --answer-defaults" in r.stderr


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_answer_defaults_accepts_with_every_default(cli, transport):
    with ExitStack() as stack:
        _lock(cli, stack, transport)
        r = cli("call", "docs/search_docs", "--args", '{"query": "x"}', "--answer-defaults")
    assert r.returncode == 0, r.stderr
    assert _elicited(r.stdout) == {"action": "accept", "content": DEFAULTS}
    assert "answered with its defaults" in r.stderr


def test_answer_defaults_declines_a_required_field_without_a_default(cli):
    form = {
        "message": "Your password?",
        "requestedSchema": {"type": "object", "required": ["password"], "properties": {"password": {"type": "string"}}},
    }
    surface = {"tools": [{"name": "book", "description": "x", "inputSchema": {"type": "object"}}], "elicitation": form}
    with ExitStack() as stack:
        _lock(cli, stack, "stdio", surface)
        r = cli("call", "docs/book", "--answer-defaults")
    assert r.returncode == 0, r.stderr
    assert _elicited(r.stdout) == {"action": "decline"}
    assert "declined, `password` is required and has no default" in r.stderr


def test_the_form_on_a_terminal_enter_takes_defaults_typed_values_are_checked(cli):
    with ExitStack() as stack:
        _lock(cli, stack, "stdio")
    p = Pty("call", "docs/search_docs", "--args", '{"query": "x"}')
    p.expect("question from `docs`: Book the meeting room?")
    p.expect("Room (room) - Which room")
    p.expect("text [Atlas]: ")
    p.send("\n")  # Enter takes the default
    p.expect("whole number, min 1, max 20 [4]: ")
    p.send("99\n")
    p.expect("more than 20")
    p.expect("[4]: ")
    p.send("two\n")
    p.expect("a whole number, please")
    p.send("7\n")
    p.expect("number [12.5]: ")
    p.send("\n")
    p.expect("2. review")
    p.expect("choice or its number [review]: ")
    p.send("3\n")  # by its number
    p.expect("yes/no [yes]: ")
    p.send("no\n")
    p.expect("Note (note)")
    p.expect("text [Enter skips]: ")
    p.send("\n")  # optional, no default: left out
    p.expect("send these answers? [Y = send, n = decline] ")
    p.send("\n")
    code, out = p.wait()
    assert code == 0, out
    typed = {"room": "Atlas", "seats": 7, "budget": 12.5, "kind": "offsite", "notify": False}
    assert _on_pty(out) == {"action": "accept", "content": typed}


def test_on_a_terminal_n_declines_and_ctrl_c_cancels(cli):
    with ExitStack() as stack:
        _lock(cli, stack, "stdio")
    p = Pty("call", "docs/search_docs", "--args", '{"query": "x"}')
    for _ in range(6):
        p.expect("]: ")
        p.send("\n")
    p.expect("send these answers? [Y = send, n = decline] ")
    p.send("n\n")
    code, out = p.wait()
    assert code == 0 and _on_pty(out) == {"action": "decline"}, out

    p = Pty("call", "docs/search_docs", "--args", '{"query": "x"}')
    p.expect("text [Atlas]: ")
    p.send("\x03")  # Ctrl-C: the question is cancelled, the call goes on
    p.expect("cancelled")
    code, out = p.wait()
    assert code == 0 and _on_pty(out) == {"action": "cancel"}, out


def test_ctrl_c_handed_to_another_thread_still_cancels(cli):
    """The kernel gives a process's SIGINT to any thread not blocking it: here the one asyncio
    starts to wait for the server (Python 3.11's child watcher). Python runs the handler only once
    the main thread is back in Python code, so a form blocked in a bare read never saw that Ctrl-C
    and hung (the rare failure of the test above). ``kill`` on a thread's id gives that thread
    the first pick of the signal: deterministic."""
    import os
    import signal

    with ExitStack() as stack:
        _lock(cli, stack, "stdio")
    p = Pty("call", "docs/search_docs", "--args", '{"query": "x"}')
    p.expect("text [Atlas]: ")
    others = [int(t) for t in os.listdir(f"/proc/{p.pid}/task") if int(t) != p.pid]
    if not others:  # a Python whose child watcher needs no thread (3.12+ with pidfd): nothing to hand it to
        p.send("\x03")
        p.wait()
        pytest.skip("mcplock runs no second thread here")
    os.kill(others[0], signal.SIGINT)
    p.expect("cancelled")
    code, out = p.wait()
    assert code == 0 and _on_pty(out) == {"action": "cancel"}, out


def test_hostile_form_text_is_shown_escaped(cli):
    with ExitStack() as stack:
        _lock(cli, stack, "stdio", HOSTILE)
    p = Pty("call", "docs/book")
    p.expect("text [me]: ")
    p.send("\n")
    p.expect("send these answers?")
    p.send("\n")
    code, out = p.wait()
    assert code == 0, out
    shown = out[: out.index("send these answers?")]
    assert "\x1b" not in shown and "\u202e" not in shown and "\x07" not in shown
    assert "\\x1b[31mred" in shown and "\\x1b]8;;http://evil.example\\x07\\u202e" in shown
    assert "::add-mask::" not in shown and "\\x3a:add-mask::x\\x0aPick" in shown  # one line, no workflow command
    assert "[bold]not markup[/bold]" in shown  # printed as text, not read as rich markup
    assert _on_pty(out) == {"action": "accept", "content": {"who": "me"}}


@pytest.mark.parametrize("transport", ["stdio", "http-get"])
def test_connect_on_elicit_answers_and_its_time_does_not_count_against_the_timeout(cli, transport):
    asked: list[str] = []

    async def answer(server: str, params: dict) -> dict:
        asked.append(f"{server}: {params['message']}")
        await asyncio.sleep(1.5)  # a person longer than the call's timeout
        return {"action": "accept", "content": {"seats": 2}}

    async def call(**kw) -> dict:
        async with mcplock.connect("docs", **kw) as s:
            return await s.call_tool("search_docs", {"query": "x"}, timeout=1.0)  # type: ignore[no-any-return]

    with ExitStack() as stack:
        _lock(cli, stack, transport)
        res = asyncio.run(call(on_elicit=answer))
        declined = asyncio.run(call())
        bad = asyncio.run(call(on_elicit=lambda _s, _p: {"action": "accept", "content": {"seats": 99}}))
    assert asked == ["docs: Book the meeting room?"]
    assert _elicited(json.dumps(res)) == {"action": "accept", "content": {**DEFAULTS, "seats": 2}}
    assert _elicited(json.dumps(declined)) == {"action": "decline"}  # no hook: declined
    assert _elicited(json.dumps(bad)) == {"action": "decline"}  # an answer the schema rejects is never sent
