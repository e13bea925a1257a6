"""End-to-end through the real `mcplock` console script against real third-party MCP servers:
the npm reference servers (`server-everything` over stdio, Streamable HTTP and legacy SSE,
`server-filesystem`, `server-memory`) and the PyPI ones (`mcp-server-time`, `mcp-server-git`,
`mcp-server-fetch`).

For each: `add --yes` locks the expected tools, then on the unchanged server `diff` (text and
JSON) is clean, `check` is clean, and `refresh` leaves the lock byte for byte as it was (no false
alarm from anything volatile in a server's definitions).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest

from runner import stop_process

pytestmark = [pytest.mark.reference, pytest.mark.timeout(300)]

ROOT = Path(__file__).resolve().parent.parent
NODE_MODULES = ROOT / "fixtures" / "reference" / "node_modules"
MCP_PKGS = NODE_MODULES / "@modelcontextprotocol"
EVERYTHING = MCP_PKGS / "server-everything" / "dist" / "index.js"
FILESYSTEM = MCP_PKGS / "server-filesystem" / "dist" / "index.js"
MEMORY = MCP_PKGS / "server-memory" / "dist" / "index.js"
BIN = Path(sys.executable).parent

TIMEOUT = "60"


def _node() -> str:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not on PATH, but the npm reference servers are installed")
    return node


def _need_node_modules(script: Path) -> None:
    if not NODE_MODULES.is_dir():
        pytest.skip(f"{NODE_MODULES} is missing: run `make setup` (npm ci in fixtures/reference)")
    # node_modules present but the server missing is a broken install, not a reason to skip
    assert script.is_file(), f"{script} is missing: reinstall with `make setup`"


def _pypi_server(name: str) -> str:
    exe = BIN / name
    assert exe.is_file(), f"{exe} is missing: the `test` extra installs it (`make setup`)"
    return str(exe)


def _ok(proc: subprocess.CompletedProcess[str], what: str, code: int = 0) -> None:
    assert proc.returncode == code, (
        f"{what}: exit {proc.returncode}, expected {code}\n--- stdout\n{proc.stdout}\n--- stderr\n{proc.stderr}"
    )


def _lock_cycle(
    run_cli,
    name: str,
    target: list[str],
    expected_tools: set[str],
    *,
    add_opts: tuple[str, ...] = (),
    server_name: str | None = None,
) -> dict:
    """add --yes → diff (text, json) → check → refresh (bytes unchanged) → check again.

    Returns the parsed lock."""
    lock_path = Path("mcp.lock")
    proc = run_cli("add", name, "--yes", "--timeout", TIMEOUT, *add_opts, *target)
    _ok(proc, "add")
    assert lock_path.is_file()
    before = lock_path.read_bytes()
    lock = tomllib.loads(before.decode("utf-8"))
    server = lock["server"][name]
    tools = server.get("tool", {})
    missing = expected_tools - set(tools)
    assert not missing, f"tools {sorted(missing)} not locked; got {sorted(tools)}"
    for tname, t in tools.items():
        assert t["enabled"] is True, f"{tname} not enabled after add --yes"
        assert t["hash"].startswith("sha256:")
        assert "pending" not in t, f"{tname} has a pending proposal after add --yes"
    if server_name is not None:
        assert server["server-info"]["name"] == server_name

    # no false alarm on an unchanged server
    proc = run_cli("diff", "--timeout", TIMEOUT)
    _ok(proc, "diff")
    proc = run_cli("diff", "--format", "json", "--timeout", TIMEOUT)
    _ok(proc, "diff --format json")
    doc = json.loads(proc.stdout)
    assert doc["exit_code"] == 0
    assert doc["summary"]["drift"] == 0, doc
    assert doc["summary"]["unreachable"] == 0, doc
    assert doc["summary"]["changes"] == 0, doc
    [srv] = doc["servers"]
    assert srv["name"] == name
    assert srv["status"] == "ok", srv
    assert srv["changes"] == [], srv

    proc = run_cli("check")
    _ok(proc, "check")

    proc = run_cli("refresh", "--timeout", TIMEOUT)
    _ok(proc, "refresh")
    after = lock_path.read_bytes()
    assert after == before, "refresh of an unchanged server rewrote the lock:\n" + _bytes_diff(before, after)

    proc = run_cli("check")
    _ok(proc, "check after refresh")
    return lock


def _bytes_diff(a: bytes, b: bytes) -> str:
    import difflib

    return "".join(
        difflib.unified_diff(
            a.decode("utf-8", "replace").splitlines(True),
            b.decode("utf-8", "replace").splitlines(True),
            "before",
            "after",
            n=1,
        )
    )


# --- npm reference servers ---------------------------------------------------------------------


def test_everything_stdio(cli):
    _need_node_modules(EVERYTHING)
    lock = _lock_cycle(
        cli,
        "everything",
        ["--", _node(), str(EVERYTHING), "stdio"],
        {"echo", "get-sum", "get-tiny-image"},
        server_name="mcp-servers/everything",
    )
    srv = lock["server"]["everything"]
    tools = srv["tool"]
    # the probe declares what a common host declares: the capability-gated tools are pinned
    assert srv["client-capabilities"] == ["roots", "sampling", "elicitation"]
    assert {"trigger-sampling-request", "get-roots-list", "trigger-elicitation-request"} <= set(tools)


def test_everything_client_capabilities_are_recorded_and_reused(cli):
    """`--client-capabilities` changes what the server shows; the lock records it, so a later
    `diff` presents the same client (no false drift), and a host-like diff sees the difference."""
    _need_node_modules(EVERYTHING)
    r = cli(
        "add",
        "everything",
        "--yes",
        "--timeout",
        TIMEOUT,
        "--client-capabilities",
        "none",
        "--",
        _node(),
        str(EVERYTHING),
        "stdio",
    )
    _ok(r, "add --client-capabilities none")
    srv = tomllib.loads(Path("mcp.lock").read_text(encoding="utf-8"))["server"]["everything"]
    assert srv["client-capabilities"] == [] and "get-roots-list" not in srv["tool"]
    _ok(cli("diff", "--timeout", TIMEOUT), "diff with the stored capabilities")
    r = cli("diff", "--format", "json", "--timeout", TIMEOUT, "--client-capabilities", "roots,sampling")
    _ok(r, "diff as a host with roots and sampling", 1)
    added = {c["name"] for c in json.loads(r.stdout)["servers"][0]["changes"] if c["change"] == "added"}
    assert {"get-roots-list", "trigger-sampling-request"} <= added and "trigger-elicitation-request" not in added
    _ok(cli("refresh", "--timeout", TIMEOUT, "--client-capabilities", "roots,sampling"), "refresh re-pins")
    srv = tomllib.loads(Path("mcp.lock").read_text(encoding="utf-8"))["server"]["everything"]
    assert srv["client-capabilities"] == ["roots", "sampling"]
    r = cli("diff", "--format", "json", "--timeout", TIMEOUT)  # the re-pinned client: only what awaits review
    doc = json.loads(r.stdout)
    assert doc["summary"]["drift"] == 0 and {"get-roots-list", "trigger-sampling-request"} <= {
        p["name"] for p in doc["servers"][0]["pending"]
    }
    r = cli("diff", "--client-capabilities", "sampling,bogus")
    assert r.returncode == 2 and "bogus" in r.stderr and "roots, sampling, elicitation" in r.stderr


def _listening_port(pid: int) -> int | None:
    """The TCP port process ``pid`` listens on, from /proc (Linux): its socket inodes matched
    against the kernel's listening sockets."""
    inodes = set()
    try:
        for fd in os.scandir(f"/proc/{pid}/fd"):
            try:
                target = os.readlink(fd.path)
            except OSError:
                continue
            if target.startswith("socket:["):
                inodes.add(target[8:-1])
    except OSError:
        return None
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table, encoding="ascii") as fh:
            next(fh)
            for line in fh:
                cols = line.split()
                if cols[3] == "0A" and cols[9] in inodes:  # 0A: LISTEN
                    return int(cols[1].rsplit(":", 1)[1], 16)
    return None


