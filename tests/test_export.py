"""`mcplock export`: the lock's flags in each host's settings (golden files per host), merged
beside the user's own content, idempotent, reversible, and checked by `mcplock check`."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from setupcache import locked

from mcplock.hosts import load_host_config

from lockdata import make_lock

DATA = Path(__file__).parent / "data" / "host-configs"
GOLDEN = Path(__file__).parent / "golden" / "export"
UPDATE = os.environ.get("MCPLOCK_UPDATE_GOLDEN") == "1"

# host file in the project <- sample it starts from (the sample server `docs` added where the
# host needs the server defined in the same file)
FILES = {
    ".claude/settings.json": "claude-code.settings.json",
    ".codex/config.toml": "codex.config.toml",
    ".gemini/settings.json": "gemini.settings.json",
    "opencode.json": "opencode.json",
}


def _project() -> dict[str, bytes]:
    make_lock()
    for rel, sample in FILES.items():
        Path(rel).parent.mkdir(parents=True, exist_ok=True)
        text = (DATA / sample).read_text()
        if rel == ".codex/config.toml":
            text += '\n[mcp_servers.docs]\ncommand = "python"\nargs = ["server.py"]\n'
        if rel == "opencode.json":
            docs = '\n    "docs": {"type": "local", "command": ["python", "server.py"]},'
            text = text.replace('"mcp": {', '"mcp": {' + docs, 1)
        if rel == ".gemini/settings.json":  # docs defined, and started (`mcp.allowed` lists it)
            text = text.replace(
                '"project-tools": {', '"docs": {\n      "command": "python"\n    },\n    "project-tools": {'
            ).replace('"allowed": ["github",', '"allowed": ["docs", "github",')
        Path(rel).write_text(text)
    return {rel: Path(rel).read_bytes() for rel in FILES}


def _flags(cli):
    locked(("disable", "docs/delete_page"), ("approval", "docs/search_docs", "never"), inputs=())


def test_golden_per_host_and_the_users_content_kept(cli):
    before = _project()
    _flags(cli)
    r = cli("export")
    assert r.returncode == 0, r.stderr
    for rel in FILES:
        golden = GOLDEN / (rel.strip(".").replace("/", "_") + ".golden")
        if UPDATE:
            golden.write_bytes(Path(rel).read_bytes())
        assert Path(rel).read_bytes() == golden.read_bytes(), rel
        # every line the user wrote is still there, in the same order
        new = Path(rel).read_text().splitlines()
        it = iter(new)
        assert all(any(line.rstrip(",") == n.rstrip(",") for n in it) for line in before[rel].decode().splitlines()), (
            rel
        )


def test_second_run_leaves_bytes_and_mtime_alone_and_dry_run_is_a_gate(cli):
    _project()
    _flags(cli)
    r = cli("export", "--dry-run")
    assert r.returncode == 1
    assert '+      "mcp__docs__delete_page"' in r.stdout
    assert not Path("mcp.lock.exports.json").exists()
    assert cli("export").returncode == 0
    stamps = {rel: (Path(rel).read_bytes(), os.stat(rel).st_mtime_ns) for rel in [*FILES, "mcp.lock.exports.json"]}
    r = cli("export")
    assert r.returncode == 0 and "already in sync" in r.stderr
    assert stamps == {rel: (Path(rel).read_bytes(), os.stat(rel).st_mtime_ns) for rel in stamps}
    r = cli("export", "--dry-run")
    assert (r.returncode, r.stdout) == (0, "")


def test_rules_for_servers_that_left_the_lock_are_removed_byte_for_byte(cli):
    before = _project()
    _flags(cli)
    assert cli("export").returncode == 0
    assert {rel: Path(rel).read_bytes() for rel in FILES} != before
    assert cli("remove", "docs").returncode == 0
    assert cli("export").returncode == 0
    assert {rel: Path(rel).read_bytes() for rel in FILES} == before


def test_a_flag_change_moves_the_rule_and_leaves_the_users_rules(cli):
    _project()
    _flags(cli)
    cli("export")
    cli("enable", "docs/delete_page")
    assert cli("export", "--host", "claude-code").returncode == 0
    text = Path(".claude/settings.json").read_text()
    assert "mcp__docs__delete_page" in text.split('"ask"')[1].split('"deny"')[0]
    assert text.count("mcp__docs__delete_page") == 1
    assert '"mcp__github__merge_pull_request"' in text


def test_check_reports_exported_settings_that_drift(cli):
    _project()
    _flags(cli)
    cli("export")
    assert cli("check").returncode == 0
    cli("enable", "docs/delete_page", "--no-export")
    r = cli("check")
    assert r.returncode == 1 and ".claude/settings.json" in r.stdout and "mcplock export --host claude-code" in r.stdout
    cli("export")
    assert cli("check").returncode == 0
    # a hand edit of a rule mcplock wrote
    p = Path("opencode.json")
    p.write_text(p.read_text().replace('"docs_search_docs": "allow"', '"docs_search_docs": "deny"'))
    r = cli("check")
    assert r.returncode == 1 and "opencode.json" in r.stdout


def test_a_key_for_a_locked_tool_holds_the_locks_decision(cli):
    """The lock decides each locked tool (issue 42.7): a key naming one that says otherwise (a
    hand edit, an older export restored) is set to the lock's value, with a note; the user's
    other keys stay."""
    _project()
    p = Path("opencode.json")
    p.write_text(p.read_text().replace('"github_*": "ask"', '"github_*": "ask",\n    "docs_delete_page": "allow"'))
    _flags(cli)
    r = cli("export", "--host", "opencode")
    assert r.returncode == 0
    perm = json.loads(p.read_text())["permission"]
    assert perm["docs_delete_page"] == "deny" and perm["github_*"] == "ask"
    assert "gave way to the lock's" in r.stderr and "`permission.docs_delete_page` = 'allow'" in r.stderr


@pytest.mark.parametrize("bad,line", [('{\n  "permissions": {\n    "allow": ["a" "b"]\n  }\n}\n', 3)])
def test_invalid_file_is_exit_2_and_nothing_is_written(cli, bad, line):
    before = _project()
    Path(".claude/settings.json").write_text(bad)
    _flags(cli)
    r = cli("export")
    assert (
        r.returncode == 2 and f".claude/settings.json:{line}: invalid JSON" in r.stderr and "Traceback" not in r.stderr
    )
    assert {rel: Path(rel).read_bytes() for rel in FILES if rel != ".claude/settings.json"} == {
        rel: b for rel, b in before.items() if rel != ".claude/settings.json"
    }
    assert not Path("mcp.lock.exports.json").exists()


def test_invalid_toml_and_a_symlink_are_refused(cli, tmp_path):
    _project()
    Path(".codex/config.toml").write_text("[mcp_servers.docs\ncommand = 1\n")
    r = cli("export", "--host", "codex")
    assert r.returncode == 2 and ".codex/config.toml:1: invalid TOML" in r.stderr
    target = tmp_path / "elsewhere.json"
    target.write_text("{}\n")
    os.remove(".claude/settings.json")
    os.symlink(target, ".claude/settings.json")
    r = cli("export", "--host", "claude-code")
    assert r.returncode == 2 and "symbolic link" in r.stderr
    assert target.read_text() == "{}\n"
    # a host directory that links out of the project
    outside = tmp_path / "outside"
    outside.mkdir()
    shutil.rmtree(".gemini")
    os.symlink(outside, ".gemini")
    r = cli("export", "--host", "gemini")
    assert r.returncode == 2 and "link out of the project" in r.stderr
    assert list(outside.iterdir()) == []


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write a read-only file")
def test_a_read_only_file_is_refused(cli):
    _project()
    os.chmod("opencode.json", 0o444)
    r = cli("export")
    assert r.returncode == 2 and "opencode.json: not writable" in r.stderr


def test_guard_routes_servers_and_no_guard_restores_byte_for_byte(cli):
    make_lock()
    mcp = (
        '{\n  "mcpServers": {\n    "docs": {"command": "python", "args": ["server.py"], "env": {"A": "${A}"}},\n'
        '    "other": {"command": "x"}\n  }\n}\n'
    )
    Path(".mcp.json").write_text(mcp)
    assert cli("export", "--host", "claude-code", "--guard").returncode == 0
    routed = json.loads(Path(".mcp.json").read_text())["mcpServers"]["docs"]
    # Claude Code sets CLAUDE_PROJECT_DIR for the servers it starts; the entry's env is passed on
    assert routed == {
        "command": "mcplock",
        "args": ["run", "docs", "--lockfile", "${CLAUDE_PROJECT_DIR:-.}/mcp.lock"],
        "env": {"A": "${A}"},
    }
    data = load_host_config(".mcp.json").servers
    assert data["other"].spec.command == "x"
    assert cli("export", "--host", "claude-code").returncode == 0  # stays routed
    assert load_host_config(".mcp.json").servers["docs"].spec.command == "mcplock"
    assert cli("export", "--host", "claude-code", "--no-guard").returncode == 0
    assert Path(".mcp.json").read_text() == mcp


def test_guard_refuses_an_entry_with_a_literal_secret(cli):
    make_lock()
    Path(".mcp.json").write_text(
        '{"mcpServers": {"docs": {"command": "python", "env": {"TOKEN": "ghp_' + "a" * 36 + '"}}}}\n'
    )
    r = cli("export", "--host", "claude-code", "--guard")
    assert r.returncode == 2 and "literal secret" in r.stderr and "ghp_" not in r.stderr + r.stdout


def test_opencode_import_v1_and_v2():
    v1 = load_host_config(DATA / "opencode.json")
    assert v1.host == "opencode"
    fs = v1.servers["filesystem"].spec
    assert (fs.command, fs.args, fs.env) == (
        "npx",
        ("-y", "@modelcontextprotocol/server-filesystem", "./docs"),
        {"LOG_LEVEL": "info"},
    )
    gh = v1.servers["github"].spec
    assert (gh.transport, gh.headers) == ("http", {"Authorization": "Bearer ${GITHUB_TOKEN}"})
    v2 = load_host_config(DATA / "opencode.v2.jsonc")
    assert sorted(v2.servers) == ["filesystem", "scratch"]
    assert any("disabled" in w for w in v2.servers["scratch"].warnings)


def test_init_finds_opencode(tmp_path):
    from mcplock.hosts import discover

    shutil.copy(DATA / "opencode.json", "opencode.json")
    assert [p.name for p in discover(".")] == ["opencode.json"]
