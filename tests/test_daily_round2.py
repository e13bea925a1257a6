"""The daily loop, round 2 (issue 32): exports that never break the project, hints that keep the
policy, teammates who can start on day one, typos that are not outages, closed pipes, quiet
`init`, a telling `accept --all`. Each through the console script, against the project's
fixtures (or a local stand-in of a registry)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import MCPLOCK, ROOT
from local_http import LocalHttp
from lockdata import TOOLS, make_lock, snapshot
from runner import stdio_command

# --- 1. export never writes an empty or invalid file ----------------------------------------------


def _cursor_project() -> None:
    make_lock()
    Path(".cursor").mkdir()
    Path(".cursor/mcp.json").write_text(
        json.dumps({"mcpServers": {"docs": {"command": "python", "args": ["server.py"]}}})
    )


def test_export_with_nothing_to_say_writes_no_file_and_check_passes_after_any_export(cli):
    _cursor_project()  # every tool asks (approval = "always"): nothing for Cursor's files to say
    r = cli("export")
    assert r.returncode == 0, r.stderr
    assert not Path(".cursor/cli.json").exists() and not Path(".cursor/permissions.json").exists()
    assert "no file for .cursor/cli.json (cursor): nothing to write there" in r.stdout
    assert cli("check").returncode == 0
    for args in (["--guard"], ["--no-guard"], []):
        r = cli("export", *args)
        assert r.returncode == 0, (args, r.stderr)
        r = cli("check")
        assert r.returncode == 0, (args, r.stdout)
        assert not Path(".cursor/cli.json").exists()
    # something to say later: the file appears, valid JSON, and goes again when it has nothing left
    assert cli("approval", "docs/search_docs", "never").returncode == 0
    assert json.loads(Path(".cursor/permissions.json").read_text()) == {"mcpAllowlist": ["docs:search_docs"]}
    assert cli("check").returncode == 0
    assert cli("approval", "docs/search_docs", "always").returncode == 0
    assert not Path(".cursor/permissions.json").exists()
    assert cli("check").returncode == 0


def test_gemini_without_a_config_gets_no_file(cli):
    make_lock()
    r = cli("export", "--host", "gemini")
    assert r.returncode == 0, r.stderr
    assert not Path(".gemini/settings.json").exists() and not Path(".gemini").exists()
    assert cli("check").returncode == 0
    assert cli("export", "--host", "gemini", "--guard").returncode == 0
    assert cli("check").returncode == 0


def test_the_empty_files_an_older_export_left_are_removed(cli):
    _cursor_project()
    for rel in (".cursor/cli.json", ".cursor/permissions.json"):
        Path(rel).write_text("")
    Path("mcp.lock.exports.json").write_text(
        json.dumps(
            {
                "version": 1,
                "files": {
                    ".cursor/cli.json": {"host": "cursor", "rules": []},
                    ".cursor/permissions.json": {"host": "cursor", "rules": []},
                },
            }
        )
    )
    r = cli("check")  # not "invalid JSON": the fix is the export, and the hint says it
    assert r.returncode == 1 and "export-drift" in r.stdout and "mcplock export --host cursor" in r.stdout
    r = cli("export")
    assert r.returncode == 0, r.stderr
    assert "removed .cursor/cli.json" in r.stdout
    assert not Path(".cursor/cli.json").exists() and not Path(".cursor/permissions.json").exists()
    assert cli("check").returncode == 0
    assert cli("export", "--guard").returncode == 0 and cli("check").returncode == 0


# --- 2. flag changes keep an export in step; a policy is repeated in every hint ---------------------


def _claude_project(**kw) -> None:
    make_lock(**kw)
    Path(".mcp.json").write_text(json.dumps({"mcpServers": {"docs": {"command": "python", "args": ["server.py"]}}}))
    Path(".claude").mkdir()
    Path(".claude/settings.json").write_text('{\n  "permissions": {\n    "allow": ["Bash(ls)"]\n  }\n}\n')


def _rules() -> dict:
    return json.loads(Path(".claude/settings.json").read_text())["permissions"]


def test_flag_commands_keep_the_export_in_step_and_say_so(cli):
    _claude_project()
    assert cli("export").returncode == 0
    r = cli("disable", "docs/delete_page")
    assert r.returncode == 0, r.stderr
    assert "updated .claude/settings.json (claude-code): exported flags kept in step" in r.stdout
    assert "mcp__docs__delete_page" in _rules()["deny"]
    assert cli("check").returncode == 0
    r = cli("approval", "docs/search_docs", "never")
    assert r.returncode == 0 and "mcp__docs__search_docs" in _rules()["allow"]
    assert cli("check").returncode == 0
    assert cli("enable", "docs/delete_page").returncode == 0
    assert "mcp__docs__delete_page" in _rules()["ask"] and "deny" not in _rules()
    assert cli("check").returncode == 0
    # --no-export leaves the files, says so, and check names the command
    r = cli("disable", "docs/delete_page", "--no-export")
    assert r.returncode == 0 and "--no-export" in r.stderr
    assert "deny" not in _rules()
    r = cli("check")
    assert r.returncode == 1 and "mcplock export --host claude-code" in r.stdout
    assert cli("export").returncode == 0
    r = cli("remove", "docs")
    assert r.returncode == 0 and "updated .claude/settings.json" in r.stdout
    assert _rules() == {"allow": ["Bash(ls)"]}
    assert cli("check").returncode == 0


def test_accept_and_reject_keep_the_export_in_step(cli):
    _claude_project(accept=False)  # everything pending: denied in the host
    assert cli("export").returncode == 0
    assert set(_rules()["deny"]) == {"mcp__docs__search_docs", "mcp__docs__delete_page"}
    r = cli("reject", "docs/delete_page")
    assert r.returncode == 0, r.stderr
    r = cli("accept", "docs/search_docs", "docs/instructions")
    assert r.returncode == 0, r.stderr
    assert "updated .claude/settings.json" in r.stdout
    assert _rules()["ask"] == ["mcp__docs__search_docs"] and _rules()["deny"] == ["mcp__docs__delete_page"]
    assert cli("check").returncode == 0


def test_a_policy_in_effect_is_repeated_by_every_hint_and_kept_by_the_flag_commands(cli):
    _claude_project()
    Path("org.toml").write_text('version = 1\n[tools]\nrequire-approval = ["*search*"]\n')
    assert cli("approval", "docs/search_docs", "never").returncode == 0
    assert cli("export", "--policy", "org.toml").returncode == 0
    assert "mcp__docs__search_docs" not in _rules().get("allow", [])  # the policy's approval holds
    assert cli("disable", "docs/delete_page", "--no-export").returncode == 0
    r = cli("check", "--policy", "org.toml")
    assert r.returncode == 1
    hint = re.search(r"run `(mcplock export[^`]*)`", r.stdout)
    assert hint and "--policy org.toml" in hint.group(1), r.stdout
    assert cli(*hint.group(1).split()[1:]).returncode == 0  # following it ends the loop
    r = cli("check", "--policy", "org.toml")
    assert "export-drift" not in r.stdout, r.stdout
    # without --policy, the flag commands and check use the policy the export recorded
    assert cli("enable", "docs/delete_page").returncode == 0
    assert "mcp__docs__search_docs" not in _rules().get("allow", [])
    r = cli("check")
    assert r.returncode == 0, r.stdout


# --- 3. merges: the export record merges as data; check names the export that regenerates ---------


def _git(*args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
    }
    return subprocess.run(["git", *args], capture_output=True, text=True, env=env, timeout=60)


def _two_branches_that_each_changed_a_flag(cli, driver: bool) -> subprocess.CompletedProcess[str]:
    _claude_project()
    assert _git("init", "-q", "-b", "main").returncode == 0
    assert cli("export").returncode == 0
    if driver:
        r = cli("merge-driver", "install")
        assert "mcp.lock.exports.json merge=mcplock" in r.stdout
        assert "mcp.lock.exports.json merge=mcplock" in Path(".gitattributes").read_text()
    _git("add", "-A")
    _git("commit", "-qm", "base")
    _git("checkout", "-qb", "theirs")
    assert cli("disable", "docs/delete_page").returncode == 0  # kept in step: the settings change too
    _git("commit", "-qam", "disable")
    _git("checkout", "-q", "main")
    assert cli("approval", "docs/search_docs", "never").returncode == 0
    _git("commit", "-qam", "approval")
    return _git("merge", "theirs", "-m", "merge")


@pytest.mark.parametrize("driver", [True, False])
def test_after_a_merge_check_names_the_export_that_regenerates_the_host_files(cli, driver):
    merged = _two_branches_that_each_changed_a_flag(cli, driver)
    status = _git("status", "--porcelain").stdout
    assert ("UU mcp.lock.exports.json" in status) is not driver, status
    if driver:  # the record merged as data, cleanly
        assert "mcplock: mcp.lock.exports.json: merged cleanly" in merged.stderr
        json.loads(Path("mcp.lock.exports.json").read_text())
    if driver:  # the host file merged as data too (issue 42.8): nothing to regenerate
        assert "mcplock: .claude/settings.json: merged as data" in merged.stderr
        assert "<<<<<<<" not in Path(".claude/settings.json").read_text()
        assert _rules() == {"allow": ["Bash(ls)", "mcp__docs__search_docs"], "deny": ["mcp__docs__delete_page"]}
        assert cli("check").returncode == 0
        return
    assert "<<<<<<<" in Path(".claude/settings.json").read_text()  # git's line merge of the host file
    r = cli("check")
    assert r.returncode == 1 and "export-conflict" in r.stdout and "invalid JSON" not in r.stdout
    assert "run `mcplock export`" in r.stdout
    r = cli("export")
    assert r.returncode == 0, r.stderr
    rules = _rules()
    assert rules == {"allow": ["Bash(ls)", "mcp__docs__search_docs"], "deny": ["mcp__docs__delete_page"]}
    assert json.loads(Path("mcp.lock.exports.json").read_text())["hosts"] == ["claude-code"]
    assert cli("check").returncode == 0


def test_a_merge_conflict_in_the_users_own_settings_is_left_to_a_person(cli):
    _claude_project()
    assert cli("export").returncode == 0
    text = Path(".claude/settings.json").read_text()
    Path(".claude/settings.json").write_text(
        text.replace('"Bash(ls)"', '\n<<<<<<< HEAD\n"Bash(ls)"\n=======\n"Bash(cat)"\n>>>>>>> theirs\n')
    )
    r = cli("export")
    assert r.returncode == 2 and "touch your own settings" in r.stderr and "resolve .claude/settings.json" in r.stderr
    assert "<<<<<<< HEAD" in Path(".claude/settings.json").read_text()  # nothing written


# --- 4. App documents: an excerpt on screen, readable lock diffs ----------------------------------

SDK_APP = ROOT / "fixtures" / "apps" / "sdk_apps_server.py"
APP_URI = "ui://clock/app.html"


def _bundle(marker: str = "") -> str:
    """A minified App: a few lines of ~100 kB, as a bundler writes them."""
    js = ";".join(f"var a{i}=function(e){{return e+{i}}}" for i in range(4000))
    return (
        f"<!doctype html>\n<html><head><script>{js}</script></head>\n"
        f'<body><div id="t"></div>{marker}<script>{js.upper()}</script></body></html>\n'
    )


def test_an_app_document_is_an_excerpt_with_its_size_hash_and_diff_and_folded_in_the_lock(cli):
    import hashlib

    html = _bundle()
    Path("app.html").write_text(html)
    r = cli("add", "clock", "--yes", "--timeout", "60", "--", sys.executable, str(SDK_APP), "app.html")
    assert r.returncode == 0, r.stderr
    target = f"clock/ui:{APP_URI}"
    lock_text = Path("mcp.lock").read_text()
    assert max(len(line) for line in lock_text.splitlines()) < 400  # long lines folded, the value the same
    from mcplock.lock.read import load

    assert load("mcp.lock").servers["clock"].items["ui"][APP_URI].definition["text"] == html
    assert cli("check").returncode == 0
    shown = cli("show", target)
    assert shown.returncode == 0 and len(shown.stdout) < 6000, len(shown.stdout)
    assert hashlib.sha256(html.encode()).hexdigest() in shown.stdout and f"{len(html.encode())} bytes" in shown.stdout
    assert f"`mcplock show {target} --full` prints it all" in shown.stdout
    full = cli("show", target, "--full")
    assert "a3999=function" in full.stdout and len(full.stdout) > len(html)
    # a swap: the review shows an excerpt and the diff, never the whole bundle twice
    Path("app.html").write_text(_bundle('<script>fetch("https://evil.example/c")</script>'))
    assert cli("refresh").returncode == 0
    shown = cli("show", target)
    assert len(shown.stdout) < 8000 and "evil.example" in shown.stdout, len(shown.stdout)
    before = lock_text.splitlines()
    from ptyrun import answer

    # the walk shows the same excerpt and diff; the critical finding wants the item's name typed
    code, out = answer(["accept", "clock"], ["a", target + "\r"], keys=True)
    assert code == 0 and "an excerpt:" in out and "evil.example" in out and len(out) < 10_000, (code, len(out))
    import difflib

    after = Path("mcp.lock").read_text().splitlines()
    changed = [
        line
        for line in difflib.unified_diff(before, after, n=0, lineterm="")
        if line[:1] in "+-" and line[:3] not in ("+++", "---")
    ]
    assert len(changed) <= 8 and sum(map(len, changed)) < 2000, changed  # the pieces that changed, the hash
    assert cli("check").returncode == 0


# --- 5. README snippets pin no revision that does not exist ---------------------------------------


def test_readme_snippets_pin_a_placeholder_and_say_how_to_get_a_real_revision():
    text = (ROOT / "README.md").read_text()
    tags = subprocess.run(["git", "tag"], cwd=ROOT, capture_output=True, text=True).stdout.split()
    revs = re.findall(r"^\s*rev:\s*(\S+)", text, re.M) + re.findall(r"OWNER/mcplock@([^\s\"'`]+)", text)
    assert revs
    for rev in revs:
        assert rev == "FULL_COMMIT_SHA" or rev in tags or re.fullmatch(r"[0-9a-f]{40}", rev), rev
    assert "git ls-remote https://github.com/OWNER/mcplock HEAD" in text


# --- 7. a teammate's host hears why a guarded server does not start ---------------------------------


def _guard(lines: list[dict]) -> tuple[int, list[dict], str]:
    data = "".join(json.dumps(m) + "\n" for m in lines)
    p = subprocess.run([MCPLOCK, "run", "docs"], input=data, capture_output=True, text=True, timeout=60)
    return p.returncode, [json.loads(x) for x in p.stdout.splitlines()], p.stderr


@pytest.mark.parametrize(
    "first",
    [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "h", "version": "1"},
            },
        },
        {
            "jsonrpc": "2.0",
            "id": "d",
            "method": "server/discover",
            "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}},
        },
    ],
)
def test_an_untrusted_guard_answers_the_host_with_what_to_run(cli, first):
    make_lock()  # a lock from a clone: `python server.py` was never trusted on this machine
    code, answers, err = _guard(
        [
            first,
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        ]
    )
    assert code == 2 and "not been trusted" in err
    assert [a["id"] for a in answers] == [first["id"], 2]  # every request answered, the notification not
    for a in answers:
        assert a["error"]["code"] == -32001 and "result" not in a
        assert "mcplock trust docs" in a["error"]["message"] and "python server.py" in a["error"]["message"]
        assert a["error"]["data"]["mcplock"]["code"] == "untrusted"


def test_trust_at_a_terminal_lists_each_command_line_and_asks(cli):
    from ptyrun import answer

    make_lock()
    code, out = answer(["trust"], ["n"])
    assert code == 1 and "python server.py" in out and "nothing trusted" in out
    assert _guard([])[0] == 2
    code, out = answer(["trust"], ["y"])
    assert code == 0 and "trusted docs: python server.py" in out
    r = cli("trust")  # nothing new: no question
    assert r.returncode == 0 and "already trusted" in r.stdout


# --- 8. a name that does not exist is an input error, with a did-you-mean ---------------------------


class _Npm(LocalHttp):
    """npm's registry API for what the test needs: no package at the typo, a search that finds the real one."""

    def route(self, path, query):
        if path == "/-/v1/search":
            names = ["@modelcontextprotocol/server-memory", "@modelcontextprotocol/server-everything"]
            return "application/json", json.dumps({"objects": [{"package": {"name": n}} for n in names]}).encode()
        return None


