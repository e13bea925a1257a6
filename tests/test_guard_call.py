"""`mcplock call` (connect, verify, call, close) and the library's `mcplock.connect`."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest
from setupcache import locked

import mcplock
from mcplock.errors import ProbeError
from mcplock.guard.session import Refused

from runner import SURFACES, stdio_command

CALLS = "calls.jsonl"


def _lock(cli, policy: str = "all", mode: str = "benign") -> None:
    shutil.copy(SURFACES / "demo.json", "surface.json")
    cmd = stdio_command(mode=mode, surface="surface.json", extra_args=["--call-log", CALLS])
    locked(("add", "docs", "--yes", "--policy", policy, "--", *cmd))


def _calls() -> list[str]:
    p = Path(CALLS)
    return [json.loads(line)["name"] for line in p.read_text().splitlines()] if p.exists() else []


def test_call_prints_the_result_and_exits_0(cli):
    _lock(cli, policy="none")
    r = cli("call", "docs/search_docs", "--args", '{"query": "x"}')
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == {
        "content": [{"type": "text", "text": "fixture: called search_docs"}],
        "isError": False,
    }


def test_call_exit_codes(cli):
    _lock(cli, policy="all")
    # approval = "always" off a terminal: refused unless --approve
    r = cli("call", "docs/search_docs", "--args", '{"query": "x"}')
    assert r.returncode == 1 and r.stdout == ""
    assert "needs approval" in r.stderr and "mcplock approval docs/search_docs never" in r.stderr
    assert cli("call", "docs/search_docs", "--args", '{"query": "x"}', "--approve").returncode == 0
    # unknown to the lock: refused, nothing sent
    r = cli("call", "docs/run_shell", "--approve")
    assert r.returncode == 1 and "not in the lock" in r.stderr
    # invalid arguments: checked locally, usage error
    r = cli("call", "docs/read_page", "--args", '{"page_id": "NOT VALID"}', "--approve")
    assert r.returncode == 2 and "locked schema" in r.stderr
    for bad in (["docs/search_docs", "--args", "{nope"], ["docs/search_docs", "--args", "[1]"], ["docs"]):
        assert cli("call", *bad).returncode == 2
    assert cli("call", "nosuch/tool").returncode == 2
    assert _calls() == ["search_docs"]


def test_call_of_a_changed_tool_is_refused_and_unreachable_is_3(cli):
    _lock(cli, policy="none")
    shutil.copy(SURFACES / "demo-rugpull.json", "surface.json")
    r = cli("call", "docs/search_docs", "--args", '{"query": "x"}')
    assert r.returncode == 1 and "changed upstream since it was accepted" in r.stderr
    assert "mcplock diff docs" in r.stderr
    Path("mcp.lock").write_text(Path("mcp.lock").read_text().replace('"benign"', '"crash"'))
    assert cli("trust").returncode == 0  # an edited command runs once trusted here
    r = cli("call", "docs/delete_page", "--args", '{"page_id": "a"}')
    assert r.returncode == 3 and "fatal: cannot open database" in r.stderr
    assert _calls() == []


def test_call_returning_is_error_exits_1(cli):
    surface = {"tools": [{"name": "always_fails", "description": "x", "inputSchema": {"type": "object"}}]}
    Path("surface.json").write_text(json.dumps(surface))
    assert cli("add", "docs", "--yes", "--policy", "none", "--", *stdio_command(surface="surface.json")).returncode == 0
    r = cli("call", "docs/always_fails")
    assert r.returncode == 1 and json.loads(r.stdout)["isError"] is True


def test_connect_lists_and_calls_under_the_lock(cli):
    _lock(cli, policy="all")

    async def main() -> tuple[list[str], dict, str]:
        asked: list[str] = []

        async def approve(server: str, tool: str, args: object) -> bool:
            asked.append(f"{server}/{tool}")
            return True

        async with mcplock.connect("docs", approve=approve) as s:
            names = [t["name"] for t in await s.list_tools()]
            res = await s.call_tool("search_docs", {"query": "x"})
            with pytest.raises(Refused):
                await s.call_tool("run_shell", {})
            with pytest.raises(mcplock.InvalidArguments):
                await s.call_tool("read_page", {"page_id": "NOT VALID"})
        return names, res, ",".join(asked)

    names, res, asked = asyncio.run(main())
    assert names == ["delete_page", "read_page", "search_docs"]
    assert res["isError"] is False and asked == "docs/search_docs"

    async def unapproved() -> None:
        async with mcplock.connect("docs") as s:
            await s.call_tool("search_docs", {"query": "x"})

    with pytest.raises(Refused) as e:
        asyncio.run(unapproved())
    assert e.value.reason == "approval"
    assert _calls() == ["search_docs"]


def test_connect_to_an_unreachable_server_raises_probe_error(cli):
    _lock(cli, policy="none", mode="benign")
    Path("mcp.lock").write_text(Path("mcp.lock").read_text().replace('"benign"', '"crash"'))
    assert cli("trust").returncode == 0  # an edited command runs once trusted here

    async def main() -> None:
        async with mcplock.connect("docs"):
            pass

    with pytest.raises(ProbeError) as e:
        asyncio.run(main())
    assert e.value.exit_code == 3


def test_the_guard_path_imports_neither_the_sdk_nor_the_cli_stack():
    import subprocess
    import sys

    code = (
        "import sys; import mcplock.cli.fast_run, mcplock.guard, mcplock.guard.guard, mcplock.guard.session, "
        "mcplock.probe._stdio, mcplock.core.probing; "
        "heavy = ('mcp', 'typer', 'rich', 'jsonschema', 'httpx2', 'deepdiff'); "
        "print(sorted(m for m in heavy if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
