#!/usr/bin/env python3
"""The conformance suite's client command: `adapter.py SERVER_URL` runs `mcplock inspect` on it.

The suite sets MCP_CONFORMANCE_SCENARIO (and MCP_CONFORMANCE_CONTEXT, JSON, for scenarios that
hand out credentials). Authorization-code scenarios: `--login` with BROWSER set to
fixtures/oauth/browser.py (fetches the authorization URL, follows the redirect to the loopback
callback), and `--oauth-client-metadata-url` (used where the authorization server supports client
ID metadata documents). Client credentials: `--oauth-client-id` / `--oauth-client-secret '${VAR}'`;
a pre-registered confidential client: the same with `--oauth-grant authorization-code`.
Client credentials with a private key (`private_key_jwt`): `--oauth-client-key '${VAR}'`.
Enterprise-managed OAuth (SEP-990): `--oauth-id-token '${VAR}'` with the identity provider's token
endpoint and client id, and the MCP client's id and secret (the authorization server is read from
the resource's metadata: the suite names no issuer).
Scenarios that need a real `tools/call` (CALLS) lock the server first (`mcplock add --yes
--policy none` in a temporary project, with the same options) and then call its first tool with
`mcplock call SERVER/TOOL --args … --login`, arguments made from the locked input schema (with
`--answer-defaults` where the server asks a question during the call and expects its defaults).
Each run gets its own token store (a temporary MCPLOCK_CONFIG_DIR) and XDG directories: run by
hand, it leaves nothing in the home directory."""

import json
import os
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MCPLOCK = str(Path(sys.executable).parent / "mcplock")
CIMD_URL = "https://conformance-test.local/client-metadata.json"  # what auth/basic-cimd expects
CALLS = {
    "tools_call",
    "auth/scope-step-up",
    "sse-retry",
    "elicitation-sep1034-client-defaults",
    "json-schema-2020-12-preservation",
    "sep-2322-client-request-state",
    "http-custom-headers",
    "http-invalid-tool-headers",
}
# scenarios that want every locked tool called (each in its own `mcplock call`); in
# http-invalid-tool-headers mcplock must refuse (exit 1) exactly the tools with invalid x-mcp-header
EVERY_TOOL = {"sep-2322-client-request-state", "http-invalid-tool-headers"}
# scenarios that want one tool's input schema, as the client holds it, sent back through another
# tool: (the echo tool, the tool whose schema it gets). Here: the schema as the lock holds it.
ECHO = {"json-schema-2020-12-preservation": ("json_schema_echo", "json_schema_2020_12_tool")}
ANSWER_DEFAULTS = {"elicitation-sep1034-client-defaults", "sep-2322-client-request-state"}
SAMPLE = {"number": 1, "integer": 1, "string": "x", "boolean": True, "array": [], "object": {}}


def _arguments(schema: dict) -> dict:
    """Arguments that satisfy the required properties of a tool's input schema."""
    props = schema.get("properties") or {}
    return {k: SAMPLE.get((props.get(k) or {}).get("type"), "x") for k in schema.get("required") or []}


def _call(
    args: list[str], env: dict, project: Path, extra: list[str], scenario: str, ctx: dict
) -> subprocess.CompletedProcess:
    """`mcplock add` then `mcplock call` on the first locked tool (the probe options of `args` for both),
    on the echo tool of an ECHO scenario with the locked schema it asks for, on the calls the
    suite's context names (`toolCalls`), or on every tool (EVERY_TOOL)."""
    url, oauth = args[2], args[7:]
    r = subprocess.run(
        [MCPLOCK, "add", "srv", url, "--yes", "--policy", "none", "--timeout", "20", *oauth],
        env=env,
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
    )
    if r.returncode != 0:
        return r
    tools = tomllib.loads((project / "mcp.lock").read_text())["server"]["srv"]["tool"]
    if scenario in ECHO:
        name, focal = ECHO[scenario]
        calls = [(name, {"schema": json.loads(tools[focal]["input-schema"])})]
    elif ctx.get("toolCalls"):
        # a null argument is left out, as "not provided": the locked schema (a boolean) does not
        # take null, and mcplock validates arguments against it before anything is sent
        calls = [
            (c["name"], {k: v for k, v in (c.get("arguments") or {}).items() if v is not None})
            for c in ctx["toolCalls"]
        ]
    else:
        names = list(tools) if scenario in EVERY_TOOL else list(tools)[:1]
        calls = [(n, _arguments(json.loads(tools[n].get("input-schema") or "{}"))) for n in names]
    out = None
    procs = [
        (
            name,
            subprocess.Popen(
                [MCPLOCK, "call", f"srv/{name}", "--args", json.dumps(arguments), "--timeout", "20", "--login", *extra],
                env=env,
                cwd=project,
                text=True,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            ),
        )
        for name, arguments in calls
    ]  # at once: each is its own connection (and isolated)
    for name, p in procs:
        stdout, stderr = p.communicate(timeout=60)
        r = subprocess.CompletedProcess(p.args, p.returncode, stdout, stderr)
        if scenario == "http-invalid-tool-headers":  # refused: exactly the tools with invalid annotations
            want = 0 if name == "valid_tool" else 1
            if r.returncode != want or (want and "x-mcp-header" not in r.stderr):
                return r
            r = subprocess.CompletedProcess(r.args, 0, r.stdout, r.stderr)
        if out is None or r.returncode != 0:
            out = r
    return out


