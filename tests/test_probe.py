"""mcplock.probe against real servers: the fixture server over stdio, Streamable HTTP
(JSON and SSE bodies) and legacy SSE on 127.0.0.1, real subprocesses, no mocks."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import threading
import time
import traceback
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from mcplock.errors import ProbeError
from mcplock.lock.spec import ServerSpec
from mcplock.model.snapshot import Snapshot
from mcplock.probe import ProbeOptions, probe, probe_many

from conftest import live_signals
from runner import http_fixture, stdio_command  # fixtures/ is on sys.path (tests/conftest.py)

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"

pytestmark = pytest.mark.timeout(60)

MARKER_VAR = "MCPLOCK_PROBE_TEST_MARKER"

SURFACE: dict[str, Any] = {
    "serverInfo": {"name": "probe-test", "version": "9.9.9", "futureField": [1, 2, {"k": None}]},
    "instructions": "Use the tools wisely — ünïcödé, 你好 🦀\nsecond line",
    "tools": [
        {
            "name": "alpha",
            "description": "First tool.",
            "inputSchema": {"type": "object", "properties": {"x": {"type": "number", "minimum": 1e-7}}},
            "annotations": {"readOnlyHint": True},
            "x-unknown-field": {"nested": [None, True, 1.5, "s", 12345678901234567890]},
            "_meta": {"vendor.example/key": 1},
        },
        {
            "name": "beta",
            "title": "Beta",
            "inputSchema": {"type": "object"},
            "outputSchema": {"type": "object", "properties": {"r": {"type": "string"}}},
            "execution": {"taskSupport": "optional"},
            "icons": [{"src": "https://example.com/icon.png", "mimeType": "image/png"}],
        },
        {"name": "gamma", "description": "Third.", "inputSchema": {"type": "object"}},
        {"name": "delta", "description": "Fourth.", "inputSchema": {"type": "object"}},
        {"name": "epsilon", "description": "Fifth.", "inputSchema": {"type": "object"}},
    ],
    "prompts": [
        {"name": "summarize", "arguments": [{"name": "date", "required": True}], "futurePromptField": "kept"},
        {"name": "review", "description": "Review a diff."},
    ],
    "resourceTemplates": [{"uriTemplate": "file:///{path}", "name": "file", "unknownTemplateField": 1}],
    "resources": [{"uri": "file:///a.txt", "name": "a"}, {"uri": "file:///b.txt", "name": "b", "size": 3}],
}


# --- helpers --------------------------------------------------------------------------------


def write_surface(tmp_path: Path, surface: dict[str, Any] = SURFACE) -> Path:
    path = tmp_path / "surface.json"
    path.write_text(json.dumps(surface, ensure_ascii=False), encoding="utf-8")
    return path


def stdio_spec(
    mode: str = "benign",
    surface: Path | None = None,
    extra: tuple[str, ...] = (),
    name: str | None = None,
    **kw: Any,
) -> ServerSpec:
    cmd = stdio_command(mode=mode, surface=surface, extra_args=extra)
    return ServerSpec(name=name or f"stdio-{mode}", transport="stdio", command=cmd[0], args=tuple(cmd[1:]), **kw)


def run_probe(spec: ServerSpec, **opts: Any) -> Snapshot:
    return asyncio.run(probe(spec, ProbeOptions(**opts)))


def probe_error(spec: ServerSpec, **opts: Any) -> ProbeError:
    with pytest.raises(ProbeError) as info:
        run_probe(spec, **opts)
    return info.value


def assert_lossless(snap: Snapshot, surface: dict[str, Any] = SURFACE, *, resources: bool = False) -> None:
    assert snap.server_info == surface["serverInfo"]
    assert snap.instructions == surface["instructions"]
    assert snap.protocol_version == "2025-11-25"
    assert set(snap.capabilities) == {"tools", "prompts", "resources"}
    assert snap.tools == surface["tools"]
    assert snap.prompts == surface["prompts"]
    assert snap.resource_templates == surface["resourceTemplates"]
    if resources:
        assert snap.resources == surface["resources"]
    else:
        assert snap.resources is None


def marker_pids(marker: str) -> list[int]:
    """Live (non-zombie) processes whose environment holds MARKER_VAR=marker."""
    needle = f"{MARKER_VAR}={marker}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as fh:
                env = fh.read()
        except OSError:
            continue
        if needle in env.split(b"\0") and pid_alive(int(entry)):
            found.append(int(entry))
    return found


def pid_alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read()
    except OSError:
        return False
    state = stat.rsplit(b")", 1)[1].split()[0]
    return state not in (b"Z", b"X")


def wait_gone(pids: list[int], within: float = 3.0) -> list[int]:
    deadline = time.monotonic() + within
    alive = [p for p in pids if pid_alive(p)]
    while alive and time.monotonic() < deadline:
        time.sleep(0.05)
        alive = [p for p in alive if pid_alive(p)]
    return alive


@pytest.fixture(scope="module")
def benign_http():
    with http_fixture(surface=SURFACE) as base:
        yield base


@pytest.fixture(scope="module")
def benign_http_sse():
    with http_fixture(surface=SURFACE, extra_args=["--sse-responses"]) as base:
        yield base


# --- benign: lossless snapshots over every transport ----------------------------------------


def test_stdio_snapshot_is_lossless(tmp_path):
    snap = run_probe(stdio_spec(surface=write_surface(tmp_path)))
    assert_lossless(snap)
    assert snap.skipped_lines == []


def test_stdio_default_surface_matches_fixture():
    import mcp_fixture

    snap = run_probe(stdio_spec())
    want = mcp_fixture.DEFAULT_SURFACE
    assert snap.tools == want["tools"]
    assert snap.prompts == want["prompts"]
    assert snap.resource_templates == want["resourceTemplates"]
    assert snap.server_info == want["serverInfo"]


def test_unicode_surface_stdio():
    path = FIXTURES / "surfaces" / "unicode.json"
    want = json.loads(path.read_text(encoding="utf-8"))
    snap = run_probe(stdio_spec(surface=path))
    assert snap.tools == want["tools"]
    assert snap.instructions == want.get("instructions")


def test_http_json_snapshot_is_lossless(benign_http):
    snap = run_probe(ServerSpec(name="h", transport="http", url=benign_http + "/mcp"))
    assert_lossless(snap)


def test_http_sse_body_snapshot_is_lossless(benign_http_sse):
    snap = run_probe(ServerSpec(name="h", transport="http", url=benign_http_sse + "/mcp"))
    assert_lossless(snap)


def test_legacy_sse_snapshot_is_lossless(benign_http):
    snap = run_probe(ServerSpec(name="s", transport="sse", url=benign_http + "/sse"))
    assert_lossless(snap)


@pytest.mark.parametrize("transport", ["stdio", "http", "sse"])
def test_pin_resources(transport, tmp_path, benign_http):
    if transport == "stdio":
        spec = stdio_spec(surface=write_surface(tmp_path), pin_resources=True)
    else:
        spec = ServerSpec(
            name="x",
            transport=transport,
            url=benign_http + ("/mcp" if transport == "http" else "/sse"),
            pin_resources=True,
        )
    assert_lossless(run_probe(spec), resources=True)


def test_client_identity_and_protocol_version(tmp_path):
    surface = dict(SURFACE, protocolVersion="2025-06-18")
    snap = run_probe(
        stdio_spec(surface=write_surface(tmp_path, surface)), client_name="claude-code", client_version="2.0"
    )
    assert snap.protocol_version == "2025-06-18"


def test_pagination_all_pages_in_order(tmp_path):
    snap = run_probe(stdio_spec(surface=write_surface(tmp_path), extra=("--page-size", "2")))
    assert [t["name"] for t in snap.tools] == ["alpha", "beta", "gamma", "delta", "epsilon"]
    assert snap.tools == SURFACE["tools"]
    assert snap.prompts == SURFACE["prompts"]


def test_pagination_over_http_sse_bodies():
    with http_fixture(surface=SURFACE, extra_args=["--page-size", "2", "--sse-responses"]) as base:
        snap = run_probe(ServerSpec(name="h", transport="http", url=base + "/mcp"))
    assert snap.tools == SURFACE["tools"]


def test_capability_not_advertised_is_not_asked(tmp_path):
    # The surface has prompts and templates, but the server only advertises tools.
    surface = dict(SURFACE, capabilities={"tools": {}})
    snap = run_probe(stdio_spec(surface=write_surface(tmp_path, surface), pin_resources=True))
    assert snap.tools == SURFACE["tools"]
    assert snap.prompts == [] and snap.resource_templates == []
    assert snap.resources == []


def test_method_not_found_on_a_list_is_empty(tmp_path):
    # Advertises prompts and resources, but has none: the fixture answers -32601.
    surface = {"tools": SURFACE["tools"], "capabilities": {"tools": {}, "prompts": {}, "resources": {}}}
    snap = run_probe(stdio_spec(surface=write_surface(tmp_path, surface)))
    assert snap.tools == SURFACE["tools"]
    assert snap.prompts == [] and snap.resource_templates == []
    assert snap.instructions is None


def test_banner_lines_are_skipped_and_kept():
    snap = run_probe(stdio_spec(mode="banner"))
    assert len(snap.tools) == 3
    assert snap.skipped_lines[:2] == [
        "*** Welcome to the fixture MCP server v0.0.1 ***",
        "Listening on stdio, press Ctrl-C to quit",
    ]


# --- hostile stdio servers --------------------------------------------------------------------


def test_command_not_found():
    err = probe_error(ServerSpec(name="n", transport="stdio", command="npx-does-not-exist-mcplock"))
    assert err.kind == "command-not-found"
    assert "command `npx-does-not-exist-mcplock` not found" in err.message
    assert "PATH" in (err.hint or "")


def test_missing_cwd():
    err = probe_error(stdio_spec(cwd="/nonexistent/dir/mcplock"))
    assert err.kind == "cwd-not-found"
    assert "/nonexistent/dir/mcplock" in err.message


def test_crash_reports_exit_code_and_stderr():
    err = probe_error(stdio_spec(mode="crash"))
    assert err.kind == "exited"
    assert "exited with code 1" in err.message
    assert "fatal: cannot open database /nope" in err.message
    assert "fatal: cannot open database /nope" in err.stderr_tail


def test_die_after_init():
    err = probe_error(stdio_spec(mode="die-after-init"))
    assert err.kind == "exited"
    assert "code 1" in err.message and "tools/list" in err.message
    assert "die-after-init" in err.message  # the stderr tail


def test_batch_reply_is_a_protocol_error_at_once():
    err = probe_error(stdio_spec(mode="batch-reply"), timeout=60)
    assert err.kind == "protocol"
    assert "batch" in err.message  # at once: a protocol error, not a timeout


def test_nan_in_a_tool_names_the_tool(tmp_path):
    surface = tmp_path / "nan.json"
    text = json.dumps(
        {
            "tools": [
                {"name": "ok", "inputSchema": {"type": "object"}},
                {"name": "bounded", "inputSchema": {"type": "object", "maximum": 1}},
            ]
        }
    )
    surface.write_text(text.replace('"maximum": 1', '"maximum": Infinity'), encoding="utf-8")
    err = probe_error(stdio_spec(surface=surface))
    assert err.kind == "protocol"
    assert "`Infinity`" in err.message and "tool `bounded`" in err.message
    assert "result.tools[1].inputSchema.maximum" in err.message


def test_garbage_only_output():
    err = probe_error(stdio_spec(mode="garbage"), timeout=1.5)  # only non-JSON-RPC lines until the timeout
    assert err.kind == "garbage"
    assert "garbage: this is not JSON-RPC" in err.message


def test_garbage_sample_escapes_control_characters(tmp_path):
    script = tmp_path / "noise.py"
    script.write_text("import sys\nsys.stdout.write('\\x1b[31mred\\x07 alert\\n')\nsys.stdout.flush()\n")
    err = probe_error(ServerSpec(name="noise", transport="stdio", command=sys.executable, args=(str(script),)))
    assert err.kind == "garbage"
    assert "\x1b" not in err.message and "\x07" not in err.message
    assert "\\x1b[31mred\\x07 alert" in err.message


def test_hang_times_out_waiting_for_initialize():
    err = probe_error(stdio_spec(mode="hang"), timeout=1)
    assert err.kind == "timeout"
    assert "no answer within 1 s" in err.message
    assert "initialize" in err.message


def test_timeout_names_the_page(tmp_path):
    # 5 tools, one per page, 0.3 s per answer (server/discover's error and initialize first): the
    # 1.6 s budget runs out inside tools/list.
    spec = stdio_spec(mode="slow", surface=write_surface(tmp_path), extra=("--page-size", "1", "--delay", "0.3"))
    err = probe_error(spec, timeout=1.6)
    assert err.kind == "timeout"
    assert re.search(r"no answer within 1.6 s \(waiting for tools/list page [2-5]\)", err.message), err.message


def test_duplicate_tool():
    err = probe_error(stdio_spec(mode="duplicate"))
    assert err.kind == "duplicate"
    assert err.message == "duplicate tool `search` in tools/list"


def test_endless_cursor():
    err = probe_error(stdio_spec(mode="endless-cursor"), max_pages=20)
    assert err.kind == "pagination"
    assert "more than 20 pages" in err.message and "tools/list" in err.message


def test_repeat_cursor():
    err = probe_error(stdio_spec(mode="repeat-cursor"))
    assert err.kind == "pagination"
    assert "same-cursor-every-time" in err.message


def test_huge_message():
    err = probe_error(stdio_spec(mode="huge"), max_response_bytes=1024 * 1024)
    assert err.kind == "too-large"
    assert "1048576 bytes" in err.message


def test_max_items(tmp_path):
    err = probe_error(stdio_spec(surface=write_surface(tmp_path)), max_items=3)
    assert err.kind == "too-large"
    assert "more than 3 tools" in err.message


def test_bad_schema_names_the_field():
    err = probe_error(stdio_spec(mode="bad-schema"))
    assert err.kind == "protocol"
    assert "tools/list" in err.message and "`tools`" in err.message and "not an array" in err.message


def test_entry_without_name(tmp_path):
    surface = {"tools": [{"name": "ok", "inputSchema": {}}, {"description": "nameless", "inputSchema": {}}]}
    err = probe_error(stdio_spec(surface=write_surface(tmp_path, surface)))
    assert err.kind == "protocol"
    assert "entry 2" in err.message and "`name`" in err.message and "nameless" in err.message


def test_entry_not_an_object(tmp_path):
    err = probe_error(stdio_spec(surface=write_surface(tmp_path, {"tools": [{"name": "a"}, "b"]})))
    assert err.kind == "protocol"
    assert "tools/list: entry 2 is a string, not an object" in err.message


def test_nameless_prompt_in_bad_schema_mode(tmp_path):
    surface = {"prompts": [{"name": "p"}]}
    err = probe_error(stdio_spec(mode="bad-schema", surface=write_surface(tmp_path, surface)))
    assert err.kind == "protocol"
    # tools are asked first if advertised: here the fixture advertises only prompts
    assert "prompts/list" in err.message and "`name`" in err.message


def test_duplicate_resource_template(tmp_path):
    surface = {"resourceTemplates": [{"uriTemplate": "a://{x}", "name": "1"}, {"uriTemplate": "a://{x}", "name": "2"}]}
    err = probe_error(stdio_spec(surface=write_surface(tmp_path, surface)))
    assert err.kind == "duplicate"
    assert err.message == "duplicate resource template `a://{x}` in resources/templates/list"


def test_nan_is_rejected(tmp_path):
    (tmp_path / "nan.json").write_text('{"tools": [{"name": "n", "inputSchema": {}, "x": NaN}]}')
    err = probe_error(stdio_spec(surface=tmp_path / "nan.json"))
    assert err.kind == "protocol"
    assert "NaN" in err.message


def test_error_on_tools():
    err = probe_error(stdio_spec(mode="error-on-tools"))
    assert err.kind == "rpc"
    assert "tools/list" in err.message and "-32603" in err.message and "database offline" in err.message


def test_verbose_shows_skipped_stdout_lines():
    script = (
        'printf \'%s\\n\' \'hello banner\' \'{"jsonrpc":"2.0","method":"notifications/message"}\'; '
        "echo boom >&2; exit 2"
    )
    spec = ServerSpec(name="v", transport="stdio", command="sh", args=("-c", script))
    quiet = probe_error(spec)
    loud = probe_error(spec, verbose=True)
    assert quiet.kind == loud.kind == "exited"
    assert "boom" in quiet.message and "boom" in loud.message
    assert "hello banner" not in quiet.message
    assert "hello banner" in loud.message
    assert loud.skipped_lines == ["hello banner"]


def test_invalid_utf8_jsonrpc_is_a_protocol_error(tmp_path):
    script = tmp_path / "bad_utf8.py"
    script.write_text(
        "import sys\n"
        "sys.stdin.readline()\n"
        'sys.stdout.buffer.write(b\'{"jsonrpc": "2.0", "id": 1, "result": {"x": "\\xff"}}\\n\')\n'
        "sys.stdout.flush()\n"
        "sys.stdin.readline()\n"
    )
    err = probe_error(ServerSpec(name="u", transport="stdio", command=sys.executable, args=(str(script),)))
    assert err.kind == "protocol" and "UTF-8" in err.message


def test_sse_parser():
    from mcplock.probe.http import iter_sse

    async def chunks():
        for part in [
            b": comment\r\nevent: endpoint\r",
            b"\ndata: /messages?x=1\r\n\r\n",
            b'data: {"a":',
            b"\ndata: 1}\n\n",
            b"event: message\ndata:no-space\n\ndata: tail",
        ]:
            yield part

    async def collect():
        return [e async for e in iter_sse(chunks(), 1000, lambda: RuntimeError("too large"))]

    assert asyncio.run(collect()) == [
        ("endpoint", b"/messages?x=1"),
        ("message", b'{"a":\n1}'),
        ("message", b"no-space"),
        ("message", b"tail"),
    ]

    async def big():
        yield b"data: " + b"x" * 2000 + b"\n\n"

    async def collect_big():
        return [e async for e in iter_sse(big(), 1000, lambda: ValueError("too large"))]

    with pytest.raises(ValueError):
        asyncio.run(collect_big())


# --- no orphans ---------------------------------------------------------------------------------


def _probe_and_sample(spec: ServerSpec, marker: str, timeout: float, sample_at: float) -> tuple[Any, list[int]]:
    seen: list[int] = []

    async def sampler() -> None:
        deadline = time.monotonic() + sample_at
        while time.monotonic() < deadline:
            await asyncio.sleep(0.1)
            for pid in marker_pids(marker):
                if pid not in seen:
                    seen.append(pid)

    async def main() -> Any:
        res = await asyncio.gather(probe(spec, ProbeOptions(timeout=timeout)), sampler(), return_exceptions=True)
        return res[0]

    return asyncio.run(main()), seen


def test_no_orphan_after_timeout():
    marker = uuid.uuid4().hex
    spec = stdio_spec(mode="hang", env={MARKER_VAR: marker})
    result, seen = _probe_and_sample(spec, marker, timeout=1.0, sample_at=0.8)
    assert isinstance(result, ProbeError) and result.kind == "timeout"
    assert len(seen) == 1, "the child was running during the probe"
    assert wait_gone(seen, 0.5) == []
    assert marker_pids(marker) == []


def test_no_orphan_grandchild_via_sh():
    marker = uuid.uuid4().hex
    inner = " ".join(shlex.quote(a) for a in stdio_command(mode="hang"))
    # `; true` keeps sh alive as the parent, so the fixture is a grandchild.
    spec = ServerSpec(
        name="sh", transport="stdio", command="sh", args=("-c", f"{inner}; true"), env={MARKER_VAR: marker}
    )
    result, seen = _probe_and_sample(spec, marker, timeout=1.2, sample_at=1.0)
    assert isinstance(result, ProbeError) and result.kind == "timeout"
    assert len(seen) == 2, f"expected sh and its child python, saw {seen}"
    assert wait_gone(seen, 0.5) == []
    assert marker_pids(marker) == []


def test_no_orphan_after_success_with_lingering_grandchild():
    marker = uuid.uuid4().hex
    inner = " ".join(shlex.quote(a) for a in stdio_command())
    # A background grandchild that ignores stdin EOF and would outlive the server.
    spec = ServerSpec(
        name="bg",
        transport="stdio",
        command="sh",
        args=("-c", f"sleep 300 & {inner}"),
        env={MARKER_VAR: marker},
    )
    snap = run_probe(spec)
    assert len(snap.tools) == 3
    assert wait_gone(marker_pids(marker), 1.0) == []


def test_keyboard_interrupt_kills_every_child(tmp_path):
    marker = uuid.uuid4().hex
    inner = " ".join(shlex.quote(a) for a in stdio_command(mode="hang"))
    script = tmp_path / "interrupt.py"
    script.write_text(
        "import sys\n"
        "from mcplock.probe import probe_many, ProbeOptions\n"
        "from mcplock.lock.spec import ServerSpec\n"
        f"specs = [ServerSpec(name=f's{{i}}', transport='stdio', command='sh', args=('-c', {inner + '; true'!r}),"
        f" env={{{MARKER_VAR!r}: {marker!r}}}) for i in range(3)]\n"
        "probe_many(specs, ProbeOptions(timeout=60))\n"
    )
    proc = subprocess.Popen(
        [sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=live_signals
    )
    try:
        deadline = time.monotonic() + 15
        while len(marker_pids(marker)) < 6 and time.monotonic() < deadline:
            time.sleep(0.1)
        pids = marker_pids(marker)
        assert len(pids) == 6, "three sh + three fixture processes"
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode != 0
    assert b"KeyboardInterrupt" in stderr
    assert wait_gone(pids, 2.0) == []
    assert marker_pids(marker) == []


def test_a_start_cancelled_midway_kills_the_whole_group(tmp_path):
    """Ctrl-C while a child is being started: asyncio's own cleanup kills the child alone and
    then waits for pipes a grandchild holds open, forever. The group dies and nothing waits."""
    from mcplock.probe._pipes import Lines, spawn

    marker = uuid.uuid4().hex

    async def main() -> None:
        lines = Lines(1024, lambda _: None, lambda: True, lambda: None)
        task = asyncio.create_task(
            spawn(
                lines,
                "sh",
                ["-c", "sleep 60 & wait"],
                limit=1024,
                env={**os.environ, MARKER_VAR: marker},
                start_new_session=True,
            )
        )
        await asyncio.sleep(0)  # the start is under way: Popen done, its pipes being connected
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, 10)

    asyncio.run(main())
    assert wait_gone(marker_pids(marker), 3.0) == []
    assert marker_pids(marker) == []


# --- hostile HTTP servers -----------------------------------------------------------------------


@pytest.mark.parametrize("sse_bodies", [False, True])
def test_http_hostile_status_modes(sse_bodies):
    extra = ["--sse-responses"] if sse_bodies else []
    expectations = {
        "401": ("auth", "needs credentials", "mcplock auth login h401"),
        "405": ("legacy-sse", "legacy SSE endpoint", "--transport sse"),
        "404": ("not-found", "no MCP endpoint at", None),
        "html": ("html", "got an HTML page, not MCP (a login page?)", None),
    }
    for mode, (kind, text, hint) in expectations.items():
        with http_fixture(mode=mode, extra_args=extra) as base:
            err = probe_error(ServerSpec(name=f"h{mode}", transport="http", url=base + "/mcp"))
        assert err.kind == kind, (mode, err.message)
        assert text in err.message, (mode, err.message)
        if hint:
            assert hint in (err.hint or ""), (mode, err.hint)


def test_http_410_quotes_the_body():
    with http_fixture(mode="410") as base:
        err = probe_error(ServerSpec(name="g", transport="http", url=base + "/mcp"))
        err_sse = probe_error(ServerSpec(name="g", transport="sse", url=base + "/sse"))
    for e in (err, err_sse):
        assert e.kind == "gone"
        assert "the server retired this endpoint" in e.message
        assert "retired on 2026-01-01; use https://new.example/mcp" in e.message


def test_401_on_legacy_sse():
    with http_fixture(mode="401") as base:
        err = probe_error(ServerSpec(name="a", transport="sse", url=base + "/sse"))
    assert err.kind == "auth"
    assert "mcplock auth login a" in (err.hint or "")


def test_404_suggests_mcp_path(benign_http):
    err = probe_error(ServerSpec(name="r", transport="http", url=benign_http + "/api"))
    assert err.kind == "not-found"
    assert f"no MCP endpoint at {benign_http}/api" in err.message
    assert f"try {benign_http}/mcp" in (err.hint or "")


def test_http_transport_on_legacy_sse_endpoint(benign_http):
    err = probe_error(ServerSpec(name="l", transport="http", url=benign_http + "/sse"))
    assert err.kind == "legacy-sse"
    assert "this looks like a legacy SSE endpoint" in err.message
    assert "--transport sse" in (err.hint or "")


def test_sse_transport_on_streamable_endpoint(benign_http):
    err = probe_error(ServerSpec(name="l", transport="sse", url=benign_http + "/mcp"))
    assert err.kind == "legacy-sse"
    assert "--transport http" in (err.hint or "")


def test_http_html_on_legacy_sse():
    with http_fixture(mode="html") as base:
        err = probe_error(ServerSpec(name="x", transport="sse", url=base + "/sse"))
    assert err.kind == "html"


@pytest.mark.parametrize("transport", ["http", "sse"])
def test_http_garbage_is_protocol_error(transport):
    with http_fixture(mode="garbage") as base:
        url = base + ("/mcp" if transport == "http" else "/sse")
        err = probe_error(ServerSpec(name="g", transport=transport, url=url))
    assert err.kind == "protocol"
    assert "not JSON" in err.message and "garbage: this is not JSON-RPC" in err.message


@pytest.mark.parametrize("transport", ["http", "sse"])
def test_http_duplicate_and_rpc_error(transport):
    path = "/mcp" if transport == "http" else "/sse"
    with http_fixture(mode="duplicate") as base:
        err = probe_error(ServerSpec(name="d", transport=transport, url=base + path))
    assert err.kind == "duplicate" and err.message == "duplicate tool `search` in tools/list"
    with http_fixture(mode="error-on-tools") as base:
        err = probe_error(ServerSpec(name="e", transport=transport, url=base + path))
    assert err.kind == "rpc" and "database offline" in err.message


@pytest.mark.parametrize("transport", ["http", "sse"])
def test_http_hang_times_out(transport):
    path = "/mcp" if transport == "http" else "/sse"
    with http_fixture(mode="hang") as base:
        err = probe_error(ServerSpec(name="hang", transport=transport, url=base + path), timeout=1)
    assert err.kind == "timeout"
    assert "no answer within 1 s" in err.message


@pytest.mark.parametrize("extra", [[], ["--sse-responses"]])
def test_http_huge(extra):
    with http_fixture(mode="huge", extra_args=extra) as base:
        err = probe_error(ServerSpec(name="big", transport="http", url=base + "/mcp"), max_response_bytes=1024 * 1024)
    assert err.kind == "too-large"


def test_http_endless_and_repeat_cursor():
    with http_fixture(mode="endless-cursor", extra_args=["--sse-responses"]) as base:
        err = probe_error(ServerSpec(name="e", transport="http", url=base + "/mcp"), max_pages=10)
    assert err.kind == "pagination"
    with http_fixture(mode="repeat-cursor") as base:
        err = probe_error(ServerSpec(name="r", transport="sse", url=base + "/sse"))
    assert err.kind == "pagination"


def test_http_die_after_init():
    with http_fixture(mode="die-after-init") as base:
        err = probe_error(ServerSpec(name="d", transport="http", url=base + "/mcp"))
    assert err.kind == "connect"


def test_connection_refused():
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    err = probe_error(ServerSpec(name="c", transport="http", url=f"http://127.0.0.1:{port}/mcp"))
    assert err.kind == "connect"
    assert "connection refused" in err.message


def test_dns_failure():
    err = probe_error(ServerSpec(name="d", transport="http", url="http://mcplock-test.invalid/mcp"), timeout=10)
    assert err.kind == "dns"
    assert "mcplock-test.invalid" in err.message


def test_tls_failure(benign_http):
    url = benign_http.replace("http://", "https://") + "/mcp"
    err = probe_error(ServerSpec(name="t", transport="http", url=url))
    assert err.kind == "tls", err.message


def test_bad_url():
    err = probe_error(ServerSpec(name="u", transport="http", url="ftp://example.com/mcp"))
    assert err.kind == "config"


# --- concurrency --------------------------------------------------------------------------------


def test_probe_many_runs_concurrently():
    def specs(n: int) -> list[ServerSpec]:
        return [stdio_spec(mode="slow", extra=("--delay", "0.4"), name=f"slow{i}") for i in range(n)]

    # How long eight take against one is a benchmark (bench/), not a test: here, that all
    # eight are under way before the first one finishes, and each finishes.
    events: list[tuple[str, str]] = []
    eight = probe_many(specs(8), ProbeOptions(timeout=20), on_event=lambda n, e: events.append((n, e)))
    assert list(eight) == [f"slow{i}" for i in range(8)]
    assert all(isinstance(v, Snapshot) and len(v.tools) == 3 for v in eight.values())
    assert sorted(e for _, e in events) == ["done"] * 8 + ["start"] * 8
    assert [e for _, e in events[:8]] == ["start"] * 8, events
    # with concurrency 1 they run one after the other
    events.clear()
    probe_many(specs(2), ProbeOptions(timeout=20, concurrency=1), on_event=lambda n, e: events.append((n, e)))
    assert events == [("slow0", "start"), ("slow0", "done"), ("slow1", "start"), ("slow1", "done")]


def test_probe_many_isolates_failures(benign_http):
    specs = [
        stdio_spec(name="good"),
        stdio_spec(mode="crash", name="bad"),
        ServerSpec(name="web", transport="http", url=benign_http + "/mcp"),
        stdio_spec(mode="hang", name="hung"),
    ]
    events: list[tuple[str, str]] = []
    res = probe_many(specs, ProbeOptions(timeout=1.5), on_event=lambda n, e: events.append((n, e)))
    assert list(res) == ["good", "bad", "web", "hung"]
    assert isinstance(res["good"], Snapshot) and isinstance(res["web"], Snapshot)
    assert isinstance(res["bad"], ProbeError) and res["bad"].kind == "exited"
    assert isinstance(res["hung"], ProbeError) and res["hung"].kind == "timeout"
    assert ("bad", "failed") in events and ("good", "done") in events


def test_probe_many_respects_concurrency_bound():
    active = 0
    peak = 0

    def on_event(name: str, event: str) -> None:
        nonlocal active, peak
        active += 1 if event == "start" else -1
        peak = max(peak, active)

    specs = [stdio_spec(mode="slow", extra=("--delay", "0.1"), name=f"s{i}") for i in range(4)]
    res = probe_many(specs, ProbeOptions(concurrency=2), on_event=on_event)
    assert all(isinstance(v, Snapshot) for v in res.values())
    assert peak == 2


# --- ${VAR} expansion and secrets ----------------------------------------------------------------


def test_var_expansion_in_command_args_and_env(tmp_path):
    surface = write_surface(tmp_path)
    fixture = str(FIXTURES / "mcp_fixture.py")
    # The surface path reaches the server only through an env value expanded from ${SURF}.
    spec = ServerSpec(
        name="x",
        transport="stdio",
        command="sh",
        args=("-c", 'exec "$0" "$1" stdio --surface "$SURFACE_PATH" --mode "$2"', "${PY}", fixture, "${MODE:-benign}"),
        env={"SURFACE_PATH": "${SURF}"},
    )
    snap = run_probe(spec, environ={"PY": sys.executable, "SURF": str(surface)})
    assert snap.tools == SURFACE["tools"]


def test_var_expansion_in_command():
    spec = ServerSpec(name="x", transport="stdio", command="${PY}", args=(str(FIXTURES / "mcp_fixture.py"), "stdio"))
    assert len(run_probe(spec, environ={"PY": sys.executable}).tools) == 3


def test_secrets_win_over_environ(tmp_path):
    surface = write_surface(tmp_path)
    spec = ServerSpec(
        name="x",
        transport="stdio",
        command=sys.executable,
        args=(str(FIXTURES / "mcp_fixture.py"), "stdio", "--surface", "${SURF}"),
        secrets={"SURF": str(surface)},
    )
    snap = run_probe(spec, environ={"SURF": "/nonexistent.json"})
    assert snap.tools == SURFACE["tools"]


def test_var_expansion_in_url(benign_http):
    port = benign_http.rsplit(":", 1)[1]
    spec = ServerSpec(name="x", transport="http", url="http://127.0.0.1:${PORT}/${MCP_PATH:-mcp}")
    snap = run_probe(spec, environ={"PORT": port})
    assert snap.tools == SURFACE["tools"]


class _Recorder(BaseHTTPRequestHandler):
    """Records headers; answers 403 echoing the credentials back (a careless server)."""

    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.server.seen.append((self.path, dict(self.headers)))  # type: ignore[attr-defined]
        body = json.dumps(
            {"error": f"token {self.headers.get('Authorization')} and key {self.headers.get('X-Api-Key')} refused"}
        ).encode()
        self.send_response(getattr(self.server, "status", 403))
        if getattr(self.server, "www", None):
            self.send_header("WWW-Authenticate", self.server.www)  # type: ignore[attr-defined]
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST


@pytest.fixture
def recorder():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    server.seen = []  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("transport", ["http", "sse"])
def test_headers_expand_and_canary_never_leaks(recorder, transport):
    canary = "canary-" + uuid.uuid4().hex
    port = recorder.server_address[1]
    spec = ServerSpec(
        name="leak",
        transport=transport,
        url=f"http://127.0.0.1:{port}/mcp?key=${{API_KEY}}",
        headers={"Authorization": "Bearer ${TOKEN}", "X-Api-Key": "${API_KEY}", "X-Plain": "${PLAIN:-fallback}"},
        secrets={"API_KEY": canary + "-k"},
    )
    err = probe_error(spec, environ={"TOKEN": canary})
    path, headers = recorder.seen[0]
    assert headers["Authorization"] == f"Bearer {canary}"
    assert headers["X-Api-Key"] == canary + "-k"
    assert headers["X-Plain"] == "fallback"
    assert path == f"/mcp?key={canary}-k"
    assert err.kind == "forbidden"
    everything = " ".join([str(err), err.message, err.hint or "", repr(err.as_json())])
    assert canary not in everything
    assert "${API_KEY}" in err.message  # the template URL is shown, not the expanded one
    assert "refused" in err.message


def test_401_without_oauth_suggests_a_header(recorder):
    recorder.status = 401
    port = recorder.server_address[1]
    err = probe_error(ServerSpec(name="p", transport="http", url=f"http://127.0.0.1:{port}/mcp"))
    assert err.kind == "auth" and "needs credentials" in err.message
    assert "--header 'Authorization: Bearer ${TOKEN}'" in (err.hint or "")
    assert "auth login" not in (err.hint or "")


def test_401_with_an_oauth_challenge_is_a_login_action(recorder):
    recorder.status = 401
    recorder.www = 'Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"'
    port = recorder.server_address[1]
    err = probe_error(ServerSpec(name="p", transport="http", url=f"http://127.0.0.1:{port}/mcp"))
    assert err.kind == "auth" and "asks for an OAuth login" in err.message
    assert err.action is not None and err.action.kind == "login"
    assert err.action.command == "mcplock auth login p"
    assert err.hint == (
        "OAuth: run `mcplock auth login p` (or set a header, e.g. --header 'Authorization: Bearer ${TOKEN}' for CI)"
    )
    # what the CLI does with it, as data: a more precise command, and the --login retry
    err.action = err.action.with_command("mcplock auth login p http://h/mcp").with_retry("--login")
    assert err.hint == (
        "OAuth: run `mcplock auth login p http://h/mcp` (or set a header, e.g. "
        "--header 'Authorization: Bearer ${TOKEN}' for CI); or run this command again with --login"
    )
    assert err.action.with_retry("--login") == err.action  # said once
    assert err.as_json()["hint"] == err.hint


def test_scrubbing_reaches_the_action():
    from mcplock.errors import Action
    from mcplock.probe._common import scrubbed

    err = ProbeError(
        "auth",
        "m",
        action=Action("login", "run `{command}` now", command="mcplock auth login s3cr3t-x", scopes="s3cr3t-x"),
    )
    out = scrubbed(err, ["s3cr3t-x"])
    assert out.hint == "run `mcplock auth login *** --oauth-scopes '***'` now"
    assert out.kind == "auth" and isinstance(out, ProbeError)


@pytest.mark.parametrize("transport", ["http", "sse"])
def test_injected_http_client_is_used(recorder, transport):
    """ProbeOptions.http_client: how mcplock.auth hands the probe an OAuth client; here an
    httpx2.Auth of httpx2's own signs the requests."""
    import httpx2

    from mcplock.probe.http import new_client

    calls: list[str] = []

    def factory(spec: ServerSpec, opts: ProbeOptions, environ: Any) -> httpx2.AsyncClient:
        calls.append(spec.name)
        return new_client(opts, auth=httpx2.BasicAuth("user", "pw"))

    port = recorder.server_address[1]
    err = probe_error(
        ServerSpec(name="inj", transport=transport, url=f"http://127.0.0.1:{port}/mcp"), http_client=factory
    )
    assert calls == ["inj"]
    assert recorder.seen[0][1]["Authorization"].startswith("Basic ")
    assert err.kind == "forbidden"


