"""Pure parts of the MCP Registry support: server.json (2025-12-11) -> launch, look-alike package
names, the lock's `[server.NAME.registry]` table."""

from __future__ import annotations

import pytest

from mcplock.lint.finding import RULES
from mcplock.lint.packages import lookalike, named_package, one_edit
from mcplock.lock.read import loads
from mcplock.lock.write import dumps
from mcplock.packages.server_json import EntryError, launch_of

from mcp_registry import npm_package, pypi_package, server_json


def test_a_pypi_package_with_arguments_and_variables_becomes_templates():
    pkg = pypi_package(
        "mcp-server-x",
        "1.2.0",
        runtimeArguments=[{"type": "named", "name": "--python", "value": "3.12"}],
        packageArguments=[
            {"type": "positional", "valueHint": "root_dir", "isRequired": True},
            {"type": "named", "name": "--region", "default": "eu"},
            {"type": "named", "name": "--verbose"},
            {"type": "named", "name": "--optional", "valueHint": "x"},
            {
                "type": "named",
                "name": "--url",
                "value": "https://{host}/api",
                "variables": {"host": {"isRequired": True}},
            },
        ],
        environmentVariables=[
            {"name": "API_KEY", "isRequired": True, "isSecret": True},
            {"name": "LOG_LEVEL", "default": "info"},
            {"name": "TOKEN", "isSecret": True, "default": "not-a-default-for-secrets"},
            {"name": "EXTRA"},
        ],
    )
    got = launch_of(server_json("io.github.o/x", "1.2.0", packages=[pkg]))
    assert (got.command, got.args) == (
        "uvx",
        [
            "--python",
            "3.12",
            "mcp-server-x==1.2.0",
            "${ROOT_DIR}",
            "--region",
            "${REGION:-eu}",
            "--verbose",
            "--url",
            "https://${HOST}/api",
        ],
    )
    assert got.env == {"API_KEY": "${API_KEY}", "LOG_LEVEL": "${LOG_LEVEL:-info}", "TOKEN": "${TOKEN}"}
    assert got.pass_env == ["EXTRA"]  # optional, no default: passed on as it is when set
    assert got.required == ["ROOT_DIR", "HOST", "API_KEY"]


def test_npm_oci_and_remote_entries():
    npm = launch_of(server_json("io.github.o/n", "1.0.0", packages=[npm_package("@o/n", "1.0.0")]))
    assert (npm.command, npm.args) == ("npx", ["-y", "@o/n@1.0.0"])
    oci = launch_of(
        server_json(
            "io.github.o/i",
            "1.0.0",
            packages=[
                {
                    "registryType": "oci",
                    "identifier": "docker.io/o/image:1.0.0",
                    "transport": {"type": "stdio"},
                    "environmentVariables": [{"name": "K", "isRequired": True}],
                }
            ],
        )
    )
    assert (oci.command, oci.args, oci.version) == ("docker", ["run", "-i", "--rm", "docker.io/o/image:1.0.0"], "1.0.0")
    remote = launch_of(server_json("com.o/r", "1.0.0", remotes=[{"type": "sse", "url": "https://o.com/{tenant}/sse"}]))
    assert (remote.transport, remote.url) == ("sse", "https://o.com/${TENANT}/sse")
    for url in (
        "https://{tenant}.o.com/sse",
        "https://o.com/sse?key={api_key}",
        "https://o.com/sse?k=${GITHUB_TOKEN}",
        "https://u:{pw}@o.com/sse",
    ):  # a template in the host or the query: refused (round 4)
        with pytest.raises(EntryError, match=r"has a template in its (host|query)"):
            launch_of(server_json("com.o/r", "1.0.0", remotes=[{"type": "sse", "url": url}]))
    # the first package mcplock can pin wins; an MCPB-only entry is refused with the reason
    mixed = launch_of(
        server_json(
            "io.github.o/m",
            "1.0.0",
            packages=[
                {"registryType": "mcpb", "identifier": "https://x/y.mcpb", "transport": {"type": "stdio"}},
                npm_package("@o/m", "1.0.0"),
            ],
        )
    )
    assert mixed.registry_type == "npm"
    with pytest.raises(EntryError, match=r"no npm, PyPI, OCI or MCPB package .* no remote .its .*: nuget"):
        launch_of(
            server_json(
                "io.github.o/b",
                "1.0.0",
                packages=[
                    {"registryType": "nuget", "identifier": "O.B", "version": "1.0.0", "transport": {"type": "stdio"}}
                ],
            )
        )
    with pytest.raises(EntryError, match=r"its MCPB package needs an http.s. URL and its fileSha256"):
        launch_of(
            server_json(
                "io.github.o/b",
                "1.0.0",
                packages=[{"registryType": "mcpb", "identifier": "https://x/y.mcpb", "transport": {"type": "stdio"}}],
            )
        )
    bundle = launch_of(
        server_json(
            "io.github.o/b",
            "1.0.0",
            packages=[
                {
                    "registryType": "mcpb",
                    "identifier": "https://x/y.mcpb",
                    "fileSha256": "ab" * 32,
                    "transport": {"type": "stdio"},
                }
            ],
        )
    )
    assert (bundle.command, bundle.args, bundle.file_sha256) == ("mcpb", ["https://x/y.mcpb"], "ab" * 32)
    with pytest.raises(EntryError, match="runtime hint `bash`"):
        launch_of(server_json("io.github.o/s", "1.0.0", packages=[npm_package("@o/s", "1.0.0", runtimeHint="bash")]))


