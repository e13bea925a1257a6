"""The organisation's managed policy (issue 43 item 4, docs/policy.md "The managed policy") through
the console script: always in force, never loosened by MCPLOCK_POLICY or --policy (per key: deny
lists unite, allow lists intersect, the strictest severity, a requiring boolean from any file); a
managed file that exists and cannot be read refuses every probe and launch; `add` and `init` obey
the policy before anything is downloaded or started — a server whose command touches a marker file
proves whether it was launched. The test-only MCPLOCK_MANAGED_POLICY_PATH points at the file."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from test_pins_offline import NPM_INTEGRITY, write_lock

from mcplock.packages.pin import PackagePin

from conftest import run_cli

MARKER_SERVER = "import pathlib, sys\npathlib.Path(sys.argv[1]).write_text('launched')\n"


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "server.py").write_text(MARKER_SERVER, encoding="utf-8")
    return tmp_path


def _marker_command(project: Path) -> list[str]:
    return [sys.executable, str(project / "server.py"), str(project / "launched")]


def _managed(project: Path, text: str) -> dict[str, str]:
    path = project / "managed" / "policy.toml"
    path.parent.mkdir(exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return {"MCPLOCK_MANAGED_POLICY_PATH": str(path)}


@pytest.mark.parametrize("where", ["managed", "environment"])
def test_add_obeys_the_policy_before_anything_starts(project, where):
    text = 'version = 1\n[servers]\nallow = ["npm:@modelcontextprotocol/*"]\n'
    env = _managed(project, text) if where == "managed" else {"MCPLOCK_POLICY": str(_policy(project, text))}
    r = run_cli("add", "marker", "--yes", "--timeout", "10", "--", *_marker_command(project), env=env)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "forbids" in r.stderr and "servers.allow" in r.stderr and "Nothing was downloaded or started" in r.stderr
    assert not (project / "launched").exists(), "the server ran"
    assert not (project / "mcp.lock").exists()


def test_init_obeys_the_policy_before_anything_starts(project):
    cmd = _marker_command(project)
    (project / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"marker": {"command": cmd[0], "args": cmd[1:]}}}), encoding="utf-8"
    )
    env = _managed(project, 'version = 1\n[packages]\nallow-registries = ["npm"]\n[servers]\nallow = ["npm:*"]\n')
    r = run_cli("init", "--yes", "--trust", env=env)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "servers.allow" in r.stderr and not (project / "launched").exists()


def _policy(project: Path, text: str, name: str = "policy.toml") -> Path:
    p = project / name
    p.write_text(text, encoding="utf-8")
    return p


@pytest.mark.parametrize(
    "broken",
    ["not toml [", "version = 2\n", "version = 1\n[tools]\ndenny = ['x']\n", "directory", "\xff\xfe binary", "link"],
)
def test_a_broken_managed_file_refuses_every_probe_and_launch(project, broken):
    path = project / "managed" / "policy.toml"
    path.parent.mkdir()
    if broken == "directory":
        path.mkdir()
    elif broken == "link":  # a link to nothing: the file is there, and cannot be read
        path.symlink_to(project / "nowhere.toml")
    else:
        path.write_bytes(broken.encode("latin-1"))
    env = {"MCPLOCK_MANAGED_POLICY_PATH": str(path), "CI": "true"}
    cmd = _marker_command(project)
    r = run_cli("add", "marker", "--yes", "--timeout", "10", "--", *cmd, env=env)
    assert r.returncode == 2, r.stdout + r.stderr
    assert "managed policy" in r.stderr and str(path) in r.stderr and "refuses to probe or launch" in r.stderr
    assert "Traceback" not in r.stderr
    write_lock(marker=(cmd[0], cmd[1:], None))
    for args in (["diff"], ["refresh"], ["run", "marker"], ["call", "marker/x"], ["check"]):
        r = run_cli(*args, env=env, input="")
        assert r.returncode == 2 and "managed policy" in r.stderr, (args, r.stdout, r.stderr)
    assert not (project / "launched").exists(), "a server ran under a broken managed policy"
    # fixed (here: removed), the same commands run again
    path.rmdir() if path.is_dir() and not path.is_symlink() else path.unlink()
    assert run_cli("diff", env=env).returncode != 2
    assert (project / "launched").exists()


def test_the_environment_and_the_flag_never_loosen_the_managed_policy(project):
    """Per key: a deny list in either file denies; both allow lists must allow; the strictest
    severity; require-pin from any file."""
    managed = 'version = 1\n[packages]\nrequire-pin = true\nallow-registries = ["npm"]\n'
    env = _managed(project, managed + '[servers]\nallow = ["npm:*", "pypi:*"]\n')
    loose = _policy(project, 'version = 1\n[packages]\nrequire-pin = false\nallow-registries = ["npm", "pypi"]\n')
    wide = _policy(project, 'version = 1\n[servers]\nallow = ["*"]\n', "wide.toml")
    env["MCPLOCK_POLICY"] = str(loose)
    write_lock(
        npm=(
            "npx",
            ["-y", "@modelcontextprotocol/server-memory"],
            PackagePin("npm", "@modelcontextprotocol/server-memory", "1.0.0", NPM_INTEGRITY),
        ),
        unpinned=("npx", ["-y", "@modelcontextprotocol/server-everything"], None),
        py=("uvx", ["mcp-server-time"], PackagePin("pypi", "mcp-server-time", "2026.10.19", "sha256:" + "a" * 64)),
        local=("node", ["server.js"], None),
    )
    r = run_cli("check", "--format", "json", "--policy", str(wide), env=env)
    assert r.returncode == 1, r.stdout + r.stderr
    found = {(f["code"], f["server"]) for f in json.loads(r.stdout)["findings"] if f["code"].startswith("policy/")}
    assert (
        "policy/packages.require-pin",
        "unpinned",
    ) in found  # managed requires; the environment's false adds nothing
    assert ("policy/packages.allow-registries", "py") in found  # allow lists intersect: npm only
    assert ("policy/servers.allow", "local") in found  # the flag's "*" does not widen the managed allow list
    assert ("policy/servers.allow", "npm") not in found and ("policy/packages.require-pin", "npm") not in found
    msgs = " ".join(f["message"] for f in json.loads(r.stdout)["findings"])
    assert "managed" in msgs  # each finding names the file its rule is in
    # the managed file named again (by the environment) is read once: no finding twice
    env["MCPLOCK_POLICY"] = env["MCPLOCK_MANAGED_POLICY_PATH"]
    again = json.loads(run_cli("check", "--format", "json", env=env).stdout)["findings"]
    keys = [(f["code"], f["server"]) for f in again]
    assert len(keys) == len(set(keys)) and ("policy/packages.require-pin", "unpinned") in keys


def test_add_yes_leaves_what_the_policy_forbids_pending(project):
    """`add --yes` accepts what the server offers except what the policy forbids: a denied tool is
    never enabled by the add (it stays pending, named with the rule), the others are accepted."""
    import shutil

    from runner import SURFACES, stdio_command

    shutil.copy(SURFACES / "demo.json", "surface.json")
    env = _managed(project, 'version = 1\n[tools]\ndeny = ["*delete*"]\n')
    cmd = stdio_command(mode="benign", surface="surface.json")
    r = run_cli("add", "docs", "--yes", "--timeout", "30", "--", *cmd, env=env)
    assert "left pending (the organisation's policy forbids it): docs/delete_page (tools.deny)" in r.stderr, r.stderr
    listed = json.loads(run_cli("list", "--format", "json", env=env).stdout)
    tools = {i["name"]: i for s in listed["servers"] for i in s["items"] if i["kind"] == "tool"}
    assert tools["search_docs"]["enabled"] and tools["search_docs"]["state"] == "accepted"
    assert not tools["delete_page"]["enabled"] and tools["delete_page"]["state"] == "pending new"
    r = run_cli("check", env=env)
    assert "delete_page is enabled" not in r.stdout  # nothing the policy denies was enabled


def test_the_managed_paths_of_each_system():
    from mcplock.trust.org_policy import system_managed_path

    assert system_managed_path("linux") == "/etc/mcplock/policy.toml"
    assert system_managed_path("darwin") == "/Library/Application Support/mcplock/policy.toml"
    win = system_managed_path("win32", {"ProgramData": "D:\\PD"})
    assert win.replace("/", "\\") == "D:\\PD\\mcplock\\policy.toml"
