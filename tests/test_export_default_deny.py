"""Exports that default-deny: a tool the lock does not know — one the server starts offering after
the export — is not usable through the exported settings alone (docs/export.md, "Default deny").

Each host's settings are evaluated with that host's own matching rules: Gemini CLI's real
`isEnabled` (taken from the installed bundle and run in node), Codex's documented
`enabled_tools`/`disabled_tools`, opencode's last-matching-key wildcards, Claude Code's
deny > ask > allow. Claude Code itself reads a guard-routed `.mcp.json` and connects.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from setupcache import locked

from lockdata import make_lock

ROOT = Path(__file__).resolve().parent.parent
HOSTCLI = ROOT / "tests" / "hostcli" / "node_modules"
GEMINI_BUNDLE = HOSTCLI / "@google" / "gemini-cli" / "bundle"
CLAUDE = HOSTCLI / ".bin" / "claude"
FIXTURE = ROOT / "fixtures" / "mcp_fixture.py"

NEW_TOOL = "exfiltrate_all"  # what the server offers after the export: the lock never saw it


def _project(cli) -> None:
    """docs: search_docs allowed (approval never), delete_page disabled; every host's files."""
    make_lock()
    Path(".codex").mkdir()
    Path(".codex/config.toml").write_text('[mcp_servers.docs]\ncommand = "python"\nargs = ["server.py"]\n')
    Path(".gemini").mkdir()
    Path(".gemini/settings.json").write_text(json.dumps({"mcpServers": {"docs": {"command": "python"}}}) + "\n")
    Path("opencode.json").write_text(json.dumps({"mcp": {"docs": {"type": "local", "command": ["python"]}}}) + "\n")
    Path(".claude").mkdir()
    Path(".claude/settings.json").write_text("{}\n")
    Path(".mcp.json").write_text(json.dumps({"mcpServers": {"docs": {"command": "python"}}}) + "\n")
    locked(("disable", "docs/delete_page"), ("approval", "docs/search_docs", "never"), inputs=())


# --- each host's matching rules ----------------------------------------------------------------


def codex_offers(config: dict, server: str, tool: str) -> bool:
    """Codex: `enabled_tools` is an allowlist (absent: every tool), `disabled_tools` applied after."""
    srv = config["mcp_servers"][server]
    enabled = srv.get("enabled_tools")
    return (enabled is None or tool in enabled) and tool not in srv.get("disabled_tools", [])


def _wild(pattern: str, name: str) -> bool:
    rx = "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern)
    return re.fullmatch(rx, name) is not None


def opencode_decision(config: dict, tool_id: str) -> str:
    """opencode: the last key of `permission` that matches wins; no key: allowed."""
    hits = [v for k, v in config.get("permission", {}).items() if _wild(k, tool_id)]
    return hits[-1] if hits else "allow"


def claude_decision(settings: dict, server: str, tool: str) -> str:
    """Claude Code: deny, then ask, then allow; `mcp__S` and `mcp__S__*` name every tool of S;
    a tool no rule names is asked for."""
    perms = settings.get("permissions", {})
    names = {f"mcp__{server}", f"mcp__{server}__*", f"mcp__{server}__{tool}"}
    for verdict in ("deny", "ask", "allow"):
        if names & set(perms.get(verdict, [])):
            return verdict
    return "ask"