def test_no_sdk_and_no_httpx_at_import():
    code = (
        "import sys, mcplock.probe; "
        "assert 'httpx2' not in sys.modules and 'httpx' not in sys.modules, 'httpx'; "
        "from mcplock.probe import _stdio, session, transport, streamable_http, sse, errors; "
        "assert 'mcplock.auth' not in sys.modules, 'auth'; "
        "assert 'httpx' not in sys.modules, 'httpx besides httpx2'; "
        "assert not any(m == 'mcp' or m.startswith('mcp.') for m in sys.modules), 'sdk'"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=30)


def test_canary_in_stderr_is_scrubbed():
    canary = "canary-" + uuid.uuid4().hex
    spec = ServerSpec(
        name="s",
        transport="stdio",
        command="sh",
        args=("-c", 'echo "starting with token $MY_TOKEN" >&2; exit 3'),
        env={"MY_TOKEN": "${TOKEN}"},
    )
    err = probe_error(spec, environ={"TOKEN": canary})
    assert err.kind == "exited" and "code 3" in err.message
    assert "starting with token ***" in err.message
    assert canary not in err.message


def test_canary_in_args_not_in_not_found_message():
    canary = "canary-" + uuid.uuid4().hex
    spec = ServerSpec(name="s", transport="stdio", command="${CMD}", args=("--token", "${TOKEN}"))
    err = probe_error(spec, environ={"CMD": "/nonexistent/" + canary, "TOKEN": canary})
    assert err.kind == "command-not-found"
    assert canary not in err.message + (err.hint or "")