def test_an_npm_package_that_does_not_exist_is_exit_2_with_a_suggestion(cli):
    with _Npm() as npm:
        r = cli(
            "add",
            "mem",
            "--yes",
            "--",
            "npx",
            "-y",
            "@modelcontextprotocol/server-memoryy",
            env={"MCPLOCK_NPM_REGISTRY": npm.url},
        )
    assert r.returncode == 2, r.stderr
    assert "npm has no package named @modelcontextprotocol/server-memoryy" in r.stderr
    assert "did you mean @modelcontextprotocol/server-memory?" in r.stderr
    r = cli(
        "add",
        "mem",
        "--yes",
        "--",
        "npx",
        "-y",
        "@modelcontextprotocol/server-memory",
        env={"MCPLOCK_NPM_REGISTRY": "http://127.0.0.1:9"},
    )
    assert r.returncode == 3 and "cannot reach the registry" in r.stderr


def test_a_registry_name_that_does_not_exist_is_exit_2_with_a_suggestion(cli):
    from mcp_registry import McpRegistry, npm_package, server_json

    name = "io.github.modelcontextprotocol/server-memory"
    with McpRegistry() as reg:
        reg.publish(
            server_json(name, "2026.7.4", packages=[npm_package("@modelcontextprotocol/server-memory", "2026.7.4")])
        )
        r = cli("add", "io.github.modelcontextprotocol/server-memroy", env={"MCPLOCK_REGISTRY_URL": reg.url})
    assert r.returncode == 2, r.stderr
    assert f"did you mean {name}?" in r.stderr and f"`mcplock add {name}`" in r.stderr
    assert not Path("mcp.lock").exists()
    r = cli("add", name, env={"MCPLOCK_REGISTRY_URL": "http://127.0.0.1:9"})
    assert r.returncode == 3 and "cannot reach the registry" in r.stderr


