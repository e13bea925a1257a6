"""Package pins without the network: the lock's `package` table, what list/show/check say,
the OCI digest rules (with a recorded `docker` reply: no daemon here), and the launch rewrite."""

from __future__ import annotations

from dataclasses import replace

import pytest

from mcplock.lock import review, store
from mcplock.lock.model import Lock, ServerEntry
from mcplock.lock.read import load, loads
from mcplock.lock.spec import ServerSpec
from mcplock.lock.write import dumps
from mcplock.packages import prepare
from mcplock.packages.errors import IntegrityError, RegistryError
from mcplock.packages.pin import PackagePin
from mcplock.packages.registries import digest_of

from lockdata import snapshot

NPM_INTEGRITY = "sha512-" + "A" * 86 + "=="
DIGEST = "sha256:" + "0123456789abcdef" * 4
PYPI = ("sha256:" + "a" * 64, "sha256:" + "b" * 64)


def write_lock(path="mcp.lock", **servers: tuple[str, list[str], PackagePin | None]) -> None:
    lock = Lock()
    for name, (command, args, pin) in servers.items():
        srv = ServerEntry(
            name=name, spec=ServerSpec(name, transport="stdio", command=command, args=tuple(args), package=pin)
        )
        review.stage(srv, snapshot())
        for e in list(srv.entries()):
            review.accept(srv, e)
        lock.servers[name] = srv
    store.save(lock, path)


@pytest.mark.parametrize(
    "pin",
    [
        PackagePin("npm", "@scope/pkg", "1.2.3", NPM_INTEGRITY, "sha256:" + "c" * 64),
        PackagePin("pypi", "mcp-server-time", "2026.10.19", PYPI),
        PackagePin("pypi", "one-file", "1.0", PYPI[0]),
        PackagePin("oci", "mcp/time", "latest", DIGEST),
        PackagePin("npm", "no-integrity", "1.0.0"),
    ],
)
def test_package_table_round_trips(pin):
    spec = ServerSpec("s", transport="stdio", command="npx", args=("-y", "x"), package=pin)
    lock = Lock(servers={"s": ServerEntry(name="s", spec=spec)})
    text = dumps(lock)
    assert "[server.s.package]" in text
    again = loads(text)
    assert again.servers["s"].spec.package == pin
    assert dumps(again) == text


def test_the_pin_is_part_of_the_launch_spec():
    pin = PackagePin("npm", "x", "1.0.0", NPM_INTEGRITY)
    a = ServerEntry(name="s", spec=ServerSpec("s", transport="stdio", command="npx", args=("-y", "x"), package=pin))
    b = replace(a.spec, package=replace(pin, version="1.0.1"))
    assert a.as_locked().stored()["package"]["version"] == "1.0.0"
    assert a.as_locked().stored() != b.stored()
    assert "package" not in replace(a.spec, package=None).stored()


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('integrity = "sha512-short"', "is not an npm `sha512-…` integrity"),
        ('registry = "cargo"', "`registry` in [server.s.package] must be one of npm, pypi, oci, mcpb"),
        ('colour = "red"', "unknown key `colour` in [server.s.package]"),
        ('tree-integrity = "md5:x"', "`tree-integrity` in [server.s.package] is not a `sha256:`"),
    ],
)
def test_a_bad_hand_edit_is_an_input_error_with_its_line(cli, line, message):
    write_lock(s=("npx", ["-y", "x"], PackagePin("npm", "x", "1.0.0", NPM_INTEGRITY)))
    from pathlib import Path

    text = Path("mcp.lock").read_text()
    key = line.split(" = ")[0]
    lines = [ln for ln in text.splitlines() if not ln.startswith(f"{key} = ")]
    at = lines.index("[server.s.package]") + 1
    lines.insert(at, line)
    Path("mcp.lock").write_text("\n".join(lines) + "\n")
    r = cli("check")
    assert r.returncode == 2, r.stderr
    assert message in r.stderr
    assert f"mcp.lock:{at}:" in r.stderr or f"mcp.lock:{at + 1}:" in r.stderr


def test_list_and_show_say_each_servers_pin(cli):
    write_lock(
        memory=(
            "npx",
            ["-y", "@modelcontextprotocol/server-memory"],
            PackagePin("npm", "@modelcontextprotocol/server-memory", "2026.8.31", NPM_INTEGRITY),
        ),
        local=("node", ["./server.js"], None),
        loose=("uvx", ["mcp-server-time"], None),
    )
    r = cli("list")
    assert r.returncode == 0, r.stderr
    assert "memory  npm @modelcontextprotocol/server-memory@2026.8.31  sha512-AAAA" in r.stdout
    assert "local   no registry pin (local command)" in r.stdout
    assert "loose   not pinned: runs pypi package mcp-server-time unpinned (run `mcplock update` to pin it)" in r.stdout
    r = cli("show", "memory")
    assert f"integrity: {NPM_INTEGRITY}" in r.stdout
    r = cli("show", "local")
    assert "package: no registry pin (local command)" in r.stdout
    r = cli("list", "--format", "json")
    import json

    servers = {s["name"]: s for s in json.loads(r.stdout)["servers"]}
    assert servers["memory"]["package"] == {
        "registry": "npm",
        "name": "@modelcontextprotocol/server-memory",
        "version": "2026.8.31",
        "integrity": NPM_INTEGRITY,
    }
    assert servers["local"]["package"] is None


