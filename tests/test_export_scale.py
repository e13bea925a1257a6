"""Issue 42.1: after `export`, `check` and the flag commands stay linear in the number of tools.

Each host file is parsed a bounded number of times per run, not once per rule: the console
script runs with tests/parsecount/sitecustomize.py, which counts the host-file text mcplock's
host code parses (JSONC blanking, tomllib, tomlkit) and opencode's wildcard matches. Before the
fix, `check` after an export of 300 tools parsed the host files about 2,000 times over (the
`permission` object re-read per rule) and matched every opencode key against every tool id.
The time this takes is measured in bench/ (`python bench/run.py gate`), never asserted here.
"""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path

from mcplock.lock import store
from mcplock.lock.model import Lock

from lockdata import accepted_server

ROOT = Path(__file__).resolve().parent.parent
HOOK = ROOT / "tests" / "parsecount"
N_SERVERS, PER_SERVER = 2, 150
HOST_FILES = (".claude/settings.json", ".mcp.json", "opencode.json", ".codex/config.toml")


def _tools(s: int) -> list[dict]:
    return [
        {"name": f"tool_{s}_{i:04d}", "description": f"Does thing {i}.", "inputSchema": {"type": "object"}}
        for i in range(PER_SERVER)
    ]


def _project() -> None:
    lock = Lock(servers={f"srv{s}": accepted_server(f"srv{s}", _tools(s)) for s in range(N_SERVERS)})
    store.save(lock, "mcp.lock")
    entries = {f"srv{s}": {"command": "python", "args": [f"srv{s}.py"]} for s in range(N_SERVERS)}
    Path(".mcp.json").write_text(json.dumps({"mcpServers": entries}, indent=2) + "\n")
    Path("opencode.json").write_text(
        json.dumps({"mcp": {n: {"type": "local", "command": ["python", f"{n}.py"]} for n in entries}}, indent=2) + "\n"
    )
    Path(".codex").mkdir()
    Path(".codex/config.toml").write_text(
        "".join(f'[mcp_servers.{n}]\ncommand = "python"\nargs = ["{n}.py"]\n\n' for n in entries)
    )


def _counted(cli, *args: str) -> tuple[object, dict[str, int]]:
    out = Path("parse-count.json").absolute()
    env = {
        "PYTHONPATH": os.pathsep.join([str(HOOK), os.environ.get("PYTHONPATH", "")]),
        "MCPLOCK_TEST_PARSE_COUNT": str(out),
    }
    r = cli(*args, env=env, timeout=300)
    counts = json.loads(out.read_text())
    out.unlink()
    return r, counts


def _host_bytes() -> int:
    return sum(Path(f).stat().st_size for f in HOST_FILES)


def test_check_and_a_flag_command_parse_each_host_file_a_bounded_number_of_times(cli):
    _project()
    r = cli("export", "--host", "claude-code", "--host", "opencode", "--host", "codex", timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    tool_ids = N_SERVERS * PER_SERVER * 2  # opencode writes two keys per tool

    r, counts = _counted(cli, "check")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "every hash matches" in r.stdout
    assert counts["calls"] > 0  # the hook counted this process
    # every host file read a few times in all (the plan, the contradictions), not once per rule
    assert counts["chars"] <= 8 * _host_bytes(), counts
    # a tool id is looked up, not matched against every key: a few matches per id (the user's keys after
    # mcplock's wildcards are matched once per server), where the code before matched ids x keys
    assert counts["matches"] <= 8 * tool_ids, counts

    r, counts = _counted(cli, "disable", "srv1/tool_1_0007")
    assert r.returncode == 0, r.stdout + r.stderr
    assert counts["chars"] <= 8 * _host_bytes(), counts
    assert counts["matches"] <= 8 * tool_ids, counts
    # and the export followed the flag, in every host
    perm = json.loads(Path("opencode.json").read_text())["permission"]
    assert perm["srv1_tool_1_0007"] == perm["mcp__srv1__tool_1_0007"] == "deny"
    assert "mcp__srv1__tool_1_0007" in json.loads(Path(".claude/settings.json").read_text())["permissions"]["deny"]
    codex = tomllib.loads(Path(".codex/config.toml").read_text())["mcp_servers"]["srv1"]
    assert "tool_1_0007" in codex["disabled_tools"] and "tool_1_0007" not in codex["enabled_tools"]

    r, counts = _counted(cli, "check")
    assert r.returncode == 0, r.stdout + r.stderr
    assert counts["chars"] <= 8 * _host_bytes(), counts


def test_the_first_export_to_codex_parses_its_file_a_bounded_number_of_times(cli):
    """Issue 42.6: each rule written into `.codex/config.toml` re-read the whole file (its tables,
    what it holds) and re-wrote a growing `enabled_tools` list: the first export of 300 tools took
    16 s at 400 tools and 100 s at 1,000. The edits are now kept and applied at once."""
    _project()
    r, counts = _counted(cli, "export", "--host", "codex")
    assert r.returncode == 0, r.stdout + r.stderr
    size = Path(".codex/config.toml").stat().st_size
    codex = tomllib.loads(Path(".codex/config.toml").read_text())["mcp_servers"]
    assert len(codex["srv1"]["enabled_tools"]) == PER_SERVER
    assert codex["srv0"]["tools"]["tool_0_0149"]["approval_mode"] == "prompt"
    assert counts["calls"] > 0  # the hook counted this process
    assert counts["chars"] <= 8 * size, (counts, size)
    r = cli("check")
    assert r.returncode == 0, r.stdout + r.stderr
