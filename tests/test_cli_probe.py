"""add / refresh / diff / inspect / init end to end: the real console script against
real fixture servers over stdio pipes and HTTP on 127.0.0.1."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from dataclasses import replace
from pathlib import Path

import pytest

from conftest import MCPLOCK, live_signals
from runner import SURFACES, http_fixture, stdio_command

CANARY = "ghp_CANARYcanary1234567890abcdefXYZ"


def _surface(name="demo.json") -> Path:
    dst = Path("surface.json")
    shutil.copy(SURFACES / name, dst)
    return dst


def _add_stdio(cli, name="docs", mode="benign", *extra, yes=True):
    cmd = stdio_command(mode=mode, surface="surface.json")
    return cli("add", name, *(["--yes"] if yes else []), "--timeout", "10", *extra, "--", *cmd)


def test_add_without_yes_leaves_everything_pending(cli):
    _surface()
    r = _add_stdio(cli, yes=False)
    assert r.returncode == 0, r.stderr
    assert "pending review" in r.stdout
    r = cli("check")
    assert r.returncode == 1 and "pending new" in r.stdout
    r = cli("list", "--format", "json")
    items = {i["name"]: i for i in json.loads(r.stdout)["servers"][0]["items"]}
    assert items["search_docs"]["state"] == "pending new" and items["search_docs"]["enabled"] is False


def test_lock_diff_rugpull_refresh_accept(cli):
    _surface()
    r = _add_stdio(cli)
    assert r.returncode == 0, r.stderr
    lock_text = Path("mcp.lock").read_text()
    assert "[server.docs.tool.search_docs]" in lock_text
    assert cli("check").returncode == 0
    r = cli("diff")
    assert r.returncode == 0 and "docs: ok" in r.stdout

    _surface("demo-rugpull.json")
    r = cli("diff", "--format", "json")
    assert r.returncode == 1, r.stderr
    doc = json.loads(r.stdout)
    srv = doc["servers"][0]
    assert srv["status"] == "drift"
    changes = {(c["kind"], c["name"]): c for c in srv["changes"]}
    assert changes[("tool", "search_docs")]["change"] == "changed"
    assert changes[("tool", "search_docs")]["fields"] == ["description"]
    assert changes[("tool", "run_shell")]["change"] == "added"
    assert srv["identity"]["live"]["server_info"]["version"] == "1.4.1"  # reported apart, never a change
    assert Path("mcp.lock").read_text() == lock_text  # diff never writes

    r = cli("refresh")
    assert r.returncode == 0, r.stderr
    assert "quarantined" in r.stderr
    r = cli("list", "--format", "json")
    items = {i["name"]: i for i in json.loads(r.stdout)["servers"][0]["items"]}
    assert items["search_docs"]["enabled"] is False and items["search_docs"]["state"] == "pending changed"
    assert items["delete_page"]["enabled"] is True

    r = cli("accept", "docs/search_docs")
    assert r.returncode == 0
    r = cli("list", "--format", "json")
    items = {i["name"]: i for i in json.loads(r.stdout)["servers"][0]["items"]}
    assert items["search_docs"]["enabled"] is True and items["search_docs"]["state"] == "accepted"


def test_refresh_unchanged_leaves_file_bytes_and_mtime(cli):
    _surface()
    assert _add_stdio(cli).returncode == 0
    p = Path("mcp.lock")
    before = (p.read_bytes(), p.stat().st_mtime_ns)
    time.sleep(0.05)
    r = cli("refresh")
    assert r.returncode == 0 and "up to date" in r.stdout
    assert (p.read_bytes(), p.stat().st_mtime_ns) == before


def test_add_existing_name_is_usage_error(cli):
    _surface()
    assert _add_stdio(cli).returncode == 0
    r = _add_stdio(cli)
    assert r.returncode == 2 and "already locked" in r.stderr and "mcplock refresh docs" in r.stderr


def test_add_that_fails_creates_no_lock(cli):
    r = cli("add", "broken", "--timeout", "5", "--", *stdio_command(mode="crash"))
    assert r.returncode == 3
    assert "fatal: cannot open database" in r.stderr  # the stderr tail names the cause
    assert not Path("mcp.lock").exists()
    r = cli("add", "nope", "--", "definitely-not-a-command-xyz")
    assert r.returncode == 2 and "not found" in r.stderr  # not on this machine: an input error (issue 42.11)
    assert "Traceback" not in r.stderr


def test_literal_secrets_are_refused_without_echo(cli):
    r = cli("add", "gh", "http://127.0.0.1:9/mcp", "--header", f"Authorization: Bearer {CANARY}")
    assert r.returncode == 2
    assert CANARY not in r.stderr + r.stdout
    assert "${TOKEN}" in r.stderr
    r = cli("add", "gh", "--env", f"GITHUB_TOKEN={CANARY}", "--", "server")
    assert r.returncode == 2 and CANARY not in r.stderr + r.stdout and "GITHUB_TOKEN=${GITHUB_TOKEN}" in r.stderr
    assert not Path("mcp.lock").exists()


def test_header_templates_expand_at_probe_time_only(cli):
    with http_fixture(surface=SURFACES / "demo.json") as base:
        r = cli("add", "remote", base + "/mcp", "--yes", "--header", "X-Api-Key: ${DEMO_KEY}", env={"DEMO_KEY": CANARY})
        assert r.returncode == 0, r.stderr
    text = Path("mcp.lock").read_text()
    assert 'X-Api-Key = "${DEMO_KEY}"' in text and CANARY not in text


def test_http_and_sse_transports(cli):
    with http_fixture(surface=SURFACES / "demo.json") as base:
        assert cli("add", "viahttp", base + "/mcp", "--yes").returncode == 0
        r = cli("add", "viasse", base + "/sse", "--transport", "sse", "--yes")
        assert r.returncode == 0, r.stderr
        r = cli("diff", "--format", "json")
        assert r.returncode == 0, r.stdout + r.stderr
        assert [s["status"] for s in json.loads(r.stdout)["servers"]] == ["ok", "ok"]
    lock = Path("mcp.lock").read_text()
    assert 'transport = "sse"' in lock and 'transport = "http"' in lock


@pytest.mark.parametrize(
    "mode,kind,words",
    [
        ("405", "http", "--transport sse"),
        ("410", "http", "retired"),
        ("401", "http", "credentials"),
        ("html", "http", "HTML"),
    ],
)
def test_http_errors_point_to_an_action(cli, mode, kind, words):
    with http_fixture(mode=mode) as base:
        r = cli("add", "x", base + "/mcp", "--timeout", "10")
    assert r.returncode == 3, r.stdout + r.stderr
    assert words in r.stderr
    assert "Traceback" not in r.stderr
    if mode == "410":
        assert "2026-01-01" in r.stderr  # the server's own explanation


def test_one_failing_server_does_not_spoil_the_others(cli):
    _surface()
    assert _add_stdio(cli, "good").returncode == 0
    assert _add_stdio(cli, "flaky").returncode == 0
    # make `flaky` hang from now on by editing its command in the lock (through the model)
    from mcplock.lock import read, store

    lock = read.load("mcp.lock")
    srv = lock.servers["flaky"]
    srv.spec = replace(srv.spec, args=tuple(a if a != "benign" else "hang" for a in srv.spec.args))
    store.save(lock, "mcp.lock")
    # a changed command in the lock runs only once trusted on this machine (docs/least-privilege.md)
    assert cli("trust", "flaky").returncode == 0
    flaky_before = Path("mcp.lock").read_text().split("[server.flaky]")[1].split("[server.good]")[0]

    r = cli("diff", "--timeout", "2", "--format", "json")
    assert r.returncode == 3, r.stdout  # unreachable and no drift elsewhere
    doc = json.loads(r.stdout)
    by = {s["name"]: s for s in doc["servers"]}
    assert by["good"]["status"] == "ok"
    assert by["flaky"]["status"] == "unreachable" and by["flaky"]["error"]["kind"] == "timeout"

    _surface("demo-rugpull.json")
    r = cli("diff", "--timeout", "2")
    assert r.returncode == 1  # drift elsewhere wins over unreachable
    r = cli("refresh", "--timeout", "2")
    assert r.returncode == 3
    text = Path("mcp.lock").read_text()
    assert text.split("[server.flaky]")[1].split("[server.good]")[0] == flaky_before  # untouched
    assert "[server.good.tool.run_shell.pending]" in text  # the other server's result was written


@pytest.mark.parametrize("command", ["refresh", "diff"])
def test_ctrl_c_while_probing_leaves_lock_and_no_orphans(cli, command):
    _surface()
    assert _add_stdio(cli, "slow").returncode == 0
    from mcplock.lock import read, store

    lock = read.load("mcp.lock")
    srv = lock.servers["slow"]
    srv.spec = replace(srv.spec, args=tuple(a if a != "benign" else "hang" for a in srv.spec.args))
    store.save(lock, "mcp.lock")
    assert cli("trust", "slow").returncode == 0  # a changed command runs once trusted here
    before = Path("mcp.lock").read_bytes()
    p = subprocess.Popen(
        [MCPLOCK, command, "--timeout", "30"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=live_signals,
    )
    # wait until the fixture server runs, then interrupt like a terminal would
    deadline = time.time() + 10
    child = None
    while time.time() < deadline and child is None:
        child = next((pid for pid in _descendants(p.pid) if b"hang" in _cmdline(pid)), None)
        time.sleep(0.1)
    assert child, "the server never started"
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=20)
    assert p.returncode == 130, err
    assert "Traceback" not in err
    assert Path("mcp.lock").read_bytes() == before
    deadline = time.time() + 5
    while _alive(child) and time.time() < deadline:
        time.sleep(0.05)
    assert not _alive(child), "the server outlived mcplock"


def _cmdline(pid: int) -> bytes:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return fh.read()
    except OSError:
        return b""


def _alive(pid: int) -> bool:
    """Running, and not a zombie waiting to be reaped."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except OSError:
        return False