def test_check_flags_a_pin_with_no_integrity(cli):
    write_lock(s=("npx", ["-y", "x"], PackagePin("npm", "x", "1.0.0", NPM_INTEGRITY)))
    assert cli("check").returncode == 0
    write_lock(s=("npx", ["-y", "x"], PackagePin("npm", "x", "1.0.0")))
    r = cli("check")
    assert r.returncode == 1
    assert "pins npm package x@1.0.0 without an integrity" in r.stdout + r.stderr
    assert "mcplock update s" in r.stdout + r.stderr
    r = cli("check", "--format", "sarif")
    assert "check/pin-no-integrity" in r.stdout


# --- OCI: the digest rules, with recorded `docker` replies ---------------------------------------

# `docker buildx imagetools inspect mcp/time:latest --format '{{json .Manifest}}'`, recorded
IMAGETOOLS_REPLY = (
    '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json",'
    f'"digest":"{DIGEST}","size":1609,"manifests":[]}}'
)
# `docker manifest inspect -v mcp/time:latest` of a multi-platform image, recorded (trimmed)
MANIFEST_REPLY = f"""[
 {{"Ref": "docker.io/mcp/time:latest@sha256:{"1" * 64}",
   "Descriptor": {{"mediaType": "application/vnd.oci.image.manifest.v1+json", "digest": "sha256:{"1" * 64}",
                  "size": 1234, "platform": {{"architecture": "arm64", "os": "linux"}}}}}},
 {{"Ref": "docker.io/mcp/time:latest@sha256:{"2" * 64}",
   "Descriptor": {{"mediaType": "application/vnd.oci.image.manifest.v1+json", "digest": "sha256:{"2" * 64}",
                  "size": 1234, "platform": {{"architecture": "amd64", "os": "linux"}}}}}}
]"""


def test_oci_digest_from_recorded_docker_replies():
    assert digest_of(IMAGETOOLS_REPLY) == DIGEST
    assert digest_of(MANIFEST_REPLY) == "sha256:" + "2" * 64
    with pytest.raises(RegistryError, match="no manifest"):
        digest_of("Error response from daemon: Cannot connect to the Docker daemon")
    with pytest.raises(RegistryError, match="no sha256 digest"):
        digest_of('{"digest": "md5:abc"}')
    with pytest.raises(RegistryError, match="no sha256 digest"):  # a list of what is no manifest: no traceback
        digest_of('[3, "x"]')


def _docker_spec(*args: str, pin: PackagePin | None) -> ServerSpec:
    return ServerSpec(name="time", transport="stdio", command="docker", args=args, package=pin)


def test_oci_runs_the_pinned_digest_whatever_tag_the_command_names():
    pin = PackagePin("oci", "mcp/time", "latest", DIGEST)
    got = prepare(_docker_spec("run", "-i", "--rm", "-e", "TZ", "mcp/time:latest", "--local-timezone", "UTC", pin=pin))
    assert got.args == ("run", "-i", "--rm", "-e", "TZ", f"mcp/time@{DIGEST}", "--local-timezone", "UTC")
    assert prepare(_docker_spec("run", "-i", "mcp/time", pin=pin)).args == ("run", "-i", f"mcp/time@{DIGEST}")


def test_oci_digest_on_the_command_line_must_be_the_pinned_one():
    other = "sha256:" + "f" * 64
    with pytest.raises(IntegrityError) as e:
        prepare(_docker_spec("run", "-i", f"mcp/time@{other}", pin=PackagePin("oci", "mcp/time", "latest", DIGEST)))
    assert DIGEST in e.value.message and other in e.value.message
    assert e.value.exit_code == 2
    assert "mcplock update time" in (e.value.hint or "")


def test_a_command_that_no_longer_runs_the_pinned_package_is_refused():
    pin = PackagePin("npm", "@scope/pkg", "1.0.0", NPM_INTEGRITY)
    spec = ServerSpec(name="s", transport="stdio", command="npx", args=("-y", "@scope/other"), package=pin)
    with pytest.raises(IntegrityError, match="pins npm package @scope/pkg, but its command runs npm package @scope/ot"):
        prepare(spec)
    with pytest.raises(IntegrityError, match="no registry pin"):
        prepare(replace(spec, command="node", args=("server.js",)))
    with pytest.raises(IntegrityError, match="has no integrity"):
        prepare(replace(spec, args=("-y", "@scope/pkg"), package=replace(pin, integrity=None)))


def test_a_spec_without_a_pin_runs_as_written():
    spec = ServerSpec(name="s", transport="stdio", command="npx", args=("-y", "x"))
    assert prepare(spec) is spec


def test_load_reads_what_store_wrote(tmp_path):
    pin = PackagePin("pypi", "mcp-server-time", "1", PYPI)
    write_lock(str(tmp_path / "mcp.lock"), s=("uvx", ["mcp-server-time"], pin))
    assert load(tmp_path / "mcp.lock").servers["s"].spec.package.integrity == PYPI
