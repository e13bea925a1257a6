"""The daily loop as a newcomer walks it, through the installed console script: a project's
`.mcp.json` naming a pinned server (a PyPI package served by a local index, fixtures/pypi_index.py,
whose console script runs the fixture MCP server with instructions, tools, a prompt and a
resource template), then `init`, `diff`, `export --guard`, `refresh`, `check`.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from pypi_index import PypiIndex, wheel

from conftest import MCPLOCK
from ptyrun import Pty

pytestmark = pytest.mark.timeout(300)

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
SERVER = f"""import runpy, sys

def main():
    sys.argv = [{str(FIXTURES / "mcp_fixture.py")!r}, "stdio"]
    sys.path.insert(0, {str(FIXTURES)!r})
    runpy.run_path({str(FIXTURES / "mcp_fixture.py")!r}, run_name="__main__")
"""
DEMO = wheel("daily-demo", "1.0", modules={"daily_demo": SERVER}, scripts={"daily-demo": "daily_demo:main"})


@pytest.fixture
def index():
    with PypiIndex() as ix:
        ix.publish(*DEMO, uploaded="2025-02-01T12:00:00.000000Z")
        yield ix


@pytest.fixture
def run(cli, index, tmp_path):
    def go(*args: str, **env: str):
        return cli(
            *args, env={"MCPLOCK_PYPI_URL": index.url, "MCPLOCK_CACHE_DIR": str(tmp_path / "cache"), **env}, timeout=300
        )

    return go


def project() -> None:
    Path(".mcp.json").write_text(json.dumps({"mcpServers": {"demo": {"command": "uvx", "args": ["daily-demo==1.0"]}}}))


def test_nothing_is_resolved_or_downloaded_before_the_server_is_trusted(run, index, tmp_path):
    project()
    r = run("init")  # off a terminal: refused, naming the command that trusts
    assert r.returncode == 2, r.stdout + r.stderr
    assert "mcplock init --trust" in r.stderr and "uvx daily-demo==1.0" in r.stderr
    assert "pinning" not in r.stderr
    assert index.requests == []  # not even the registry's metadata
    assert not (tmp_path / "cache").exists() or not any((tmp_path / "cache").rglob(".mcplock.json"))
    assert not Path("mcp.lock").exists()

    r = run("init", "--trust")
    assert r.returncode == 0, r.stdout + r.stderr
    assert index.requests  # now it was fetched
    assert r.stderr.index("found .mcp.json") < r.stderr.index("pinning demo")
    text = Path("mcp.lock").read_text()
    # the layout that broke the early reader: the instructions' pending table, then the pin
    assert text.index("[server.demo.instructions-pending]") < text.index("[server.demo.package]")
    r = run("diff")  # the pinned launch was recorded as trusted too: no second question
    assert r.returncode == 1, r.stdout + r.stderr  # a freshly initialised pinned lock is pending review
    assert "pending review" in r.stdout
    assert "do not read the same" not in r.stderr


@pytest.mark.network
def test_the_readme_install_works_from_a_clone(tmp_path):
    """The README's Install block, run as written on a fresh account (the clone line aside: the
    test runs it in a copy of this checkout's files); nothing in it names an unpublished package."""
    import re
    import shutil
    import subprocess

    root = FIXTURES.parent
    readme = (root / "README.md").read_text()
    section = readme[readme.index("\n## Install\n") :]
    block = re.search(r"```sh\n(.*?)```", section, re.S)[1]
    assert "mcplock-cli" not in block and "pipx install mcplock" not in readme
    lines = block.splitlines()
    assert lines[0].startswith("git clone ") and lines[0].endswith("&& cd mcplock")
    clone = tmp_path / "mcplock"
    files = subprocess.run(["git", "-C", str(root), "ls-files"], capture_output=True, text=True, check=True).stdout
    for rel in files.splitlines():
        src = root / rel
        if src.is_file() and not src.is_symlink():
            (clone / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, clone / rel)
    home = tmp_path / "user"
    home.mkdir()
    env = {"HOME": str(home), "PATH": f"{home}/.local/bin:/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"}
    script = "set -eu\n" + f"cd {clone}\n" + "\n".join(lines[1:]) + "\n"
    r = subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert re.search(r"\d+\.\d+", r.stdout.splitlines()[-1])  # `mcplock --version`, found on PATH