def _descendants(root: int) -> list[int]:
    """The processes below ``root`` (this test's own mcplock), never the rest of the machine."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as fh:
                    ppid = int(fh.read().rsplit(b")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    found, todo = [], [root]
    while todo:
        for kid in children.get(todo.pop(), []):
            found.append(kid)
            todo.append(kid)
    return found


def test_inspect_prints_without_a_lock(cli):
    r = cli("inspect", "--", *stdio_command(surface=SURFACES / "demo.json"))
    assert r.returncode == 0, r.stderr
    assert "search_docs" in r.stdout and "params:" in r.stdout
    r = cli("inspect", "--format", "json", "--", *stdio_command(surface=SURFACES / "unicode.json"))
    assert r.returncode == 0
    doc = json.loads(r.stdout)
    assert doc["tools"] and r.stderr.strip() in ("", "probing inspect")
    assert not Path("mcp.lock").exists()


def test_unicode_surface_is_lossless_and_inert(cli):
    _surface("unicode.json")
    r = _add_stdio(cli)
    assert r.returncode == 0
    assert "left pending (critical lint finding)" in r.stderr  # its zero-width space is flagged
    assert cli("accept", "--all", "--include-critical").returncode == 0  # a person accepts it knowingly
    raw = json.loads((SURFACES / "unicode.json").read_text())
    import mcplock

    lock = mcplock.load("mcp.lock")
    got = {t.name: dict(t.definition) for t in lock.enabled_tools()}
    for tool in raw["tools"]:
        assert got[tool["name"]] == tool
    assert cli("diff").returncode == 0
    r = cli("list")
    assert "\u200b" not in r.stdout and "\x1b" not in r.stdout


def _write_mcp_json(servers: dict) -> None:
    Path(".mcp.json").write_text(json.dumps({"mcpServers": servers}, indent=2))


def test_a_host_entry_routed_through_the_guard_by_hand_stays_in_sync(cli):
    """The README's by-hand forms (global options first, mcplock by path) read as the guard of
    the server they name; an entry that runs the guard for another server does not."""
    _surface()
    cmd = stdio_command(surface="surface.json")
    _write_mcp_json({"docs": {"command": cmd[0], "args": cmd[1:]}, "other": {"command": cmd[0], "args": cmd[1:]}})
    assert cli("add", "--from", ".mcp.json", "--yes").returncode == 0
    lock = str(Path("mcp.lock").resolve())
    _write_mcp_json(
        {
            "docs": {"command": "mcplock", "args": ["--lockfile", lock, "run", "docs"]},
            "other": {"command": "/usr/local/bin/mcplock", "args": ["run", "other", "--lockfile=mcp.lock", "--strict"]},
        }
    )
    r = cli("check", "--format", "json")
    assert r.returncode == 0, r.stdout + r.stderr
    assert json.loads(r.stdout)["findings"] == []
    _write_mcp_json(
        {
            "docs": {"command": "mcplock", "args": ["run", "other"]},  # the guard, but of another server
            "other": {"command": "mcplock", "args": ["run", "other", "--no-such-option"]},  # not the guard's options
        }
    )
    r = cli("check", "--format", "json")
    assert r.returncode == 1
    codes = sorted((f["code"], f["server"]) for f in json.loads(r.stdout)["findings"])
    assert codes == [("config-changed", "docs"), ("config-changed", "other")]


def test_import_from_host_config_keeps_secrets_out(cli):
    _surface()
    cmd = stdio_command(surface="surface.json")
    _write_mcp_json(
        {
            "docs": {"command": cmd[0], "args": cmd[1:], "env": {"GITHUB_TOKEN": CANARY}},
            "other": {"command": cmd[0], "args": cmd[1:]},
        }
    )
    r = cli("add", "--from", ".mcp.json", "--yes")
    assert r.returncode == 0, r.stderr
    text = Path("mcp.lock").read_text()
    assert 'GITHUB_TOKEN = "${GITHUB_TOKEN}"' in text and 'source = ".mcp.json"' in text
    assert CANARY not in text + r.stdout + r.stderr
    assert cli("check").returncode == 0
    assert cli("diff").returncode == 0

    # the config changes: check (offline) notices and names the fix
    cfg = json.loads(Path(".mcp.json").read_text())
    cfg["mcpServers"]["docs"]["args"].append("--page-size")
    cfg["mcpServers"]["docs"]["args"].append("2")
    cfg["mcpServers"]["new"] = cfg["mcpServers"].pop("other")
    Path(".mcp.json").write_text(json.dumps(cfg))
    r = cli("check", "--format", "json")
    assert r.returncode == 1
    codes = sorted((f["code"], f["server"]) for f in json.loads(r.stdout)["findings"])
    assert codes == [("config-changed", "docs"), ("config-missing", "other"), ("not-locked", "new")]
    assert CANARY not in r.stdout + r.stderr
    r = cli("check")
    assert "mcplock refresh docs" in r.stdout and "mcplock add --from .mcp.json new" in r.stdout
    # refresh would run the config's changed command: held until trusted (docs/least-privilege.md)
    r = cli("refresh", "docs")
    assert r.returncode == 2 and "mcplock trust docs" in r.stderr and "--page-size" in r.stderr
    assert CANARY not in r.stdout + r.stderr
    assert cli("trust", "docs").returncode == 0
    assert cli("refresh", "docs").returncode == 0
    assert cli("remove", "other").returncode == 0
    assert cli("add", "--from", ".mcp.json", "new", "--yes").returncode == 0
    r = cli("check")
    assert r.returncode == 0, r.stdout
    assert CANARY not in Path("mcp.lock").read_text()


def test_init_finds_every_project_config(cli):
    _surface()
    cmd = stdio_command(surface="surface.json")
    _write_mcp_json({"claude-docs": {"command": cmd[0], "args": cmd[1:]}})
    Path(".vscode").mkdir()
    Path(".vscode/mcp.json").write_text(
        json.dumps({"servers": {"vscode-docs": {"type": "stdio", "command": cmd[0], "args": cmd[1:]}}, "inputs": []})
    )
    r = cli("init", "--yes")
    assert r.returncode == 0, r.stderr
    assert "found .mcp.json" in r.stderr and "found .vscode/mcp.json" in r.stderr
    lock = json.loads(cli("list", "--format", "json").stdout)
    assert sorted(s["name"] for s in lock["servers"]) == ["claude-docs", "vscode-docs"]
    assert cli("check").returncode == 0
    r = cli("init", "--yes")
    assert r.returncode == 0 and "already locked" in r.stderr


def test_interactive_add_lists_tools_and_asks(cli):
    from ptyrun import answer

    _surface()
    code, out = answer(["add", "docs", "--", *stdio_command(surface="surface.json")], ["y"])
    assert code == 0, out
    assert "offers 3 tools" in out and "search_docs" in out and "accept all of them?" in out
    assert cli("check").returncode == 0  # accepted: nothing pending


def test_diff_text_shows_word_and_schema_diffs(cli):
    _surface()
    assert _add_stdio(cli).returncode == 0
    _surface("demo-rugpull.json")
    r = cli("diff")
    assert r.returncode == 1
    # no colour (not a terminal): git-style word-diff markers
    assert "{+" in r.stdout and "evil.example" in r.stdout
    assert "pattern" in r.stdout  # the loosened schema item is named by its JSON path
    assert "\x1b" not in r.stdout


def test_client_name_probes_as_the_host_the_team_runs(cli):
    surface = json.loads((SURFACES / "demo.json").read_text())
    surface["toolsByClient"] = {"cursor": [{"name": "cursor_only", "description": "Shown to Cursor only."}]}
    Path("surface.json").write_text(json.dumps(surface))
    assert _add_stdio(cli, "plain").returncode == 0
    assert _add_stdio(cli, "ascursor", "benign", "--client-name", "cursor", "--client-version", "1.0").returncode == 0
    listed = json.loads(cli("list", "--format", "json").stdout)["servers"]
    tools = {s["name"]: {i["name"] for i in s["items"]} for s in listed}
    assert "cursor_only" in tools["ascursor"] and "cursor_only" not in tools["plain"]
    # the lock remembers whom the server was probed as: diff and refresh announce the same
    assert 'client = {name = "cursor", version = "1.0"}' in Path("mcp.lock").read_text()
    assert cli("diff", "ascursor").returncode == 0
    assert cli("refresh", "ascursor").returncode == 0 and "up to date" in cli("refresh", "ascursor").stdout
    # overriding it for one run shows what another host would see: the Cursor-only tool is gone
    r = cli("diff", "ascursor", "--client-name", "mcplock", "--format", "json")
    assert r.returncode == 1
    changes = json.loads(r.stdout)["servers"][0]["changes"]
    assert [(c["name"], c["change"]) for c in changes] == [("cursor_only", "removed")]
    r = cli("diff", "--client-version", "2")
    assert r.returncode == 2 and "--client-name" in r.stderr


def test_server_text_cannot_start_a_ci_workflow_command(cli):
    """GitHub Actions runs `::cmd::` found at the start of any log line: server text must not."""
    _surface()
    assert _add_stdio(cli).returncode == 0
    surface = json.loads(Path("surface.json").read_text())
    surface["tools"][0]["description"] += "\n::stop-commands::pwn\n   ::add-mask::x\n##[group]y"
    surface["instructions"] = "::error::injected\nmore"
    Path("surface.json").write_text(json.dumps(surface))
    outputs = [cli("diff").stdout, cli("diff", "--format", "markdown").stdout]
    assert cli("refresh").returncode == 0
    outputs += [cli("show", "docs").stdout, cli("list").stdout, cli("check").stdout]
    for out in outputs:
        assert "stop-commands" in out or "pending" in out
        for line in out.splitlines():
            assert not line.lstrip().startswith(("::", "##[")), line


def test_add_flags_a_poisoned_server_before_anyone_accepts_it(cli):
    _surface("demo-rugpull.json")
    r = _add_stdio(cli)  # --yes
    assert r.returncode == 0, r.stderr
    assert "warning: critical hidden-instructions in docs/search_docs" in r.stderr
    assert "left pending (critical lint finding): docs/search_docs" in r.stderr
    items = {i["name"]: i for i in json.loads(cli("list", "--format", "json").stdout)["servers"][0]["items"]}
    assert items["search_docs"]["state"] == "pending new" and items["search_docs"]["enabled"] is False
    assert {f["rule"] for f in items["search_docs"]["findings"]} >= {"hidden-instructions"}
    assert items["delete_page"]["state"] == "accepted" and items["delete_page"]["findings"] == []
    r = cli("list")
    assert "critical: " in r.stdout and "lint: " in r.stdout
    # a person can still accept it explicitly
    assert cli("accept", "docs/search_docs").returncode == 0


def test_secret_echoed_by_a_dying_server_never_reaches_any_output(cli):
    r = cli(
        "add",
        "s",
        "--env",
        "MY_TOKEN=${MY_SECRET}",
        "--",
        "sh",
        "-c",
        'echo "starting with token $MY_TOKEN" >&2; exit 3',
        env={"MY_SECRET": CANARY},
    )
    assert r.returncode == 3
    assert "starting with token ***" in r.stderr
    assert CANARY not in r.stdout + r.stderr
    assert "never retrieved" not in r.stderr


def test_diff_fail_on_a_severity(cli):
    """`diff --fail-on SEVERITY`: drift below it is reported but does not fail CI; pending review
    and drift at or above it still do; an unknown severity is a usage error naming the choices."""
    _surface()
    assert _add_stdio(cli).returncode == 0
    honest = json.loads((SURFACES / "demo.json").read_text())
    honest["tools"][1]["description"] = "Return the Markdown content of one page of the documentation."
    Path("surface.json").write_text(json.dumps(honest))

    r = cli("diff")  # default: any drift fails
    assert r.returncode == 1 and "description reworded, no risk signal" in r.stdout
    r = cli("diff", "--fail-on", "high", "--format", "json")
    assert r.returncode == 0, r.stderr
    [c] = json.loads(r.stdout)["servers"][0]["changes"]
    assert (c["name"], c["severity"], c["reason"]) == ("read_page", "medium", "description reworded, no risk signal")
    assert cli("diff", "--fail-on", "MEDIUM").returncode == 1

    _surface("demo-rugpull.json")
    r = cli("diff", "--fail-on", "critical", "--format", "json")
    assert r.returncode == 1 and any(c["severity"] == "critical" for c in json.loads(r.stdout)["servers"][0]["changes"])

    r = cli("diff", "--fail-on", "severe")
    assert r.returncode == 2 and "unknown severity `severe`" in r.stderr and "critical|high|medium|low|info" in r.stderr
    assert "Traceback" not in r.stderr

    # pending review fails whatever the threshold (as `check` does)
    Path("surface.json").write_text(json.dumps(honest))
    assert cli("refresh").returncode == 0
    r = cli("diff", "--fail-on", "critical")
    assert r.returncode == 1 and "pending" in r.stdout