def _wait_listening(proc: subprocess.Popen, timeout: float = 30.0) -> int:
    """Wait until the server listens; its port (it was started on port 0: the kernel picks a
    free one, so parallel tests never race for a port)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server-everything exited {proc.returncode} before listening")
        port = _listening_port(proc.pid)
        if port is not None:
            with socket.create_connection(("127.0.0.1", port), timeout=5):
                return port
        time.sleep(0.1)
    raise RuntimeError(f"server-everything did not listen within {timeout} s")


@pytest.mark.parametrize(
    "mode, path, transport",
    [("streamableHttp", "/mcp", "http"), ("sse", "/sse", "sse")],
    ids=["streamable-http", "legacy-sse"],
)
def test_everything_remote(tmp_path, cli, mode, path, transport):
    _need_node_modules(EVERYTHING)
    with open(tmp_path / "everything-remote.log", "wb") as log:
        proc = subprocess.Popen(
            [_node(), str(EVERYTHING), mode],
            env=dict(os.environ, PORT="0"),
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            port = _wait_listening(proc)
            lock = _lock_cycle(
                cli,
                "everything-remote",
                [f"http://127.0.0.1:{port}{path}"],
                {"echo", "get-sum"},
                add_opts=("--transport", transport),
                server_name="mcp-servers/everything",
            )
            srv = lock["server"]["everything-remote"]
            assert srv["transport"] == transport
            assert "trigger-sampling-request" in srv["tool"]  # the probe declares sampling, as hosts do
        finally:
            stop_process(proc)


def test_guard_relays_a_streamable_http_session_of_the_sdk_server(tmp_path, cli):
    """`mcplock run` over Streamable HTTP to the SDK's server: its sampling request reaches the host
    and the host's answer the tool; its unsolicited log messages (the standalone GET stream) too."""
    from guardhost import Host

    _need_node_modules(EVERYTHING)
    with open(tmp_path / "everything-guard.log", "wb") as log:
        proc = subprocess.Popen(
            [_node(), str(EVERYTHING), "streamableHttp"],
            env=dict(os.environ, PORT="0"),
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            port = _wait_listening(proc)
            _ok(
                cli(
                    "add",
                    "ev",
                    "--yes",
                    "--policy",
                    "none",
                    "--transport",
                    "http",
                    f"http://127.0.0.1:{port}/mcp",
                    "--timeout",
                    TIMEOUT,
                ),
                "add",
            )
            with Host("ev") as h:
                h.initialize({"sampling": {}, "roots": {}, "elicitation": {}})
                call = h.request_msg(
                    "tools/call", {"name": "trigger-sampling-request", "arguments": {"prompt": "hi", "maxTokens": 10}}
                )
                h.send(call)
                ask = h.wait_for(lambda m: m.get("method") == "sampling/createMessage")
                h.send(
                    {
                        "jsonrpc": "2.0",
                        "id": ask["id"],
                        "result": {
                            "role": "assistant",
                            "content": {"type": "text", "text": "HELLO-FROM-HOST"},
                            "model": "m",
                        },
                    }
                )
                assert "HELLO-FROM-HOST" in json.dumps(h.response(call["id"])["result"])
                assert "error" not in h.call("toggle-simulated-logging", {})
                assert h.request("logging/setLevel", {"level": "debug"})["result"] == {}
                log_msg = h.wait_for(lambda m: m.get("method") == "notifications/message")  # every 5 s
                assert "SessionId" in log_msg["params"]["data"]
                assert h.close() == 0
        finally:
            stop_process(proc)


def test_filesystem(tmp_path, cli):
    _need_node_modules(FILESYSTEM)
    root = tmp_path / "files"
    root.mkdir()
    (root / "hello.txt").write_text("hello\n")
    _lock_cycle(
        cli,
        "filesystem",
        ["--", _node(), str(FILESYSTEM), str(root)],
        {"read_text_file", "write_file", "list_directory", "list_allowed_directories"},
        server_name="secure-filesystem-server",
    )


def test_memory(tmp_path, cli):
    _need_node_modules(MEMORY)
    mem = tmp_path / "memory" / "memory.jsonl"
    mem.parent.mkdir()
    _lock_cycle(
        cli,
        "memory",
        ["--", _node(), str(MEMORY)],
        {"create_entities", "read_graph", "search_nodes"},
        add_opts=("--env", f"MEMORY_FILE_PATH={mem}"),
        server_name="memory-server",
    )
    # the lock records the env, so diff/refresh started the server with it too
    assert tomllib.loads(Path("mcp.lock").read_text())["server"]["memory"]["env"]["MEMORY_FILE_PATH"] == str(mem)


# --- PyPI reference servers --------------------------------------------------------------------


def test_time(cli):
    _lock_cycle(
        cli,
        "time",
        ["--", _pypi_server("mcp-server-time"), "--local-timezone", "UTC"],
        {"get_current_time", "convert_time"},
        server_name="mcp-time",
    )


def test_git(tmp_path, cli):
    repo = tmp_path / "repo"
    repo.mkdir()
    git = shutil.which("git")
    assert git is not None, "git is not on PATH"
    genv = dict(
        os.environ,
        GIT_CONFIG_NOSYSTEM="1",
        GIT_AUTHOR_NAME="t",
        GIT_AUTHOR_EMAIL="t@example.com",
        GIT_COMMITTER_NAME="t",
        GIT_COMMITTER_EMAIL="t@example.com",
    )
    subprocess.run([git, "init", "-q", str(repo)], check=True, env=genv)
    (repo / "README").write_text("hi\n")
    subprocess.run([git, "-C", str(repo), "add", "README"], check=True, env=genv)
    subprocess.run([git, "-C", str(repo), "commit", "-q", "-m", "init"], check=True, env=genv)
    _lock_cycle(
        cli,
        "git",
        ["--", _pypi_server("mcp-server-git"), "--repository", str(repo)],
        {"git_status", "git_log", "git_diff", "git_commit"},
        server_name="mcp-git",
    )


def test_fetch(cli):
    # only lists tools: nothing is fetched (listing needs no network)
    lock = _lock_cycle(cli, "fetch", ["--", _pypi_server("mcp-server-fetch")], {"fetch"}, server_name="mcp-fetch")
    assert set(lock["server"]["fetch"]["tool"]) == {"fetch"}
