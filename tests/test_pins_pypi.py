"""PyPI pins against a local index (fixtures/pypi_index.py: PyPI's JSON API and the simple API
with upload times), with real pip installs: a pin installs the same dependency tree on every
machine and over time, as of the pinned release's upload (uv's ``--exclude-newer``), and a
tree that still differs is refused. Each install method of mcplock: tests/test_install_methods.py."""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path

import pytest
from pypi_index import DEMO, DEP_1_0, DEP_1_1, PypiIndex

from mcplock.lock.spec import ServerSpec
from mcplock.packages.pin import PackagePin
from mcplock.packages.registries import pypi_uploaded

pytestmark = pytest.mark.timeout(300)


@pytest.fixture
def index():
    with PypiIndex() as ix:
        ix.publish(*DEP_1_0, uploaded="2025-01-10T08:00:00.000000Z")
        ix.publish(*DEMO, uploaded="2025-02-01T12:00:00.000000Z")
        yield ix


def pin_of(name: str = "demo") -> dict:
    return tomllib.loads(Path("mcp.lock").read_text())["server"][name]["package"]


def installed(cache: Path) -> list[str]:
    """The dependency versions installed in the cache's PyPI entries (their dist-info names)."""
    return sorted(p.name for p in cache.glob("packages/pypi/*/venv/lib/python*/site-packages/pin_dep-*.dist-info"))