@pytest.mark.parametrize(
    ("registry", "name", "like"),
    [
        ("npm", "@modeicontextprotocol/server-memory", "@modelcontextprotocol/server-memory"),
        ("npm", "@modeIcontextprotocol/server-memory", "@modelcontextprotocol/server-memory"),
        ("npm", "@modelcontextprotoco1/server-filesystem", "@modelcontextprotocol/server-filesystem"),
        ("npm", "@modelcontextprotocol-/anything", "@modelcontextprotocol/anything"),
        ("npm", "@playwrigth/mcp", "@playwright/mcp"),
        ("pypi", "mcp-server-tirne", "mcp-server-time"),  # rn reads as m
        ("pypi", "mcp-server-t\u0456me", "mcp-server-time"),  # a Cyrillic і
        ("oci", "mcp/tirne", "mcp/time"),
    ],
)
def test_lookalikes_are_named(registry, name, like):
    found = lookalike(registry, name)
    assert found is not None and found.severity == "high" and found.rule == "lookalike-package" in RULES
    assert f"looks like `{like}`" in found.message


@pytest.mark.parametrize(
    ("registry", "name"),
    [
        ("npm", "@modelcontextprotocol/server-memory"),
        ("npm", "@modelcontextprotocol/server-new-thing"),
        ("npm", "left-pad"),
        ("npm", "@acme/server"),
        ("pypi", "mcp-server-time"),
        ("pypi", "requests"),
        ("pypi", "mcpx"),
        ("oci", "mcp/time"),
    ],
)
def test_the_real_names_and_strangers_are_not(registry, name):
    assert lookalike(registry, name) is None


def test_the_registry_entrys_namespace_is_a_reference_too():
    assert lookalike("npm", "@acrne/server", "io.github.acme/server") is not None
    assert lookalike("npm", "@acme/server", "io.github.acme/server") is None
    assert one_edit("abc", "acb") and one_edit("abc", "abcd") and not one_edit("abc", "abc")
    assert named_package("npx", ["-y", "@modeIcontextprotocol/server-memory@1"]) == (
        "npm",
        "@modeIcontextprotocol/server-memory",
    )
    assert named_package("uvx", ["--from", "Mcp-Server-Tirne==1", "x"]) == ("pypi", "Mcp-Server-Tirne")
    assert named_package("node", ["server.js"]) is None


LOCK = """version = 1

[server.memory]
transport = "stdio"
command = "npx"
args = ["-y", "@modelcontextprotocol/server-memory@2026.7.4"]
policy = "all"

[server.memory.registry]
name = "io.github.modelcontextprotocol/server-memory"
version = "2026.7.4"
url = "https://registry.modelcontextprotocol.io"
repository = "https://github.com/modelcontextprotocol/servers"
"""


def test_the_registry_table_round_trips_and_bad_ones_are_refused():
    lock = loads(LOCK)
    ref = lock.servers["memory"].spec.registry
    assert ref is not None and ref.name == "io.github.modelcontextprotocol/server-memory" and ref.version == "2026.7.4"
    again = loads(dumps(lock))
    assert again.servers["memory"].spec.registry == ref
    assert "[server.memory.registry]" in dumps(lock)
    from mcplock.errors import LockfileError

    with pytest.raises(LockfileError, match=r"unknown key .*extra"):
        loads(LOCK + 'extra = "x"\n')
    with pytest.raises(LockfileError, match="missing `version`"):
        loads(LOCK.replace('version = "2026.7.4"\n', ""))


def test_an_image_claims_its_name_by_label():
    import json

    from mcplock.packages.claims import OCI_LABEL, image_claim

    one = {"config": {"Labels": {OCI_LABEL: "io.github.o/time", "other": "x"}}}
    assert image_claim(json.dumps(one)) == "io.github.o/time"
    per_platform = {"linux/amd64": one, "linux/arm64": {"config": {"Labels": {}}}}
    assert image_claim(json.dumps(per_platform)) == "io.github.o/time"
    assert image_claim(json.dumps({"config": {"Labels": None}})) is None
    assert image_claim("not json") is None


def test_show_names_the_registry_entry(cli, tmp_path):
    from pathlib import Path

    Path("mcp.lock").write_text(LOCK)
    r = cli("show", "memory")
    assert r.returncode == 0, r.stdout + r.stderr
    assert (
        "MCP Registry: io.github.modelcontextprotocol/server-memory 2026.7.4 (https://registry."
        "modelcontextprotocol.io), source https://github.com/modelcontextprotocol/servers"
    ) in r.stdout
