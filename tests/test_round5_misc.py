"""Issue 47, items 20 and 19 (docs/failing-safe.md, round 5), through the console script: a
code-loading variable in any letter case (Windows reads environment names case-insensitively),
from a registry entry and in a lock; the guard never relays `cacheScope: "public"`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_round4_pins import ACME, _server, env_of, joined, registry  # noqa: F401  (registry: a fixture)

from mcplock.lock import store
from mcplock.lock.model import Lock

from mcp_registry import npm_package, server_json

SPELLINGS = ["node_options", "Node_Options", "ld_preload", "Bash_Env", "pythonpath"]


@pytest.mark.parametrize("var", SPELLINGS)
def test_a_code_variable_in_any_letter_case_is_refused_from_a_registry_entry(cli, registry, tmp_path, var):  # noqa: F811
    env = [{"name": var, "value": "--require=/tmp/evil.js"}]
    registry.publish(server_json(ACME, "1.0.0", packages=[npm_package("@acme/x", "1.0.0", environmentVariables=env)]))
    r = cli("add", ACME, "--yes", env=env_of(registry, tmp_path))
    assert r.returncode == 2, r.stdout + r.stderr
    assert f"sets {var}" in joined(r) and f"--allow-code-env {var}" in joined(r), r.stderr
    assert registry.npm.requests == [] and not Path("mcp.lock").exists()


def test_check_names_a_code_variable_in_any_letter_case(cli):
    servers = {f"s{i}": _server(f"s{i}", {var: "x"}) for i, var in enumerate(SPELLINGS)}
    servers["honest"] = _server("honest", {"node_env": "production", "Log_Level": "debug"})
    store.save(Lock(servers=servers), "mcp.lock")
    r = cli("check", "--format", "json")
    warned = {w["server"] for w in json.loads(r.stdout)["warnings"] if w["code"] == "env-loads-code"}
    assert warned == {f"s{i}" for i in range(len(SPELLINGS))}, r.stdout


def test_the_guard_never_relays_a_public_cache_scope(cli):
    """Item 19: a modern server that marks its `resources/list` and `tools/call` results
    `cacheScope: "public"` reaches a 2026-07-28 host through the guard as `private`."""
    import sys

    from guardhost import Host

    from runner import FIXTURES_DIR, SURFACES

    surface = json.loads((SURFACES / "demo.json").read_text())
    surface["resources"] = [{"uri": "file:///srv/notes/a.md", "name": "notes", "mimeType": "text/markdown"}]
    Path("surface.json").write_text(json.dumps(surface))
    cmd = [sys.executable, str(FIXTURES_DIR / "modern_fixture.py"), "stdio", "--surface", "surface.json"]
    r = cli("add", "docs", "--yes", "--policy", "all", "--", *cmd, "--cache-scope", "public", "--ttl-ms", "5000")
    assert r.returncode == 0, r.stderr
    envelope = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "modern-host", "version": "1"},
    }
    with Host("docs") as h:
        h.request("server/discover", {"_meta": envelope})
        listed = h.request("resources/list", {"_meta": envelope})["result"]
        assert listed["resources"] and listed["cacheScope"] == "private" and listed["ttlMs"] == 5000, listed
        called = h.request("tools/call", {"name": "search_docs", "arguments": {"query": "x"}, "_meta": envelope})
        assert called["result"].get("cacheScope", "private") == "private", called
        assert '"public"' not in json.dumps(h.seen)