def test_a_fresh_machine_installs_the_tree_the_pin_was_made_with(cli, index, tmp_path):
    env = {"MCPLOCK_PYPI_URL": index.url, "MCPLOCK_CACHE_DIR": str(tmp_path / "mine")}
    r = cli("add", "demo", "--yes", "--", "uvx", "pin-demo==1.0", env=env, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    tree = pin_of()["tree-integrity"]
    assert installed(tmp_path / "mine") == ["pin_dep-1.0.dist-info"]

    # a month later pin-dep 1.1 is released; a teammate's machine (or CI) has no cache at all
    index.publish(*DEP_1_1, uploaded="2025-03-01T09:30:00.000000Z")
    fresh = {**env, "MCPLOCK_CACHE_DIR": str(tmp_path / "teammate")}
    r = cli("diff", "--format", "json", env=fresh, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert json.loads(r.stdout)["servers"][0]["status"] == "ok"
    assert installed(tmp_path / "teammate") == ["pin_dep-1.0.dist-info"]  # not the newer release
    entry = next((tmp_path / "teammate" / "packages" / "pypi").glob("*/.mcplock.json"))
    assert json.loads(entry.read_text())["tree-integrity"] == tree
    assert pin_of()["tree-integrity"] == tree  # nothing to re-pin

    # pinning the same release again today gives the same tree too
    Path("mcp.lock").unlink()
    r = cli(
        "add",
        "demo",
        "--yes",
        "--",
        "uvx",
        "pin-demo==1.0",
        env={**env, "MCPLOCK_CACHE_DIR": str(tmp_path / "c")},
        timeout=300,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert pin_of()["tree-integrity"] == tree


def test_a_tree_that_still_differs_is_refused(cli, index, tmp_path):
    env = {"MCPLOCK_PYPI_URL": index.url, "MCPLOCK_CACHE_DIR": str(tmp_path / "mine")}
    assert cli("add", "demo", "--yes", "--", "uvx", "pin-demo==1.0", env=env, timeout=300).returncode == 0
    tree = pin_of()["tree-integrity"]
    # an index that lies: a "new" dependency release dated before the pinned one
    index.publish(*DEP_1_1, uploaded="2025-01-20T00:00:00.000000Z")
    r = cli("diff", env={**env, "MCPLOCK_CACHE_DIR": str(tmp_path / "fresh")}, timeout=300)
    assert r.returncode == 2, r.stdout + r.stderr
    err = " ".join(r.stderr.split())
    assert "the dependency tree of pin-demo==1.0" in err and tree in err and "nothing was started" in err
    assert "mcplock update demo" in err
    assert installed(tmp_path / "fresh") == []

    # the hint works: `update NAME` pins the (up-to-date) release afresh, with the tree it resolves now
    fresh = {**env, "MCPLOCK_CACHE_DIR": str(tmp_path / "fresh")}
    r = cli("update", "demo", env=fresh, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "pin-demo 1.0 pinned afresh" in r.stdout
    assert pin_of()["version"] == "1.0" and pin_of()["tree-integrity"] != tree
    assert cli("diff", env=fresh, timeout=300).returncode == 0
    assert installed(tmp_path / "fresh") == ["pin_dep-1.1.dist-info"]


def test_the_cutoff_is_the_latest_upload_among_the_pinned_files(index):
    env = {"MCPLOCK_PYPI_URL": index.url}
    sdist = index.publish(
        "pin-demo", "pin_demo-1.0.tar.gz", b"sdist", uploaded="2025-01-31T23:00:00.000000Z", version="1.0"
    )
    wheel_sha = next(
        f"sha256:{f['sha256']}" for f in index.projects["pin-demo"]["releases"]["1.0"] if f["filename"].endswith(".whl")
    )
    # the wheel was uploaded an hour after the sdist: the tree is as of the later one
    assert pypi_uploaded("pin-demo", "1.0", (sdist, wheel_sha), env) == "2025-02-01T12:00:00.000000Z"
    # a file added to the release after the pin was made does not move the pin's cutoff
    late = index.publish(
        "pin-demo", "pin_demo-1.0-py3-none-win32.whl", b"late", uploaded="2025-06-01T00:00:00Z", version="1.0"
    )
    assert pypi_uploaded("pin-demo", "1.0", (sdist, wheel_sha), env) == "2025-02-01T12:00:00.000000Z"
    assert pypi_uploaded("pin-demo", "1.0", (sdist, wheel_sha, late), env) == "2025-06-01T00:00:00Z"


def test_an_index_without_upload_times_resolves_todays_tree(tmp_path):
    from mcplock.packages import pin_spec

    with PypiIndex(upload_times=False) as ix:
        ix.publish(*DEP_1_0, uploaded="2025-01-10T08:00:00Z")
        ix.publish(*DEMO, uploaded="2025-02-01T12:00:00Z")
        ix.publish(*DEP_1_1, uploaded="2025-03-01T09:30:00Z")
        env = {
            "MCPLOCK_PYPI_URL": ix.url,
            "MCPLOCK_CACHE_DIR": str(tmp_path / "c"),
            "PATH": os.environ["PATH"],
            "XDG_DATA_HOME": os.environ["XDG_DATA_HOME"],
        }  # the machine key's place
        got = pin_spec(ServerSpec(name="demo", transport="stdio", command="uvx", args=("pin-demo==1.0",)), env)
    assert isinstance(got.package, PackagePin) and got.package.tree_integrity is not None
    assert installed(tmp_path / "c") == ["pin_dep-1.1.dist-info"]  # no cutoff possible: today's tree


def test_a_pip_or_uv_configuration_adds_no_source_to_the_tree(cli, index, tmp_path):
    """A teammate's pip.conf or uv.toml (or UV_* variables) with find-links, an extra index and
    constraints: the tree still comes from the index mcplock names only (local find-links files
    would even escape the cutoff)."""
    env = {"MCPLOCK_PYPI_URL": index.url, "MCPLOCK_CACHE_DIR": str(tmp_path / "mine")}
    assert cli("add", "demo", "--yes", "--", "uvx", "pin-demo==1.0", env=env, timeout=300).returncode == 0
    tree = pin_of()["tree-integrity"]
    links = tmp_path / "links"
    links.mkdir()
    (links / DEP_1_1[1]).write_bytes(DEP_1_1[2])
    (tmp_path / "constraints.txt").write_text("pin-dep==1.1\n")
    (tmp_path / "pip.conf").write_text(
        f"[global]\nfind-links = {links}\nextra-index-url = http://127.0.0.1:9/simple\n"
        f"constraint = {tmp_path / 'constraints.txt'}\n"
    )
    (tmp_path / "uv.toml").write_text(f'find-links = ["{links}"]\nconstraint-dependencies = ["pin-dep==1.1"]\n')
    r = cli(
        "diff",
        env={
            **env,
            "MCPLOCK_CACHE_DIR": str(tmp_path / "teammate"),
            "PIP_CONFIG_FILE": str(tmp_path / "pip.conf"),
            "UV_CONFIG_FILE": str(tmp_path / "uv.toml"),
            "UV_FIND_LINKS": str(links),
            "UV_CONSTRAINT": str(tmp_path / "constraints.txt"),
            "UV_INDEX_URL": "http://127.0.0.1:9/simple",
            "UV_EXTRA_INDEX_URL": "http://127.0.0.1:9/simple",
        },
        timeout=300,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert installed(tmp_path / "teammate") == ["pin_dep-1.0.dist-info"]
    entry = next((tmp_path / "teammate" / "packages" / "pypi").glob("*/.mcplock.json"))
    assert json.loads(entry.read_text())["tree-integrity"] == tree


def test_update_runs_only_what_is_trusted_and_trusts_what_it_moved(cli, index, tmp_path):
    """`update` probes the new release: a lock nobody trusted here runs nothing; once trusted,
    the pin it moves is trusted with it (the next `diff` asks nothing)."""
    env = {"MCPLOCK_PYPI_URL": index.url, "MCPLOCK_CACHE_DIR": str(tmp_path / "mine")}
    assert cli("add", "demo", "--yes", "--", "uvx", "pin-demo==1.0", env=env, timeout=300).returncode == 0
    clone = tmp_path / "clone"  # the same lock, pulled into another project
    clone.mkdir()
    (clone / "mcp.lock").write_text(Path("mcp.lock").read_text())
    there = {**env, "MCPLOCK_CACHE_DIR": str(tmp_path / "clone-cache"), "CI": ""}
    r = cli("update", "demo", env=there, cwd=str(clone), timeout=300)
    assert r.returncode == 2, r.stdout + r.stderr
    assert "mcplock trust demo" in r.stderr and "nothing ran" in r.stderr
    assert not (tmp_path / "clone-cache").exists()
    assert cli("trust", "demo", env=there, cwd=str(clone)).returncode == 0
    r = cli("update", "demo", env=there, cwd=str(clone), timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    r = cli("diff", env=there, cwd=str(clone), timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr


def test_a_version_specifier_resolves_to_the_highest_matching_release_with_uv(index, tmp_path):
    from mcplock.packages.errors import RegistryError
    from mcplock.packages.uv_tool import pick_version

    env = {"MCPLOCK_PYPI_URL": index.url, "MCPLOCK_CACHE_DIR": str(tmp_path / "c"), "PATH": os.environ["PATH"]}
    index.publish(*DEP_1_1, uploaded="2025-03-01T09:30:00.000000Z")
    assert pick_version("pin-dep", ">=1.0", env) == "1.1"
    assert pick_version("pin-dep", "<1.1", env) == "1.0"
    with pytest.raises(RegistryError, match="no release of PyPI package pin-dep matches >=2"):
        pick_version("pin-dep", ">=2", env)


def test_uv_keeps_how_to_connect_and_drops_where_packages_come_from(tmp_path):
    from mcplock.packages.cache import cache_root
    from mcplock.packages.uv_tool import uv_env

    given = {
        "UV_NATIVE_TLS": "1",
        "UV_HTTP_TIMEOUT": "90",
        "UV_INDEX_URL": "http://elsewhere/simple",
        "UV_FIND_LINKS": "/tmp/x",
        "UV_CONSTRAINT": "c.txt",
        "PIP_INDEX_URL": "http://elsewhere/simple",
        "PATH": "/bin",
        "MCPLOCK_CACHE_DIR": str(tmp_path),
    }
    env = uv_env(given)
    assert env["UV_NATIVE_TLS"] == "1" and env["UV_HTTP_TIMEOUT"] == "90" and env["PATH"] == "/bin"
    assert not {"UV_INDEX_URL", "UV_FIND_LINKS", "UV_CONSTRAINT", "PIP_INDEX_URL"} & set(env)
    assert env["UV_CACHE_DIR"] == str(cache_root(given) / "uv-cache")  # inside mcplock's cache