def gemini_offers(settings: dict, server: str, tools: list[str]) -> list[str]:
    """The tools Gemini CLI offers the model, decided by its own `isEnabled` (mcp-client.ts), read
    out of the installed bundle and run in node."""
    source = None
    for f in sorted(GEMINI_BUNDLE.glob("*.js")):
        m = re.search(
            r"^function isEnabled\(funcDecl, mcpServerName, mcpServerConfig\) \{.*?^\}", f.read_text(), re.S | re.M
        )
        if m:
            source = m.group(0)
            break
    assert source, "isEnabled not found in the Gemini CLI bundle"
    node = shutil.which("node")
    assert node
    script = (
        "const debugLogger = {warn() {}};\n" + source + "\nconst [cfg, server, tools] = JSON.parse(process.argv[1]);\n"
        "console.log(JSON.stringify(tools.filter((t) => isEnabled({name: t}, server, cfg))));\n"
    )
    arg = json.dumps([settings["mcpServers"][server], server, tools])
    r = subprocess.run([node, "-e", script, arg], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


needs_gemini = pytest.mark.skipif(not GEMINI_BUNDLE.exists(), reason="Gemini CLI not installed (make setup)")


# --- the tests ---------------------------------------------------------------------------------


def test_codex_gets_an_allowlist_a_new_tool_is_not_enabled(cli):
    _project(cli)
    r = cli("export", "--host", "codex")
    assert r.returncode == 0, r.stderr
    config = tomllib.loads(Path(".codex/config.toml").read_text())
    assert config["mcp_servers"]["docs"]["enabled_tools"] == ["search_docs"]
    assert codex_offers(config, "docs", "search_docs")
    assert not codex_offers(config, "docs", "delete_page")
    assert not codex_offers(config, "docs", NEW_TOOL)
    # every tool disabled: the allowlist stays, empty (absent, Codex would enable every tool)
    assert cli("disable", "docs/search_docs").returncode == 0
    assert cli("export", "--host", "codex").returncode == 0
    config = tomllib.loads(Path(".codex/config.toml").read_text())
    assert config["mcp_servers"]["docs"]["enabled_tools"] == []
    assert not codex_offers(config, "docs", NEW_TOOL)
    assert cli("check").returncode == 0
    # the server leaves the lock: the allowlist goes with it, the user's table is as it was
    assert cli("remove", "docs").returncode == 0
    assert cli("export", "--host", "codex").returncode == 0
    assert Path(".codex/config.toml").read_text() == '[mcp_servers.docs]\ncommand = "python"\nargs = ["server.py"]\n'


@needs_gemini
def test_gemini_gets_include_tools_its_own_code_hides_a_new_tool(cli):
    _project(cli)
    assert cli("export", "--host", "gemini").returncode == 0
    settings = json.loads(Path(".gemini/settings.json").read_text())
    assert settings["mcpServers"]["docs"]["includeTools"] == ["search_docs"]
    assert gemini_offers(settings, "docs", ["search_docs", "delete_page", NEW_TOOL]) == ["search_docs"]
    # the control: without the allowlist, Gemini's own code offers the new tool
    bare = {"mcpServers": {"docs": {k: v for k, v in settings["mcpServers"]["docs"].items() if k != "includeTools"}}}
    assert NEW_TOOL in gemini_offers(bare, "docs", ["search_docs", NEW_TOOL])
    # every tool disabled: an empty includeTools, which Gemini reads as "none"
    assert cli("disable", "docs/search_docs").returncode == 0
    assert cli("export", "--host", "gemini").returncode == 0
    settings = json.loads(Path(".gemini/settings.json").read_text())
    assert settings["mcpServers"]["docs"]["includeTools"] == []
    assert gemini_offers(settings, "docs", ["search_docs", NEW_TOOL]) == []


def test_opencode_denies_the_whole_server_first_then_each_known_tool(cli):
    _project(cli)
    assert cli("export", "--host", "opencode").returncode == 0
    config = json.loads(Path("opencode.json").read_text())
    keys = list(config["permission"])
    assert keys.index("docs_*") < keys.index("docs_search_docs")
    assert keys.index("mcp__docs__*") < keys.index("mcp__docs__search_docs")
    for prefix, sep in (("", "_"), ("mcp__", "__")):
        tid = f"{prefix}docs{sep}"
        assert opencode_decision(config, tid + "search_docs") == "allow"
        assert opencode_decision(config, tid + "delete_page") == "deny"
        assert opencode_decision(config, tid + NEW_TOOL) == "deny"
    # the control: without mcplock's server-wide keys the new tool would be allowed
    bare = {"permission": {k: v for k, v in config["permission"].items() if not k.endswith("*")}}
    assert opencode_decision(bare, "docs_" + NEW_TOOL) == "allow"


def test_an_older_export_is_put_in_order_the_server_wide_deny_before_the_tools(cli):
    """An export written before default deny has per-tool keys only; the next export must not
    append the server-wide deny after them (the last match wins: it would deny every tool)."""
    _project(cli)
    Path("opencode.json").write_text(
        json.dumps(
            {
                "mcp": {"docs": {"type": "local", "command": ["python"]}},
                "permission": {"bash": "ask", "docs_search_docs": "allow", "mcp__docs__search_docs": "allow"},
            }
        )
        + "\n"
    )
    assert cli("export", "--host", "opencode").returncode == 0
    config = json.loads(Path("opencode.json").read_text())
    assert opencode_decision(config, "docs_search_docs") == "allow"
    assert opencode_decision(config, "docs_" + NEW_TOOL) == "deny"
    assert next(iter(config["permission"])) == "bash"  # the user's key stays where it was
    # the user's two keys that say what the lock says are theirs: mcplock's come after them
    again = Path("opencode.json").read_bytes()
    assert cli("export", "--host", "opencode").returncode == 0
    assert Path("opencode.json").read_bytes() == again  # idempotent


def test_a_users_later_wildcard_that_reopens_the_server_is_reported(cli):
    _project(cli)
    assert cli("export", "--host", "opencode").returncode == 0
    config = json.loads(Path("opencode.json").read_text())
    config["permission"]["docs_*"] = "deny"
    config["permission"]["*"] = "allow"  # the user's, after mcplock's keys
    Path("opencode.json").write_text(json.dumps(config, indent=2) + "\n")
    r = cli("check")
    assert r.returncode == 1
    assert "`permission.*`" in r.stdout and "does not know" in r.stdout, r.stdout


def test_claude_code_asks_for_an_unknown_tool_and_the_export_says_what_fixes_it(cli):
    _project(cli)
    r = cli("export", "--host", "claude-code")
    assert r.returncode == 0, r.stderr
    settings = json.loads(Path(".claude/settings.json").read_text())
    assert claude_decision(settings, "docs", "search_docs") == "allow"
    assert claude_decision(settings, "docs", "delete_page") == "deny"
    assert claude_decision(settings, "docs", NEW_TOOL) == "ask"  # not allowed: Claude Code asks
    out = " ".join(r.stderr.split())
    assert "claude-code cannot deny a tool the lock does not know" in out, r.stderr
    assert "mcplock export --guard" in out
    # through the guard, nothing to warn about
    r = cli("export", "--host", "claude-code", "--guard")
    assert r.returncode == 0, r.stderr
    assert "cannot deny" not in r.stderr
    # a user's allow of the whole server lets an unknown tool run: check says so
    settings = json.loads(Path(".claude/settings.json").read_text())
    settings["permissions"]["allow"].append("mcp__docs")
    Path(".claude/settings.json").write_text(json.dumps(settings, indent=2) + "\n")
    assert claude_decision(settings, "docs", NEW_TOOL) == "allow"
    r = cli("check")
    assert r.returncode == 1 and "'mcp__docs'" in r.stdout and "does not know" in r.stdout, r.stdout


def test_hosts_that_can_deny_get_no_warning(cli):
    _project(cli)
    r = cli("export", "--host", "codex", "--host", "gemini", "--host", "opencode")
    assert r.returncode == 0, r.stderr
    assert "cannot deny" not in r.stderr


def test_cursor_cannot_deny_and_says_so_once(cli):
    make_lock()
    Path(".cursor").mkdir()
    Path(".cursor/mcp.json").write_text(json.dumps({"mcpServers": {"docs": {"command": "python"}}}) + "\n")
    Path(".cursor/cli.json").write_text("{}\n")
    r = cli("export", "--host", "cursor")
    assert r.returncode == 0, r.stderr
    assert " ".join(r.stderr.split()).count("cursor cannot deny a tool the lock does not know") == 1, r.stderr


@pytest.mark.skipif(not CLAUDE.exists(), reason="Claude Code not installed (make setup runs npm ci in tests/hostcli)")
def test_claude_code_connects_to_a_guard_routed_server(cli, tmp_path):
    """`claude mcp list` (no account needed) starts what `.mcp.json` names: after `export --guard`
    that is `mcplock run fx`, which verifies the fixture server against the lock and serves it."""
    project = Path.cwd()
    command = [sys.executable, str(FIXTURE), "stdio"]
    Path(".mcp.json").write_text(json.dumps({"mcpServers": {"fx": {"command": command[0], "args": command[1:]}}}))
    r = cli("add", "--from", ".mcp.json", "--yes")
    assert r.returncode == 0, r.stderr
    assert cli("export", "--host", "claude-code", "--guard").returncode == 0
    routed = json.loads(Path(".mcp.json").read_text())["mcpServers"]["fx"]
    assert routed["args"][:2] == ["run", "fx"], routed
    home = tmp_path / "claude-home"
    home.mkdir()
    # the workspace trusted and its project servers enabled, as a person would in Claude Code
    (home / ".claude.json").write_text(json.dumps({"projects": {str(project): {"hasTrustDialogAccepted": True}}}))
    Path(".claude/settings.local.json").write_text(json.dumps({"enableAllProjectMcpServers": True}))
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    env = {**os.environ, "HOME": str(home), "NO_COLOR": "1", "PATH": path}
    r = subprocess.run([str(CLAUDE), "mcp", "list"], cwd=project, env=env, capture_output=True, text=True, timeout=180)
    out = r.stdout + r.stderr
    assert "fx:" in out and "mcplock" in out and "Connected" in out, out
    # the control: a server whose guard refuses to start (no lock entry) does not read Connected
    bad = json.loads(Path(".mcp.json").read_text())
    bad["mcpServers"]["ghost"] = {**routed, "args": ["run", "ghost", *routed["args"][2:]]}
    Path(".mcp.json").write_text(json.dumps(bad))
    r = subprocess.run([str(CLAUDE), "mcp", "list"], cwd=project, env=env, capture_output=True, text=True, timeout=180)
    ghost = next(line for line in (r.stdout + r.stderr).splitlines() if line.startswith("ghost:"))
    assert "Connected" not in ghost, ghost


@needs_gemini
def test_a_tool_name_with_a_parenthesis_never_widens_geminis_allowlist(cli):
    """Gemini's isEnabled takes an `includeTools` entry `a(b` to name the tool `a` too: such a
    name gets no rule, so the tool `a`, which the lock does not know, stays hidden."""
    from mcplock.lock import review, store
    from mcplock.lock.model import Lock, ServerEntry
    from mcplock.lock.spec import ServerSpec

    from lockdata import snapshot

    srv = ServerEntry(name="docs", spec=ServerSpec("docs", transport="stdio", command="python", args=("server.py",)))
    review.stage(
        srv,
        snapshot([{"name": n, "description": "x", "inputSchema": {"type": "object"}} for n in ("search(v2)", "read")]),
    )
    for e in list(srv.entries()):
        review.accept(srv, e)
    store.save(Lock(servers={"docs": srv}), "mcp.lock")
    Path(".gemini").mkdir()
    Path(".gemini/settings.json").write_text(json.dumps({"mcpServers": {"docs": {"command": "python"}}}) + "\n")
    r = cli("export", "--host", "gemini")
    assert r.returncode == 0, r.stderr
    settings = json.loads(Path(".gemini/settings.json").read_text())
    assert settings["mcpServers"]["docs"]["includeTools"] == ["read"]
    assert gemini_offers(settings, "docs", ["search", "search(v2)", "read"]) == ["read"]
    # the control: the name written as an allow would have let Gemini offer `search`
    widened = {"mcpServers": {"docs": {"includeTools": ["read", "search(v2)"]}}}
    assert "search" in gemini_offers(widened, "docs", ["search", "read"])
