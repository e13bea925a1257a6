"""What a target names in a lock (mcplock.lock.targets.resolve), in-process: the whole server, one
item, a short spelling that a tool carries too, a name that differs only in case, tools only."""

from __future__ import annotations

import pytest

from mcplock.errors import UsageError
from mcplock.lock import review
from mcplock.lock.model import Lock
from mcplock.lock.targets import parse, resolve

from lockdata import accepted_server, snapshot

PROMPT = {"name": "intro", "description": "Start here."}


def _lock(*tool_names: str) -> Lock:
    tools = [{"name": n, "description": f"{n}.", "inputSchema": {"type": "object"}} for n in tool_names]
    srv = accepted_server("docs", tools)
    review.stage(srv, snapshot(tools, prompts=[PROMPT]))
    for e in list(srv.entries()):
        review.accept(srv, e)
    return Lock(servers={"docs": srv})


def _keys(lock: Lock, text: str, **kw: bool) -> list[tuple[str, str]]:
    _srv, entries = resolve(lock, parse(text), **kw)
    return [(e.kind, e.key) for e in entries]


def test_a_server_names_every_entry_and_an_item_itself() -> None:
    lock = _lock("search")
    assert _keys(lock, "docs") == [("instructions", "instructions"), ("tool", "search"), ("prompt", "intro")]
    assert _keys(lock, "docs/search") == [("tool", "search")]
    assert _keys(lock, "docs/prompt:intro") == [("prompt", "intro")]
    assert _keys(lock, "docs/instructions") == [("instructions", "instructions")]


def test_a_short_spelling_only_a_tool_carries_names_the_tool() -> None:
    lock = _lock("search", "prompt:outro")
    assert _keys(lock, "docs/prompt:outro") == [("tool", "prompt:outro")]


def test_a_short_spelling_that_names_two_things_is_refused_with_both_spellings() -> None:
    lock = _lock("search", "instructions", "prompt:intro")
    with pytest.raises(UsageError) as e:
        resolve(lock, parse("docs/instructions"))
    assert str(e.value) == (
        "`docs/instructions` names two things of `docs`: the server's instructions "
        "(`docs/instructions`) and a tool (`docs/tool:instructions`)"
    )
    assert (
        e.value.hint == "write `docs/tool:instructions` for the tool, `docs/instructions` for the server's instructions"
    )
    with pytest.raises(UsageError, match=r"the prompt \(`docs/prompt:intro`\) and a tool \(`docs/tool:prompt:intro`\)"):
        resolve(lock, parse("docs/prompt:intro"))
    assert _keys(lock, "docs/tool:instructions") == [("tool", "instructions")]


def test_a_missing_tool_suggests_the_one_that_differs_in_case() -> None:
    lock = _lock("Search")
    with pytest.raises(UsageError) as e:
        resolve(lock, parse("docs/search"))
    assert str(e.value) == "no tool `search` on server `docs`"
    assert e.value.hint == "did you mean `docs/Search`?"
    with pytest.raises(UsageError) as e:
        resolve(lock, parse("docs/prompt:nope"))
    assert str(e.value) == "no prompt `nope` on server `docs`"
    assert e.value.hint == "see `mcplock list` for what `docs` has"


def test_tool_only_refuses_another_kind() -> None:
    lock = _lock("search")
    with pytest.raises(UsageError, match=r"`docs/prompt:intro` is not a tool"):
        resolve(lock, parse("docs/prompt:intro"), tool_only=True)
    assert _keys(lock, "docs/search", tool_only=True) == [("tool", "search")]