def main() -> int:
    url = sys.argv[-1]
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    ctx = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    with tempfile.TemporaryDirectory() as tmp:
        browser = Path(tmp) / "browser"
        browser.write_text(f'#!/bin/sh\nexec {sys.executable} {ROOT / "fixtures/oauth/browser.py"} "$@"\n')
        browser.chmod(0o755)
        env = {**os.environ, "MCPLOCK_CONFIG_DIR": str(Path(tmp) / "cfg"), "BROWSER": str(browser), "NO_COLOR": "1"}
        # run by hand (not under pytest's isolated home), trust records and caches stay in tmp too
        env.update(
            {
                var: str(Path(tmp) / var.lower())
                for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME")
            }
        )
        args = [MCPLOCK, "inspect", url, "--format", "json", "--timeout", "20"]
        if ctx.get("idp_id_token"):  # enterprise-managed OAuth (SEP-990): the ID token and secret through variables
            env["CONFORMANCE_ID_TOKEN"] = ctx["idp_id_token"]
            env["CONFORMANCE_CLIENT_SECRET"] = ctx["client_secret"]
            args += [
                "--oauth-id-token",
                "${CONFORMANCE_ID_TOKEN}",
                "--oauth-idp-token-endpoint",
                ctx["idp_token_endpoint"],
                "--oauth-idp-client-id",
                ctx["idp_client_id"],
                "--oauth-client-id",
                ctx["client_id"],
                "--oauth-client-secret",
                "${CONFORMANCE_CLIENT_SECRET}",
            ]
        elif ctx.get("private_key_pem"):  # private_key_jwt: the key through a variable too
            env["CONFORMANCE_CLIENT_KEY"] = ctx["private_key_pem"]
            args += ["--oauth-client-id", ctx["client_id"], "--oauth-client-key", "${CONFORMANCE_CLIENT_KEY}"]
            if ctx.get("signing_algorithm"):
                args += ["--oauth-signing-alg", ctx["signing_algorithm"]]
        elif ctx.get("client_secret"):  # the secret goes through a variable, as in real use
            env["CONFORMANCE_CLIENT_SECRET"] = ctx["client_secret"]
            args += ["--oauth-client-id", ctx["client_id"], "--oauth-client-secret", "${CONFORMANCE_CLIENT_SECRET}"]
            if "client-credentials" not in scenario:  # a confidential client in the authorization-code flow
                args += ["--oauth-grant", "authorization-code", "--login"]
        elif ctx.get("client_id"):
            args += ["--oauth-client-id", ctx["client_id"], "--login"]
        elif scenario.startswith("auth/"):
            # like the suite's reference client: a client ID metadata document URL, used where the
            # authorization server supports CIMD (else dynamic registration)
            args += ["--oauth-client-metadata-url", CIMD_URL, "--login"]
        if scenario in CALLS:
            project = Path(tmp) / "project"
            project.mkdir()
            r = _call(args, env, project, ["--answer-defaults"] if scenario in ANSWER_DEFAULTS else [], scenario, ctx)
        else:
            r = subprocess.run(args, env=env, capture_output=True, text=True, timeout=60)
        sys.stderr.write(r.stderr)
        sys.stdout.write(r.stdout[:2000])
        return r.returncode


if __name__ == "__main__":
    sys.exit(main())
