"""`mcplock export` edge cases: formats (JSONC comments, tabs, CRLF), --guard per host and
back byte for byte, check with guard-routed entries, bad shapes, untrusted names."""

from __future__ import annotations

import json
import sys
import tomllib
from dataclasses import replace
from pathlib import Path

from setupcache import locked

from mcplock.hosts import load_host_config

from lockdata import TOOLS, make_lock, snapshot

DATA = Path(__file__).parent / "data" / "host-configs"
GOLDEN = Path(__file__).parent / "golden" / "export"
FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "mcp_fixture.py"


def _flags(cli):
    locked(("disable", "docs/delete_page"), ("approval", "docs/search_docs", "never"), inputs=())


def test_cursor_allowlist_and_cli_permissions_golden(cli):
    make_lock()
    Path(".cursor").mkdir()
    Path(".cursor/mcp.json").write_text('{"mcpServers": {"docs": {"command": "python"}}}\n')
    # the user's own allowlist entries and comments stay
    Path(".cursor/permissions.json").write_text('{\n  // team rules\n  "mcpAllowlist": ["github:*"]\n}\n')
    _flags(cli)
    assert cli("export").returncode == 0
    assert Path(".cursor/cli.json").read_bytes() == (GOLDEN / "cursor_cli.json.golden").read_bytes()
    assert (
        Path(".cursor/permissions.json").read_text()
        == '{\n  // team rules\n  "mcpAllowlist": ["github:*", "docs:search_docs"]\n}\n'
    )
    cli("approval", "docs/search_docs", "always", "--no-export")
    assert cli("check").returncode == 1
    assert cli("export", "--host", "cursor").returncode == 0
    assert Path(".cursor/permissions.json").read_text() == '{\n  // team rules\n  "mcpAllowlist": ["github:*"]\n}\n'
    assert Path(".cursor/mcp.json").read_text() == '{"mcpServers": {"docs": {"command": "python"}}}\n'


def test_jsonc_comments_trailing_commas_tabs_and_crlf_survive(cli):
    make_lock()
    text = (
        (DATA / "opencode.v2.jsonc")
        .read_text()
        .replace(  # the lock's server, launched by opencode
            '"servers": {', '"servers": {\n      "docs": {"type": "local", "command": ["python", "server.py"]},', 1
        )
    )
    text = text.replace("  ", "\t").replace("\n", "\r\n")
    Path("opencode.jsonc").write_bytes(text.encode())
    _flags(cli)
    assert cli("export").returncode == 0
    new = Path("opencode.jsonc").read_bytes().decode()
    assert new.startswith(text.rstrip("}\r\n"))  # every byte before the new keys is the user's
    assert (
        '\r\n\t"permission": {\r\n\t\t"docs_*": "deny",\r\n\t\t"mcp__docs__*": "deny",'
        '\r\n\t\t"docs_delete_page": "deny",\r\n\t\t"mcp__docs__delete_page": "deny",'
        '\r\n\t\t"docs_search_docs": "allow",\r\n\t\t"mcp__docs__search_docs": "allow"\r\n\t}'
    ) in new
    assert "// opencode config v2" in new and not Path("opencode.json").exists()
    cli("remove", "docs")
    assert cli("export").returncode == 0
    assert Path("opencode.jsonc").read_bytes().decode() == text


def test_codex_guard_and_back_byte_for_byte(cli):
    make_lock()
    Path(".codex").mkdir()
    text = (DATA / "codex.config.toml").read_text() + (
        '\n[mcp_servers.docs]  # ours\nstartup_timeout_sec = 5\ncommand = "python"\nargs = [\n  "server.py",\n]\n'
        'cwd = "/srv"\n\n[mcp_servers.docs.env]\nLOG = "1"\n'
    )
    Path(".codex/config.toml").write_text(text)
    _flags(cli)
    assert cli("export").returncode == 0
    exported = Path(".codex/config.toml").read_text()
    assert cli("export", "--guard").returncode == 0
    routed = tomllib.loads(Path(".codex/config.toml").read_text())["mcp_servers"]
    assert (routed["docs"]["command"], routed["docs"]["args"]) == ("mcplock", ["run", "docs"])
    assert "cwd" not in routed["docs"] and routed["docs"]["env"] == {"LOG": "1"}
    assert routed["docs"]["disabled_tools"] == ["delete_page"] and routed["docs"]["startup_timeout_sec"] == 5
    assert routed["github"]["url"]  # servers the lock does not know stay as they are
    assert cli("export", "--no-guard").returncode == 0
    assert Path(".codex/config.toml").read_text() == exported


