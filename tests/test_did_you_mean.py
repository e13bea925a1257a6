"""Issue 42.12: a mistyped server or tool name finds the name meant, in every command that takes
one (one shared place: mcplock/text/suggest.py) — `mcplock show memroy` says "did you mean
`memory`?". The lock holds the tool names of the npm reference server-memory; nothing runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcplock.lock import store
from mcplock.lock.model import Lock

from lockdata import accepted_server

MEMORY_TOOLS = [
    {"name": n, "description": d, "inputSchema": {"type": "object"}}
    for n, d in (
        ("create_entities", "Create multiple new entities in the knowledge graph"),
        ("read_graph", "Read the entire knowledge graph"),
        ("search_nodes", "Search for nodes in the knowledge graph based on a query"),
    )
]


@pytest.fixture
def memory_lock():
    store.save(Lock(servers={"memory": accepted_server("memory", MEMORY_TOOLS)}), "mcp.lock")
    Path(".mcp.json").write_text(json.dumps({"mcpServers": {"memory": {"command": "npx", "args": ["x"]}}}))


@pytest.mark.parametrize(
    ("args", "meant"),
    [
        (["show", "memroy"], "`memory`"),
        (["show", "memory/read_grph"], "`memory/read_graph`"),
        (["disable", "memory/Create_Entities"], "`memory/create_entities`"),
        (["enable", "memroy/read_graph"], "`memory`"),
        (["approval", "memory/serch_nodes", "never"], "`memory/search_nodes`"),
        (["accept", "memroy"], "`memory`"),
        (["reject", "memory/read_grap"], "`memory/read_graph`"),
        (["remove", "memroy"], "`memory`"),
        (["refresh", "memroy"], "`memory`"),
        (["diff", "memroy"], "`memory`"),
        (["trust", "memroy"], "`memory`"),
        (["run", "memroy"], "`memory`"),
        (["call", "memroy/read_graph"], "`memory`"),
        (["call", "memory/read_grph"], "`memory/read_graph`"),  # said before anything is trusted or runs
        (["auth", "login", "memroy"], "`memory`"),
        (["add", "--from", ".mcp.json", "memroy"], "`memory`"),
    ],
)
def test_a_mistyped_name_finds_the_name_meant(cli, memory_lock, args, meant):
    r = cli(*args, input="")
    assert r.returncode == 2, r.stdout + r.stderr
    assert f"did you mean {meant}?" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


def test_a_name_near_nothing_suggests_nothing(cli, memory_lock):
    r = cli("show", "github")
    assert r.returncode == 2 and "did you mean" not in r.stderr, r.stderr
    assert "no server `github` in the lock (locked: memory)" in r.stderr