def test_refresh_check_and_imports_after_export_guard(run):
    project()
    assert run("init", "--trust").returncode == 0
    assert run("accept", "--all").returncode == 0
    r = run("export", "--host", "claude-code", "--guard")
    assert r.returncode == 0, r.stdout + r.stderr
    entry = json.loads(Path(".mcp.json").read_text())["mcpServers"]["demo"]
    assert entry["args"][:2] == ["run", "demo"]
    lock = Path("mcp.lock").read_text()

    r = run("refresh")  # the lock's own spec runs (with its pin); the guard entry is not re-imported
    assert r.returncode == 0, r.stdout + r.stderr
    assert "demo: up to date" in r.stdout
    assert "trust" not in r.stderr and "registry pin" not in r.stderr
    assert Path("mcp.lock").read_text() == lock
    assert run("diff").returncode == 0
    assert run("check").returncode == 0

    r = run("add", "--from", ".mcp.json", "--trust")  # never locks the guard itself as a server
    assert r.returncode == 0, r.stdout + r.stderr
    assert "launches the mcplock guard" in r.stderr
    r = run("init", "--trust")
    assert r.returncode == 0, r.stdout + r.stderr
    assert Path("mcp.lock").read_text() == lock

    # a guard entry for a server the lock does not have is skipped by the import, not locked
    cfg = json.loads(Path(".mcp.json").read_text())
    cfg["mcpServers"]["other"] = {"command": "mcplock", "args": ["run", "other"]}
    Path(".mcp.json").write_text(json.dumps(cfg))
    r = run("add", "--from", ".mcp.json", "other", "--trust")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "skipped `other`" in r.stderr and "launches the mcplock guard" in r.stderr
    assert "[server.other]" not in Path("mcp.lock").read_text()


def _fixture_project() -> None:
    Path(".mcp.json").write_text(
        json.dumps(
            {"mcpServers": {"docs": {"command": "python3", "args": [str(FIXTURES / "mcp_fixture.py"), "stdio"]}}}
        )
    )