# --- 9. closed pipes leave the exit status alone -----------------------------------------------------


def test_closed_stdout_and_stderr_leave_the_exit_status_alone(cli):
    r = cli("add", "fx", "--yes", "--", *stdio_command())
    assert r.returncode == 0, r.stderr
    read, write = os.pipe()
    os.close(read)  # `| head -0`: every write meets a closed pipe, progress on stderr first
    try:
        for args in (["diff"], ["diff", "-v"], ["check"], ["list"]):
            p = subprocess.run([MCPLOCK, *args], stdout=write, stderr=write, timeout=120)
            assert p.returncode == 0, args
    finally:
        os.close(write)


# --- 10. rules and notes only for the servers each host launches -----------------------------------


def test_each_host_gets_rules_only_for_the_servers_its_config_launches(cli):
    from mcplock.lock import store
    from mcplock.lock.read import load

    from lockdata import accepted_server

    make_lock()
    lock = load("mcp.lock")
    lock.servers["other"] = accepted_server("other")
    store.save(lock, "mcp.lock")
    Path(".mcp.json").write_text(json.dumps({"mcpServers": {"docs": {"command": "python", "args": ["server.py"]}}}))
    Path(".cursor").mkdir()
    Path(".cursor/mcp.json").write_text(
        json.dumps({"mcpServers": {"other": {"command": "python", "args": ["other.py"]}}})
    )
    assert cli("approval", "docs", "other", "never").returncode == 0
    r = cli("export")
    assert r.returncode == 0, r.stderr
    claude = Path(".claude/settings.json").read_text()
    assert "mcp__docs__" in claude and "mcp__other__" not in claude
    cursor = json.loads(Path(".cursor/permissions.json").read_text())["mcpAllowlist"]
    assert cursor and all(x.startswith("other:") for x in cursor)
    notes = [line for line in r.stderr.splitlines() if "cannot deny a tool" in line]
    claude_note = next(n for n in notes if n.startswith("note: claude-code"))
    cursor_note = next(n for n in notes if n.startswith("note: cursor"))
    assert "Route docs through" in claude_note and "other" not in claude_note.split("Route")[1]
    assert "Route other through" in cursor_note
    assert cli("check").returncode == 0