def _lock_with_variables() -> None:
    from mcplock.lock import read, store

    make_lock()
    lock = read.load("mcp.lock")
    srv = lock.servers["docs"]
    srv.spec = replace(
        srv.spec,
        args=("${WORKDIR}/server.py",),
        pass_env=("EXISTING", "PASSED"),
        env={"DOCS_TOKEN": "${DOCS_TOKEN}", "LOG": "${LOG:-1}"},
    )
    store.save(lock, "mcp.lock")


def test_codex_guard_forwards_the_variables_the_lock_names(cli):
    _lock_with_variables()
    Path(".codex").mkdir()
    body = '[mcp_servers.docs]\ncommand = "python"\nargs = ["server.py"]\nenv_vars = [\n  "EXISTING",\n]\n'
    text = body + '\n[mcp_servers.docs.env]\nLOG = "1"\n'
    Path(".codex/config.toml").write_text(text)
    assert cli("export").returncode == 0
    exported = Path(".codex/config.toml").read_text()
    assert exported.startswith(body)  # the user's lines kept; the allowlist follows them
    assert cli("export", "--guard").returncode == 0
    routed = tomllib.loads(Path(".codex/config.toml").read_text())["mcp_servers"]["docs"]
    assert routed["command"] == "mcplock"
    # Codex hands the command only `env` and `env_vars`: the guard gets every variable the lock
    # names, once (LOG is set by `env`, EXISTING was listed already)
    assert routed["env_vars"] == ["EXISTING", "DOCS_TOKEN", "PASSED", "WORKDIR"]
    assert set(load_host_config(".codex/config.toml").servers["docs"].spec.pass_env) >= {"DOCS_TOKEN", "WORKDIR"}
    guarded = Path(".codex/config.toml").read_text()
    assert cli("export", "--guard").returncode == 0
    assert Path(".codex/config.toml").read_text() == guarded
    assert cli("export", "--no-guard").returncode == 0
    assert Path(".codex/config.toml").read_text() == exported
    # no `env_vars` at all: the key is added to the server's table
    Path(".codex/config.toml").write_text('[mcp_servers.docs]\ncommand = "python"\nargs = ["server.py"]\n')
    assert cli("export", "--guard").returncode == 0
    routed = tomllib.loads(Path(".codex/config.toml").read_text())["mcp_servers"]["docs"]
    assert routed["env_vars"] == ["DOCS_TOKEN", "EXISTING", "LOG", "PASSED", "WORKDIR"]


def test_gemini_and_opencode_guard_and_back(cli):
    make_lock("other.lock")
    Path(".gemini").mkdir()
    gem = (
        '{\n  "mcpServers": {\n    "docs": {\n      "command": "python",\n      "args": ["server.py"],\n'
        '      "timeout": 5000\n    }\n  }\n}\n'
    )
    Path(".gemini/settings.json").write_text(gem)
    oc = '{\n  "mcp": {\n    "docs": {"type": "local", "command": ["python", "server.py"], "enabled": true}\n  }\n}\n'
    Path("opencode.json").write_text(oc)
    assert cli("--lockfile", "other.lock", "export").returncode == 0
    after_export = {p: Path(p).read_text() for p in (".gemini/settings.json", "opencode.json")}
    assert cli("--lockfile", "other.lock", "export", "--guard").returncode == 0
    g = json.loads(Path(".gemini/settings.json").read_text())["mcpServers"]["docs"]
    assert g == {
        "command": "mcplock",
        "args": ["run", "docs", "--lockfile", "other.lock"],
        "timeout": 5000,
        "includeTools": ["delete_page", "search_docs"],
    }  # a tool filter of Gemini's own stays
    o = load_host_config("opencode.json").servers["docs"].spec
    assert (o.command, o.args) == ("mcplock", ("run", "docs", "--lockfile", "other.lock"))
    assert cli("--lockfile", "other.lock", "export", "--no-guard").returncode == 0
    assert {p: Path(p).read_text() for p in after_export} == after_export
    assert "guarded" not in Path("other.lock.exports.json").read_text()


def test_check_treats_a_guard_routed_entry_as_in_sync(cli):
    Path("opencode.json").write_text(
        json.dumps({"mcp": {"fx": {"type": "local", "command": [sys.executable, str(FIXTURE), "stdio"]}}}, indent=2)
        + "\n"
    )
    r = cli("add", "--from", "opencode.json", "--yes")
    assert r.returncode == 0, r.stderr
    assert cli("check").returncode == 0
    assert cli("export", "--guard").returncode == 0
    assert load_host_config("opencode.json").servers["fx"].spec.command == "mcplock"
    r = cli("check")
    assert r.returncode == 0, r.stdout
    # a hand edit to a rule mcplock wrote is drift, named with the fix
    text = Path("opencode.json").read_text()
    tool = next(k for k in json.loads(text)["permission"] if not k.endswith("*"))
    Path("opencode.json").write_text(text.replace(f'"{tool}": "ask"', f'"{tool}": "allow"'))
    r = cli("check")
    assert r.returncode == 1 and "opencode.json" in r.stdout and "mcplock export --host opencode" in r.stdout