def test_requests_written_at_once_are_heard_in_the_read_callback_and_leave_no_trace():
    """The guard's per-call path over stdio: each answer reaches ``on_done`` with nothing else
    scheduled in between, and an ended request leaves neither a pending future nor an entry in
    what the session says it waits for (that list once grew by one per call)."""
    from mcplock.probe._stdio import StdioTransport

    async def main():
        conn = StdioTransport(stdio_spec(), ProbeOptions(), dict(os.environ))
        conn.on_message = lambda msg: None  # a long-lived session, as the guard's
        await conn.start()
        try:
            heard: list[tuple[asyncio.Future[Any], bool]] = []

            def on_done(fut: asyncio.Future[Any]) -> None:  # inside the read of the answer, or a later turn?
                heard.append((fut, any(f.name == "_stdout_line" for f in traceback.extract_stack())))

            for _ in range(5):
                started = conn.request_now("ping", None, on_done)
                assert started is not None
                _, fut = started
                await fut
                assert heard[-1] == (fut, True) and fut.result()["result"] == {}
            return len(heard), dict(conn._pending), list(conn.state.in_flight), conn.state.step
        finally:
            await conn.close()

    n, pending, in_flight, step = asyncio.run(asyncio.wait_for(main(), 20))
    assert n == 5 and pending == {} and in_flight == [] and "ping" not in step