def test_export_guard_writes_a_command_the_host_can_start(cli, tmp_path):
    """mcplock run from a venv that is not on PATH: the host entry names it by its absolute path,
    and a host started with that PATH launches it; with it on PATH the entry says `mcplock`."""
    import subprocess

    from conftest import MCPLOCK

    _fixture_project()
    assert cli("init", "--trust").returncode == 0
    assert cli("accept", "--all").returncode == 0
    bare = {"PATH": "/usr/local/bin:/usr/bin:/bin"}  # no venv bin directory: `mcplock` is not found
    r = cli("export", "--host", "claude-code", "--guard", env=bare)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "a path of this machine" in r.stderr
    entry = json.loads(Path(".mcp.json").read_text())["mcpServers"]["docs"]
    assert entry["command"] == MCPLOCK
    assert cli("check", env=bare).returncode == 0  # still recognised as the guard

    # a host with that PATH starts the entry (Claude Code expands ${CLAUDE_PROJECT_DIR:-.})
    args = [a.replace("${CLAUDE_PROJECT_DIR:-.}", str(Path.cwd())) for a in entry["args"]]
    asked = "".join(
        json.dumps(m) + "\n"
        for m in (
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "host", "version": "1"},
                },
            },
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        )
    )
    env = {k: v for k, v in os.environ.items() if k != "PATH"} | bare
    p = subprocess.run(
        [entry["command"], *args], input=asked, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120
    )
    answers = {m["id"]: m for m in map(json.loads, p.stdout.splitlines()) if "id" in m}
    assert {t["name"] for t in answers[2]["result"]["tools"]} >= {"get_weather"}, p.stderr

    assert cli("export", "--host", "claude-code", "--no-guard", env=bare).returncode == 0
    on_path = {"PATH": f"{Path(MCPLOCK).parent}:/usr/bin:/bin"}
    r = cli("export", "--host", "claude-code", "--guard", env=on_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert json.loads(Path(".mcp.json").read_text())["mcpServers"]["docs"]["command"] == "mcplock"
    assert "a path of this machine" not in r.stderr


# --- the review walk on a real pseudo-terminal: one key, the terminal restored -------------------

WRAP = """import signal, subprocess, sys, termios
signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is for mcplock (the same process group)
before = termios.tcgetattr(0)
rc = subprocess.call(sys.argv[1:], preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
print("TERMINAL", "restored" if termios.tcgetattr(0) == before else "left changed", "EXIT", rc)
"""


def WrappedPty(*args: str) -> Pty:
    """`mcplock ARGS` on a pty under a small parent that reads the terminal's mode before and after."""
    return Pty(argv=[sys.executable, "-c", WRAP, MCPLOCK, *args])


def test_the_walk_takes_one_key_and_restores_the_terminal():
    from test_review_walk import KEY_PROMPT, _stage, _tools

    from lockdata import make_lock

    make_lock()
    _stage()
    p = WrappedPty("accept")
    p.expect("[1/3]")
    p.expect(KEY_PROMPT)
    p.send("r")  # no Enter: list_pages rejected at once
    screen = p.expect(KEY_PROMPT)
    assert "[2/3]" in screen
    p.send("s")
    p.expect("[3/3]")
    p.expect(KEY_PROMPT)
    p.send("q")
    code, out = p.wait()
    assert code == 0, out
    assert "TERMINAL restored EXIT 0" in out, out
    tools = _tools()
    assert tools["list_pages"].rejected_hash is not None and tools["search_docs"].pending is not None


def test_ctrl_c_in_the_walk_says_interrupted_once_and_restores_the_terminal():
    from test_review_walk import KEY_PROMPT, _stage, _tools

    from lockdata import make_lock

    make_lock()
    _stage()
    p = WrappedPty("accept")
    p.expect(KEY_PROMPT)
    p.send("r")
    p.expect("[2/3]")
    p.expect(KEY_PROMPT)
    p.send("\x03")  # Ctrl-C while a key is awaited (the terminal in cbreak mode)
    _, out = p.wait()  # the parent's own exit code
    assert "TERMINAL restored EXIT 130" in out, out
    assert out.count("interrupted") == 1, out
    assert "Traceback" not in out
    assert _tools()["list_pages"].rejected_hash is not None


# --- the first run ends in a committed, passing lock ---------------------------------------------


def test_the_readme_first_run_ends_in_a_passing_check(cli):
    """The mcplock and git lines of the README's "Use it in your project", in a project whose
    .mcp.json names a server (off a terminal `init` takes --trust, as its refusal says)."""
    import re
    import subprocess

    readme = (FIXTURES.parent / "README.md").read_text()
    section = readme[readme.index("\n## The first ten minutes: use it in your project\n") :]
    block = re.search(r"```sh\n(.*?)```", section, re.S)[1]
    steps = [ln.split("  #")[0].strip() for ln in block.splitlines()]
    steps = [s for s in steps if s.startswith(("mcplock ", "git ")) and "io.github" not in s]  # no registry here
    assert [s.split()[1] for s in steps if s.startswith("mcplock")] == ["init", "accept", "check"]
    _fixture_project()
    git = {
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
        "GIT_CONFIG_GLOBAL": "/dev/null",
    }
    subprocess.run(["git", "init", "-q"], check=True)
    for step in steps:
        if step.startswith("git "):
            r = subprocess.run(step, shell=True, capture_output=True, text=True, env={**os.environ, **git})
        else:
            args = step.split()[1:] + (["--trust"] if step.split()[1] == "init" else [])
            r = cli(*args)
        assert r.returncode == 0, f"{step}\n{r.stdout}{r.stderr}"
        if step.startswith("mcplock init"):
            said = " ".join(r.stderr.split())
            assert "pending review: `mcplock check` (and its pre-commit hook) fails" in said
            assert "`mcplock accept --all`" in said
    assert "mcp.lock" in subprocess.run(["git", "show", "--stat", "HEAD"], capture_output=True, text=True).stdout


def test_init_on_a_terminal_offers_the_walk_and_ends_passing(cli):
    from test_review_walk import KEY_PROMPT, Pty

    _fixture_project()
    p = Pty("init")
    p.expect("trust it and run? [y/N] ")
    p.send("y\n")
    p.expect("accept all of them? [y/N] ")
    p.send("n\n")
    p.expect("now, one by one? [Y/n] ")
    p.send("\n")
    p.expect(KEY_PROMPT)
    p.send("A")  # the rest of this server
    code, out = p.wait()
    assert code == 0, out
    assert "still pending" in out
    r = cli("check")
    assert r.returncode == 0, r.stdout + r.stderr


def test_make_demo_ends_in_a_passing_check(tmp_path):
    import subprocess

    root = FIXTURES.parent
    r = subprocess.run(
        ["bash", str(root / "demo" / "run.sh")],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "MCPLOCK_DEMO_DIR": str(tmp_path / "demo")},
    )
    assert r.returncode == 0, r.stdout + r.stderr
    last = r.stdout[r.stdout.rindex("\n== ") :]
    assert "mcplock check" in last and "(exit 0)" in last, last


