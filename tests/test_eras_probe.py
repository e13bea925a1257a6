"""Probing in both protocol eras (docs/protocol.md): `server/discover` first with the per-request
`_meta` envelope, the fallback to `initialize`, Streamable HTTP's `Mcp-*` headers, caching fields
kept out of the lock, `x-mcp-header` checked. Real servers over real pipes and 127.0.0.1: the
modern-only fixture (fixtures/modern_fixture.py, refuses `initialize` with -32022), the legacy
fixture, the Python SDK's dual-era `MCPServer` (fixtures/sdk_server.py)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import shutil
import sys
import textwrap
from pathlib import Path

import pytest

from mcplock.lock.hashing import definition_hash
from mcplock.lock.param_headers import encode, headers, problems
from mcplock.lock.read import load
from mcplock.lock.spec import ServerSpec
from mcplock.probe import ProbeOptions, probe

from runner import FIXTURES_DIR, SURFACES, http_fixture, listening, stdio_command

pytestmark = pytest.mark.timeout(90)

MODERN = FIXTURES_DIR / "modern_fixture.py"
SDK = FIXTURES_DIR / "sdk_server.py"


def modern_cmd(*extra: str) -> list[str]:
    return [sys.executable, str(MODERN), "stdio", *extra]


@contextlib.contextmanager
def modern_http(*extra: str):
    with listening([sys.executable, str(MODERN), "http", "--port", "0", *extra]) as started:
        yield started.lines[0][1] + "/mcp"


def snap_of(spec: ServerSpec, **opts):
    return asyncio.run(probe(spec, ProbeOptions(timeout=30, **opts)))


def stdio(cmd: list[str], name: str = "s") -> ServerSpec:
    return ServerSpec(name=name, transport="stdio", command=cmd[0], args=cmd[1:])


def test_a_modern_only_server_over_stdio_is_probed_at_2026_07_28():
    snap = snap_of(stdio(modern_cmd()))  # it answers nothing without the envelope: every request had one
    assert snap.protocol_version == "2026-07-28"
    assert snap.server_info["name"] == "mcplock-fixture"
    assert "ask_user" in [t["name"] for t in snap.tools] and snap.prompts and snap.resource_templates
    assert snap.instructions.startswith("This server manages")


def test_a_modern_only_server_over_http_gets_the_standard_headers(tmp_path):
    # the fixture refuses (400, -32020) a POST whose MCP-Protocol-Version / Mcp-Method / Mcp-Name
    # do not mirror its body, and -32022 an initialize: a probe that lists everything sent them right
    with modern_http() as url:
        snap = snap_of(ServerSpec(name="m", transport="http", url=url))
    assert snap.protocol_version == "2026-07-28"
    assert [t["name"] for t in snap.tools][-1] == "ask_user"


def test_caching_fields_stay_out_of_definitions_and_hashes(tmp_path):
    legacy = snap_of(stdio(stdio_command(surface=SURFACES / "demo.json")))
    modern = snap_of(stdio(modern_cmd("--surface", str(SURFACES / "demo.json"))))
    assert legacy.protocol_version == "2025-11-25" and modern.protocol_version == "2026-07-28"
    for a, b in zip(legacy.tools, modern.tools, strict=True):
        assert not {"ttlMs", "cacheScope", "resultType"} & set(b)
        assert definition_hash(a) == definition_hash(b)


def test_the_sdk_dual_era_server_is_spoken_to_in_the_modern_era():
    snap = snap_of(stdio([sys.executable, str(SDK), "stdio"]))
    assert snap.protocol_version == "2026-07-28"
    assert sorted(t["name"] for t in snap.tools) == ["add", "greet"]
    legacy = snap_of(stdio([sys.executable, str(SDK), "stdio"]), era="legacy")
    assert legacy.protocol_version == "2025-11-25"
    assert [definition_hash(t) for t in legacy.tools] == [definition_hash(t) for t in snap.tools]


def test_the_sdk_dual_era_server_over_streamable_http():
    with listening([sys.executable, str(SDK), "http", "--port", "0"], timeout=30) as started:
        url = started.lines[0][1] + "/mcp"
        for _ in range(50):  # it prints its port before uvicorn listens
            try:
                snap = snap_of(ServerSpec(name="sdk", transport="http", url=url))
                break
            except Exception as e:
                if "refused" not in str(e) and "connect" not in str(e).lower():
                    raise
                import time

                time.sleep(0.2)
    assert snap.protocol_version == "2026-07-28"
    assert sorted(t["name"] for t in snap.tools) == ["add", "greet"]


def test_a_legacy_server_that_never_answers_discover_falls_back_to_initialize(tmp_path):
    # a legacy server that ignores what comes before initialize (no error, no answer): the
    # short wait ends, initialize goes out, the legacy session opens
    script = tmp_path / "silent.py"
    script.write_text(
        textwrap.dedent("""
        import json, sys
        for line in sys.stdin:
            m = json.loads(line)
            if m.get("method") == "initialize":
                r = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}}, "serverInfo": {"name": "old"}}
            elif m.get("method") == "tools/list":
                r = {"tools": [{"name": "t", "inputSchema": {"type": "object"}}]}
            else:
                continue
            print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": r}), flush=True)
    """)
    )
    snap = snap_of(stdio([sys.executable, str(script)]))
    assert snap.protocol_version == "2025-06-18" and [t["name"] for t in snap.tools] == ["t"]


def test_a_modern_only_server_is_added_and_a_rug_pull_in_it_is_caught(cli, tmp_path):
    surface = Path("surface.json")
    shutil.copy(SURFACES / "demo.json", surface)
    r = cli(
        "add", "modern", "--yes", "--policy", "none", "--timeout", "30", "--", *modern_cmd("--surface", str(surface))
    )
    assert r.returncode == 0, r.stderr
    srv = load("mcp.lock").servers["modern"]
    assert srv.protocol_version == "2026-07-28" and "search_docs" in srv.tools
    assert "ttlMs" not in Path("mcp.lock").read_text() and "cacheScope" not in Path("mcp.lock").read_text()
    assert cli("diff", "--timeout", "30").returncode == 0
    shutil.copy(SURFACES / "demo-rugpull.json", surface)
    r = cli("diff", "--timeout", "30")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "search_docs" in r.stdout


def test_a_version_change_is_identity_not_drift(cli, tmp_path):
    # one server command that runs the legacy fixture or the modern-only one, as era.txt says:
    # the same definitions, first at 2025-11-25, then at 2026-07-28
    surface = Path("surface.json")
    shutil.copy(SURFACES / "demo.json", surface)
    switch = Path("switch.py")
    switch.write_text(
        textwrap.dedent(f"""
        import os, sys
        modern = open("era.txt").read().strip() == "modern"
        script = {str(MODERN)!r} if modern else {str(FIXTURES_DIR / "mcp_fixture.py")!r}
        os.execv(sys.executable, [sys.executable, script, "stdio", "--surface", "surface.json"])
    """)
    )
    Path("era.txt").write_text("legacy")
    assert cli("add", "srv", "--yes", "--policy", "none", "--", sys.executable, str(switch)).returncode == 0
    assert load("mcp.lock").servers["srv"].protocol_version == "2025-11-25"
    Path("era.txt").write_text("modern")
    r = cli("diff", "--timeout", "30", "--format", "json")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "2026-07-28" in r.stdout  # reported as identity, apart from the definitions


def test_legacy_sse_still_works_and_reads_as_deprecated(cli):
    with http_fixture() as base:
        r = cli("inspect", base + "/sse", "--transport", "sse", "--format", "json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["protocol_version"] == "2025-11-25"
    assert "deprecated transport" in r.stderr and "--transport http" in r.stderr


# --- x-mcp-header ---------------------------------------------------------------------------


def _tool(props: dict) -> dict:
    return {"name": "t", "inputSchema": {"type": "object", "properties": props}}


@pytest.mark.parametrize(
    "props",
    [
        {"v": {"type": "string", "x-mcp-header": ""}},
        {"v": {"type": "object", "x-mcp-header": "Data"}},
        {"v": {"type": "array", "items": {"type": "string"}, "x-mcp-header": "Items"}},
        {"v": {"type": "null", "x-mcp-header": "Nil"}},
        {"v": {"type": "number", "x-mcp-header": "Score"}},
        {"a": {"type": "string", "x-mcp-header": "Region"}, "b": {"type": "string", "x-mcp-header": "Region"}},
        {"a": {"type": "string", "x-mcp-header": "MyField"}, "b": {"type": "string", "x-mcp-header": "myfield"}},
        {"v": {"type": "string", "x-mcp-header": "My Region"}},
        {"v": {"type": "string", "x-mcp-header": "Region:Primary"}},
        {"v": {"type": "string", "x-mcp-header": "Région"}},
        {"v": {"type": "string", "x-mcp-header": "Region\t1"}},
        {"v": {"type": "array", "items": {"type": "string", "x-mcp-header": "Deep"}}},
        {"v": {"oneOf": [{"type": "string", "x-mcp-header": "Either"}]}},
    ],
)
def test_invalid_x_mcp_header_values_are_found(props):
    assert problems(_tool(props))


def test_valid_x_mcp_headers_pass_and_are_mirrored_encoded():
    tool = _tool(
        {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "n": {"type": "integer", "x-mcp-header": "N"},
            "flag": {"type": "boolean", "x-mcp-header": "Flag"},
            "nested": {"type": "object", "properties": {"id": {"type": "string", "x-mcp-header": "Id"}}},
            "q": {"type": "string"},
        }
    )
    assert problems(tool) == []
    msg = {
        "method": "tools/call",
        "params": {
            "name": "t",
            "arguments": {
                "region": "us-west1",
                "n": 42,
                "flag": False,
                "nested": {"id": " padded "},
                "q": "not mirrored",
            },
        },
    }
    h = headers(msg, "2026-07-28", {"t": tool})
    assert h == {
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "tools/call",
        "Mcp-Name": "t",
        "Mcp-Param-Region": "us-west1",
        "Mcp-Param-N": "42",
        "Mcp-Param-Flag": "false",
        "Mcp-Param-Id": "=?base64?IHBhZGRlZCA=?=",
    }
    assert encode("Hello, 世界") == "=?base64?SGVsbG8sIOS4lueVjA==?="
    assert encode("=?base64?literal?=") == "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="
    assert encode("line1\nline2") == "=?base64?bGluZTEKbGluZTI=?="
    assert encode(None) is None


def test_an_invalid_x_mcp_header_is_a_finding():
    from mcplock.lint import lint_definition

    bad = _tool({"v": {"type": "number", "x-mcp-header": "Score"}})
    found = lint_definition("tool", bad)
    assert [f.rule for f in found] == ["invalid-mcp-header"] and found[0].severity == "high"
    assert lint_definition("tool", _tool({"v": {"type": "string", "x-mcp-header": "Score"}})) == []
    assert lint_definition("tool", bad, old=bad) == []  # an accepted quirk does not re-alarm
