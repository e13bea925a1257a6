"""Issue 42.7: each host's export covers only the servers that host launches and starts, as its
own project config says, and a rule for a locked tool that says otherwise than the lock (an
older export restored from git, a hand edit) gives way to the lock's.

- opencode's `"enabled": false` / `"disabled": true`, Codex's `enabled = false`, Claude Code's
  `disabledMcpjsonServers` (settings or local settings), Gemini CLI's `mcp.excluded` keep a
  server off: it gets no rule there;
- the note on what a host cannot deny names only the servers its project config starts directly
  (the ones `--guard` can route): none for a host without a project server list (Cursor without
  `.cursor/mcp.json`, Claude Code without `.mcp.json`), none once routed;
- an `ask` restored beside the `deny` mcplock wrote is taken out, and `check` reports it first.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from mcplock.lock import store
from mcplock.lock.model import Lock

from lockdata import accepted_server

SERVERS = ("docs", "other", "third")


def _lock() -> None:
    store.save(Lock(servers={n: accepted_server(n) for n in SERVERS}), "mcp.lock")


def _entry(name: str, **extra) -> dict:
    return {"command": "python", "args": [f"{name}.py"], **extra}


def test_a_server_the_host_does_not_start_gets_no_rule_there(cli):
    _lock()
    Path(".mcp.json").write_text(json.dumps({"mcpServers": {n: _entry(n) for n in SERVERS}}))
    Path(".claude").mkdir()
    Path(".claude/settings.local.json").write_text(json.dumps({"disabledMcpjsonServers": ["other"]}))
    oc = {n: {"type": "local", "command": ["python", f"{n}.py"]} for n in SERVERS}
    oc["other"]["enabled"] = False
    oc["third"]["disabled"] = True
    Path("opencode.json").write_text(json.dumps({"mcp": oc}, indent=2))
    Path(".codex").mkdir()
    Path(".codex/config.toml").write_text(
        "".join(
            f'[mcp_servers.{n}]\ncommand = "python"\n' + ("enabled = false\n" if n == "third" else "") for n in SERVERS
        )
    )
    Path(".gemini").mkdir()
    gemini = {"mcp": {"excluded": ["docs"]}, "mcpServers": {n: _entry(n) for n in SERVERS}}
    Path(".gemini/settings.json").write_text(json.dumps(gemini, indent=2))

    r = cli("export")
    assert r.returncode == 0, r.stdout + r.stderr
    claude = json.loads(Path(".claude/settings.json").read_text())["permissions"]
    assert {r.split("__")[1] for rules in claude.values() for r in rules} == {"docs", "third"}
    perm = json.loads(Path("opencode.json").read_text())["permission"]
    assert {k.split("_")[0] for k in perm if not k.startswith("mcp__")} == {"docs"}, perm
    codex = tomllib.loads(Path(".codex/config.toml").read_text())["mcp_servers"]
    assert "enabled_tools" in codex["docs"] and "enabled_tools" in codex["other"]
    assert set(codex["third"]) == {"command", "enabled"}
    gem = json.loads(Path(".gemini/settings.json").read_text())["mcpServers"]
    assert "includeTools" not in gem["docs"] and "includeTools" in gem["other"]
    # the note names only what the project starts directly, once per host
    note = next(line for line in r.stderr.splitlines() if "claude-code cannot deny" in line)
    assert "Route docs, third through" in note, note
    assert cli("check").returncode == 0


def test_the_default_deny_note_names_only_what_guard_can_route(cli):
    _lock()
    Path(".cursor").mkdir()
    Path(".cursor/rules").mkdir()  # a Cursor project without a server list of its own
    r = cli("export", "--host", "cursor", "--host", "claude-code")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "cannot deny" not in r.stderr, r.stderr  # --guard could route none of them
    Path(".cursor/mcp.json").write_text(json.dumps({"mcpServers": {"third": _entry("third")}}))
    r = cli("export", "--host", "cursor")
    notes = [line for line in r.stderr.splitlines() if "cannot deny" in line]
    assert len(notes) == 1 and "Route third through" in notes[0], r.stderr
    assert cli("export", "--host", "cursor", "--guard").returncode == 0
    r = cli("export", "--host", "cursor")
    assert r.returncode == 0 and "cannot deny" not in r.stderr, r.stderr


def test_a_restored_rule_that_says_otherwise_than_the_lock_gives_way(cli):
    _lock()
    Path(".mcp.json").write_text(json.dumps({"mcpServers": {"docs": _entry("docs")}}))
    Path("opencode.json").write_text(json.dumps({"mcp": {"docs": {"type": "local", "command": ["python"]}}}))
    assert cli("export", "--host", "claude-code", "--host", "opencode").returncode == 0
    old_claude = json.loads(Path(".claude/settings.json").read_text())
    assert "mcp__docs__search_docs" in old_claude["permissions"]["ask"]
    assert cli("disable", "docs/search_docs").returncode == 0
    # a person restores the old rules beside the new ones (an old settings file from git, merged)
    now = json.loads(Path(".claude/settings.json").read_text())
    assert now["permissions"]["deny"] == ["mcp__docs__search_docs"]
    now["permissions"]["ask"].append("mcp__docs__search_docs")
    now["permissions"]["allow"] = ["Bash(ls)", "mcp__unlocked__tool"]  # the person's own rules
    Path(".claude/settings.json").write_text(json.dumps(now, indent=2) + "\n")
    oc = json.loads(Path("opencode.json").read_text())
    oc["permission"]["docs_search_docs"] = "ask"
    Path("opencode.json").write_text(json.dumps(oc, indent=2) + "\n")

    r = cli("check")
    assert r.returncode == 1 and ".claude/settings.json" in r.stdout and "opencode.json" in r.stdout, r.stdout
    r = cli("export")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "gave way to the lock's" in r.stderr and "`mcp__docs__search_docs` in `permissions.ask`" in r.stderr
    perms = json.loads(Path(".claude/settings.json").read_text())["permissions"]
    assert "mcp__docs__search_docs" not in perms["ask"] and perms["deny"] == ["mcp__docs__search_docs"]
    assert perms["allow"] == ["Bash(ls)", "mcp__unlocked__tool"]
    perm = json.loads(Path("opencode.json").read_text())["permission"]
    assert perm["docs_search_docs"] == perm["mcp__docs__search_docs"] == "deny"
    assert cli("check").returncode == 0
    # and once the lock allows the tool again, nothing of the old deny is left behind
    assert cli("enable", "docs/search_docs").returncode == 0
    perms = json.loads(Path(".claude/settings.json").read_text())["permissions"]
    assert "mcp__docs__search_docs" in perms["ask"] and "deny" not in perms
    assert cli("check").returncode == 0