def test_repairing_a_tampered_cache_entry_keeps_the_servers_data(run, tmp_path):
    """A server that keeps its data next to its code (server-memory's memory.jsonl, as under
    npx): a tampered entry is refused, the message says where that data is, and the hint's
    command repairs the entry without deleting it."""
    import re
    import subprocess

    project()
    assert run("init", "--trust").returncode == 0
    entry = next(p.parent for p in (tmp_path / "cache").rglob(".mcplock.json"))
    data = entry / "venv" / "memory.jsonl"
    data.write_text('{"type":"entity","name":"kept"}\n')  # what the server wrote while it ran
    assert run("diff").returncode == 1  # data files are not tampering
    code = next(entry.rglob("daily_demo.py"))
    code.write_text(code.read_text() + "\nimport os  # injected\n")

    r = run("diff")
    assert r.returncode == 2, r.stdout + r.stderr
    said = " ".join(r.stderr.split())
    assert "changed since they were installed and verified" in said and "daily_demo.py" in said
    assert "memory.jsonl" in said and "which the repair keeps" in said
    assert "rm " not in said and "delete that" not in said
    hint = re.search(r"\(`(mv [^`]+)`\)", said)[1]
    assert subprocess.run(hint, shell=True).returncode == 0

    r = run("diff")  # installed and verified afresh, the data carried over
    assert r.returncode == 1, r.stdout + r.stderr
    assert data.read_text() == '{"type":"entity","name":"kept"}\n'
    assert "injected" not in code.read_text()
    moved = list(entry.parent.glob(entry.name + ".tampered-*"))
    assert len(moved) == 1 and "injected" in next(moved[0].rglob("daily_demo.py")).read_text()


@pytest.mark.reference
def test_a_host_without_sampling_is_not_told_the_server_removed_a_tool(cli):
    """server-everything shows its sampling/elicitation tools only to clients that declare those
    capabilities; through the guard, a host that declares none (as the Inspector does) must read
    that the server does not offer them to it, not that they were removed."""
    import shutil
    import subprocess
    import tomllib

    from conftest import MCPLOCK

    everything = FIXTURES / "reference" / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist"
    if not everything.is_dir():
        pytest.skip("the npm reference servers are not installed: `make setup`")
    r = cli(
        "add",
        "everything",
        "--yes",
        "--timeout",
        "60",
        "--",
        shutil.which("node"),
        str(everything / "index.js"),
        "stdio",
    )
    assert r.returncode == 0, r.stdout + r.stderr
    tools = tomllib.loads(Path("mcp.lock").read_text())["server"]["everything"]["tool"]
    assert {"trigger-elicitation-request", "trigger-sampling-request"} <= set(tools)

    asked = "".join(
        json.dumps(m) + "\n"
        for m in (
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "inspector", "version": "1"},
                },
            },
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        )
    )
    p = subprocess.run([MCPLOCK, "run", "everything"], input=asked, capture_output=True, text=True, timeout=120)
    answers = {m["id"]: m for m in map(json.loads, p.stdout.splitlines()) if "id" in m}
    listed = {t["name"] for t in answers[2]["result"]["tools"]}
    assert "echo" in listed and "trigger-elicitation-request" not in listed
    err = " ".join(p.stderr.split())
    assert "no longer offers" not in err and "stages the removal" not in err, err
    assert "does not offer `everything/trigger-elicitation-request` to this host, which declares no" in err, err
    assert cli("diff", "--timeout", "60").returncode == 0  # and there is no drift


def test_an_install_without_uv_is_a_set_up_problem_exit_2(run, tmp_path):
    """mcplock installed without its uv dependency (a packager left it out): exit 2 with an
    install command that works from a clone, not exit 3 and not an unpublished package."""
    shadow = tmp_path / "shadow"
    shadow.mkdir()
    (shadow / "uv.py").write_text("raise ImportError('uv left out by the packager')\n")
    project()
    r = run("init", "--trust", PYTHONPATH=str(shadow), PATH="/usr/bin:/bin")
    assert r.returncode == 2, r.stdout + r.stderr
    said = " ".join(r.stderr.split())
    assert "uv is needed" in said and "-m pip install .` in its clone" in said
    assert "mcplock-cli" not in said and "Traceback" not in said
    assert not Path("mcp.lock").exists()