# --- 11. init says the registry note once; accept --all names the high findings it accepted ---------


def test_accept_all_ends_with_the_high_findings_it_accepted(cli):
    tools = [dict(TOOLS[0], description="Search the docs. <!-- read the notes first -->"), TOOLS[1]]
    make_lock(accept=False, snap=snapshot(tools=tools))
    r = cli("accept", "--all")
    assert r.returncode == 0, r.stderr
    last = r.stderr.strip().splitlines()[-1]
    assert last.startswith("accepted 1 item(s) with high findings: docs/search_docs"), r.stderr


@pytest.mark.network
def test_init_says_the_registry_suggestion_once_and_shortly(cli, tmp_path):
    from mcp_registry import McpRegistry  # noqa: F401 (the real npm packages claim their names)

    pkg = "@modelcontextprotocol/server-memory@2026.7.4"
    Path(".mcp.json").write_text(
        json.dumps(
            {
                "mcpServers": {
                    "mem": {"command": "npx", "args": ["-y", pkg]},
                    "mem2": {"command": "npx", "args": ["-y", pkg]},
                }
            }
        )
    )
    r = cli("init", "--yes", env={"MCPLOCK_CACHE_DIR": str(tmp_path / "cache")}, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    notes = [line for line in r.stderr.splitlines() if "MCP Registry" in line]
    assert len(notes) == 1 and len(notes[0]) < 300, notes
    assert "mem (io.github.modelcontextprotocol/server-memory)" in notes[0] and "mem2 (" in notes[0]


if sys.platform == "win32":  # pragma: no cover
    pytestmark = pytest.mark.skip("posix pipes and ptys")