def test_a_wrong_shape_is_exit_2_with_the_line(cli):
    make_lock()
    Path(".claude").mkdir()
    Path(".claude/settings.json").write_text('{\n  "permissions": {\n    "deny": "mcp__x"\n  }\n}\n')
    _flags(cli)
    r = cli("export")
    assert r.returncode == 2 and ".claude/settings.json:3: `permissions.deny` must be a list" in r.stderr
    assert "Traceback" not in r.stderr


def test_untrusted_tool_names_are_escaped_in_the_diff(cli):
    evil = dict(TOOLS[1], name="wipe\x1b[2J")
    make_lock(snap=snapshot(tools=[TOOLS[0], evil]))
    cli("disable", "docs/wipe\x1b[2J")
    Path(".gemini").mkdir()
    Path(".gemini/settings.json").write_text('{"mcpServers": {"docs": {"command": "python"}}}\n')
    r = cli("export", "--dry-run")
    assert r.returncode == 1 and "\x1b" not in r.stdout + r.stderr
    assert '"wipe\\u001b[2J"' in r.stdout


def test_no_host_config_and_an_unknown_host(cli):
    make_lock()
    r = cli("export")
    assert r.returncode == 0 and "no host config" in r.stderr and not Path("mcp.lock.exports.json").exists()
    r = cli("export", "--host", "notepad")
    assert r.returncode == 2 and "unknown host" in r.stderr


def test_check_reports_the_users_own_settings_that_override_the_lock(cli):
    make_lock()
    Path(".gemini").mkdir()
    Path(".gemini/settings.json").write_text('{"mcpServers": {"docs": {"command": "python", "trust": true}}}\n')
    Path("opencode.json").write_text('{\n  "permission": {\n    "docs_*": "allow"\n  }\n}\n')
    r = cli("export")
    assert r.returncode == 0 and "trust" in r.stderr
    # opencode: mcplock's keys come last, so the user's earlier wildcard does not win
    r = cli("check")
    assert r.returncode == 1 and ".gemini/settings.json (gemini): `mcpServers.docs.trust` is true" in r.stdout
    assert "opencode.json" not in r.stdout
    # a wildcard the user adds after mcplock's keys does
    text = Path("opencode.json").read_text()
    assert '"mcp__docs__search_docs": "ask"\n' in text
    text = text.replace('"mcp__docs__search_docs": "ask"\n', '"mcp__docs__search_docs": "ask",\n    "*": "allow"\n')
    Path("opencode.json").write_text(text)
    r = cli("check")
    assert "`permission.*` = 'allow' comes last and wins for `docs_delete_page`" in r.stdout


def test_guard_passes_the_variables_of_the_locks_templates_on(cli):
    from mcplock.lock import review, store
    from mcplock.lock.model import Lock, ServerEntry
    from mcplock.lock.spec import ServerSpec

    srv = ServerEntry(
        name="docs",
        spec=ServerSpec(
            "docs", transport="stdio", command="python", args=("server.py",), env={"TOKEN": "${DOCS_TOKEN}"}
        ),
    )
    review.stage(srv, snapshot())
    for e in list(srv.entries()):
        review.accept(srv, e)
    store.save(Lock(servers={"docs": srv}), "mcp.lock")
    Path("opencode.json").write_text(
        '{"mcp": {"docs": {"type": "local", "command": ["python", "server.py"], '
        '"environment": {"TOKEN": "{env:DOCS_TOKEN}"}}}}\n'
    )
    Path(".cursor").mkdir()
    Path(".cursor/mcp.json").write_text(
        '{"mcpServers": {"docs": {"command": "python", "args": ["server.py"], '
        '"env": {"TOKEN": "${env:DOCS_TOKEN}"}}}}\n'
    )
    assert cli("export", "--guard").returncode == 0
    oc = json.loads(Path("opencode.json").read_text())["mcp"]["docs"]
    assert oc["command"] == ["mcplock", "run", "docs"]
    assert oc["environment"] == {"TOKEN": "{env:DOCS_TOKEN}", "DOCS_TOKEN": "{env:DOCS_TOKEN}"}
    cu = json.loads(Path(".cursor/mcp.json").read_text())["mcpServers"]["docs"]
    assert cu["args"] == ["run", "docs", "--lockfile", "${workspaceFolder}/mcp.lock"]
    assert cu["env"] == {"TOKEN": "${env:DOCS_TOKEN}", "DOCS_TOKEN": "${env:DOCS_TOKEN}"}
