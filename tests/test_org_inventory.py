"""`mcplock inventory` (docs/organisation.md): one project's or one machine's servers, as
mcplock's JSON and as CycloneDX 1.6 — validated by cyclonedx-python-lib's own JSON validator,
read back by the library — with no secret, the reviewed surfaces and the review state."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cyclonedx.model.bom import Bom
from cyclonedx.schema import SchemaVersion
from cyclonedx.validation.json import JsonStrictValidator
from test_signing import fingerprint_of, keygen, policy

import orgdata as od
from conftest import run_cli


@pytest.fixture
def project(tmp_path):
    """A project under a home directory of its own: a pinned npm server with a critical tool, a
    remote one, a pending tool and a disabled one; a host config with every secret planted."""
    home = tmp_path / "alice"
    proj = home / "src" / "api"
    memory = od.npm_server(
        "memory",
        "@modelcontextprotocol/server-memory",
        "2026.8.31",
        [od.tool("search"), od.tool("read", od.CRITICAL_DESCRIPTION), od.tool("wipe", "Delete everything.")],
    )
    memory.tools["wipe"].enabled = False
    staged = od.npm_server("fresh", "mcp-fresh", "1.0.0", [od.tool("new_tool")], accept=False)
    remote = od.remote_server("api", "https://mcp.example.com/mcp", [od.tool("q")])
    od.write_lock(proj, [memory, staged, remote])
    od.secret_config(proj)
    return home, proj


def inventory(proj: Path, home: Path, *args: str) -> tuple[str, str]:
    r = run_cli("inventory", *args, cwd=str(proj), env={"HOME": str(home)})
    assert r.returncode == 0, r.stderr
    return r.stdout, r.stderr


def test_inventory_json_carries_the_review_and_no_secret(project):
    home, proj = project
    out, err = inventory(proj, home)
    for secret in od.CANARIES:
        assert secret not in out and secret not in err
    assert str(home) not in out and str(home) not in err
    assert "--api-key" not in out  # no argument beyond a package and its version
    inv = json.loads(out)
    assert (inv["format"], inv["version"], inv["scope"], inv["project"]) == ("mcplock-inventory", 1, "project", "api")
    by = {s["name"]: s for s in inv["servers"]}
    mem = by["memory"]
    assert mem["pinning"] == "pinned" and mem["command"] == "npx"
    assert mem["package"]["purl"] == "pkg:npm/%40modelcontextprotocol/server-memory@2026.8.31"
    assert mem["package"]["integrity"] == [od.integrity("@modelcontextprotocol/server-memory@2026.8.31")]
    assert mem["review"] == {
        "state": "accepted",
        "accepted": 3,
        "pending": 0,
        "disabled": 1,
        "rejected": 0,
        "highest_accepted_finding": "critical",
    }
    items = {i["name"]: i for i in mem["items"]}
    assert items["read"]["highest_finding"] == "critical" and items["search"]["highest_finding"] is None
    assert items["wipe"]["enabled"] is False and items["search"]["approval"] == "always"
    assert items["search"]["hash"].startswith("sha256:")
    assert by["fresh"]["review"]["state"] == "pending" and by["fresh"]["items"][0]["change"] == "new"
    assert by["api"]["endpoint"] == "https://mcp.example.com/mcp" and by["api"]["pinning"] == "remote"
    # the host config's servers the lock does not hold: unreviewed, their secrets and arguments left out
    assert by["floating"]["origin"] == "config" and by["floating"]["config"] == {
        "host": "claude-code",
        "file": ".mcp.json",
    }
    assert by["floating"]["pinning"] == "floating" and by["floating"]["launch"]["name"] == "@acme/mcp-tools"
    assert by["remote-secret"]["endpoint"] == "https://mcp.example.com/v1/mcp"
    assert inv["lock"]["signature"] == "missing" and inv["lock"]["sha256"].startswith("sha256-")


def test_surface_digest_is_the_mcp_lock_v1_recipe(project):
    """The inventory's surface digest is the one `export --format mcp-lock-v1` writes for the server."""
    home, proj = project
    out, _ = inventory(proj, home)
    r = run_cli("export", "--format", "mcp-lock-v1", "-o", "mcp-lock.json", cwd=str(proj), env={"HOME": str(home)})
    assert r.returncode == 0, r.stderr
    exported = {e["name"]: e["surface"]["hash"] for e in json.loads((proj / "mcp-lock.json").read_text())["entries"]}
    ours = {s["name"]: s["surface"]["mcp-lock-v1"] for s in json.loads(out)["servers"] if s["surface"]}
    assert ours["memory"] == exported["memory"] and ours["api"] == exported["api"]


def test_cyclonedx_validates_round_trips_and_carries_the_review(project):
    home, proj = project
    out, err = inventory(proj, home, "--format", "cyclonedx")
    for secret in od.CANARIES:
        assert secret not in out and secret not in err
    assert JsonStrictValidator(SchemaVersion.V1_6).validate_str(out) is None
    doc = json.loads(out)
    assert doc["bomFormat"] == "CycloneDX" and doc["specVersion"] == "1.6"
    # the library reads it back: the same services, components and properties
    bom = Bom.from_json(doc)  # type: ignore[attr-defined]
    assert {s.name for s in bom.services} == {"memory", "fresh", "api", "floating", "remote-secret"}
    pkg = next(c for c in bom.components if c.purl is not None and c.name == "server-memory")
    assert pkg.group == "@modelcontextprotocol" and pkg.version == "2026.8.31"
    assert [h.alg.value for h in pkg.hashes] == ["SHA-512"]
    services = {s["name"]: s for s in doc["services"]}
    props = {p["name"]: p["value"] for p in services["memory"]["properties"]}
    assert props["cdx:mcp:serviceType"] == "configured-server" and props["cdx:mcp:transport"] == "stdio"
    assert props["cdx:mcp:pinning"] == "pinned" and props["cdx:mcp:toolCount"] == "3"
    assert props["mcplock:review:highest-accepted-finding"] == "critical"
    assert props["mcplock:surface:mcp-lock-v1"].startswith("sha256-")
    assert services["api"]["endpoints"] == ["https://mcp.example.com/mcp"]
    tools = {c["name"]: c for c in doc["components"] if c["bom-ref"].startswith("urn:mcp:tool:memory:")}
    wipe = {p["name"]: p["value"] for p in tools["wipe"]["properties"]}
    assert wipe["cdx:mcp:role"] == "tool" and wipe["cdx:mcp:serviceRef"] == services["memory"]["bom-ref"]
    assert wipe["mcplock:enabled"] == "false" and wipe["mcplock:definition-hash"].startswith("sha256:")
    # mcplock reads its own inventory back from the BOM: the same inventory as the JSON one
    inv_json = json.loads(inventory(proj, home, "--format", "json")[0])
    from mcplock.org.cyclonedx_read import inventory as from_bom

    back = from_bom(doc)
    for key in ("format", "version", "scope", "project", "lock", "policy", "violations", "notes"):
        assert back[key] == inv_json[key], key
    order = lambda s: (s["origin"] != "lock", s["name"])  # noqa: E731
    assert sorted(back["servers"], key=order) == sorted(inv_json["servers"], key=order)


def test_signature_and_policy_are_in_the_inventory(project):
    home, proj = project
    key = keygen(str(proj / "signer"))
    fp = fingerprint_of(str(key) + ".pub")
    pol = policy(fp, name=str(proj / "policy.toml"), extra='[tools]\ndeny = ["wipe"]\n')
    r = run_cli("sign", "--key", str(key), "--policy", pol, cwd=str(proj), env={"HOME": str(home)})
    assert r.returncode == 0, r.stderr
    inv = json.loads(inventory(proj, home, "--policy", pol)[0])
    assert inv["lock"]["signature"] == "valid" and inv["lock"]["signing_key"] == fp
    assert inv["policy"]["signing_required"] is True and inv["policy"]["signing_keys"] == [fp]
    assert inv["violations"] == [] or all(v["rule"] for v in inv["violations"])
    # the signing key on every server of the BOM; a change to the lock makes the signature stale
    bom = json.loads(inventory(proj, home, "--format", "cyclonedx")[0])
    keys = {p["value"] for s in bom["services"] for p in s["properties"] if p["name"] == "mcplock:signing-key"}
    assert keys == {fp}
    r = run_cli("disable", "memory/search", cwd=str(proj), env={"HOME": str(home)})
    assert r.returncode == 0, r.stderr
    assert json.loads(inventory(proj, home)[0])["lock"]["signature"] == "stale"


def test_policy_violations_are_listed(project):
    home, proj = project
    pol = proj / "deny.toml"
    pol.write_text('version = 1\n[tools]\ndeny = ["search"]\n')
    inv = json.loads(inventory(proj, home, "--policy", str(pol))[0])
    assert [(v["rule"], v["server"], v["item"]) for v in inv["violations"]] == [("tools.deny", "memory", "search")]


def test_user_inventory_reads_the_hosts_user_configs(tmp_path):
    home = tmp_path / "bob"
    (home / ".cursor").mkdir(parents=True)
    (home / ".cursor" / "mcp.json").write_text(
        json.dumps(
            {
                "mcpServers": {
                    "gh": {"command": "npx", "args": ["-y", "@acme/gh@1.2.3"], "env": {"TOKEN": od.CANARIES[0]}},
                    "web": {"url": f"https://u:{od.CANARIES[4]}@mcp.example.org/mcp?key={od.CANARIES[3]}"},
                }
            }
        )
    )
    (home / ".codex").mkdir()
    (home / ".codex" / "config.toml").write_text(
        f'[mcp_servers.local]\ncommand = "{home}/bin/server"\nargs = ["--token", "{od.CANARIES[2]}"]\n'
        f'[mcp_servers.script]\ncommand = "python"\nargs = ["server.py", "--token", "{od.CANARIES[2]}"]\n'
    )
    (home / ".gemini").mkdir()
    (home / ".gemini" / "settings.json").write_text("{ not json")
    r = run_cli("inventory", "--user", "--project", "laptop-7", env={"HOME": str(home)}, cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    for secret in od.CANARIES:
        assert secret not in r.stdout and secret not in r.stderr
    assert str(home) not in r.stdout and str(home) not in r.stderr
    inv = json.loads(r.stdout)
    assert inv["scope"] == "user" and inv["project"] == "laptop-7" and inv["lock"] is None
    by = {s["name"]: s for s in inv["servers"]}
    assert by["gh"]["config"] == {"host": "cursor", "file": "~/.cursor/mcp.json"}
    assert by["gh"]["pinning"] == "unpinned" and by["gh"]["launch"]["requested"] == "1.2.3"
    assert by["web"]["endpoint"] == "https://mcp.example.org/mcp"
    assert by["local"]["config"]["file"] == "~/.codex/config.toml" and by["local"]["command"] == "server"
    # a binary outside any project: nothing shows what it runs (the policy's reading, packages/runs)
    assert by["local"]["pinning"] == "floating" and by["script"]["pinning"] == "local"
    assert any(n.startswith("~/.gemini/settings.json: not read") for n in inv["notes"]), inv["notes"]


def test_inventory_without_a_lock_and_with_a_broken_one(tmp_path):
    proj = tmp_path / "p"
    proj.mkdir()
    od.secret_config(proj)
    r = run_cli("inventory", cwd=str(proj))
    assert r.returncode == 0, r.stderr
    inv = json.loads(r.stdout)
    assert inv["lock"] is None and {s["review"]["state"] for s in inv["servers"]} == {"unreviewed"}
    (proj / "mcp.lock").write_text("version = 1\n<<<<<<< HEAD\n")
    r = run_cli("inventory", "--format", "cyclonedx", cwd=str(proj))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stdout == "" and "conflict" in r.stderr


def test_inventories_follow_the_published_schema(project, tmp_path):
    """What `inventory` writes follows schemas/inventory-v1.json (the JSON Schema, checked with
    jsonschema), and fleet's own shape check agrees on it and on broken copies of it."""
    import copy
    from importlib.resources import files

    import jsonschema

    from mcplock.org.shape import problem

    home, proj = project
    schema = json.loads((files("mcplock.org") / "schemas" / "inventory-v1.json").read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(schema)
    inv = json.loads(inventory(proj, home)[0])
    user = json.loads(run_cli("inventory", "--user", env={"HOME": str(home)}, cwd=str(proj)).stdout)
    for doc in (inv, user):
        assert list(validator.iter_errors(doc)) == [] and problem(doc) is None
    for path, value in (
        (("servers", 0, "review", "pending"), -1),
        (("servers", 0, "items", 0, "kind"), "tool\u200b"),
        (("servers", 1, "surface", "tools"), True),
        (("lock", "signature"), "trusted"),
        (("servers", 0, "name"), None),
    ):
        broken = copy.deepcopy(inv)
        node = broken
        for k in path[:-1]:
            node = node[k]
        node[path[-1]] = value
        assert list(validator.iter_errors(broken)) != [], path
        where = problem(broken)
        assert where is not None and where.startswith("/" + "/".join(map(str, path)) + ":"), (path, where)


def test_the_actions_inventory_step_writes_a_valid_bom(project, tmp_path):
    """action.yml's `inventory` input: its step, run as the runner runs it, writes the BOM."""
    import os
    import re
    import subprocess
    import sys

    import yaml

    from conftest import ROOT

    home, proj = project
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    inputs = {k: str(v.get("default", "")) for k, v in action["inputs"].items()}
    inputs.update(inventory="mcp-bom.cdx.json")
    step = next(s for s in action["runs"]["steps"] if s.get("id") == "inventory")
    assert step["if"] == "inputs.inventory != ''"
    expand = lambda v: re.sub(r"\$\{\{\s*inputs\.([a-z-]+)\s*\}\}", lambda m: inputs[m.group(1)], str(v))  # noqa: E731
    out = tmp_path / "github_output"
    env = {**os.environ, "HOME": str(home), "GITHUB_OUTPUT": str(out)}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env.update({k: expand(v) for k, v in step["env"].items()})
    r = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
        cwd=proj / expand(step["working-directory"]),
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    assert out.read_text() == "inventory-file=mcp-bom.cdx.json\n"
    bom = (proj / "mcp-bom.cdx.json").read_text(encoding="utf-8")
    assert JsonStrictValidator(SchemaVersion.V1_6).validate_str(bom) is None
    assert all(secret not in bom for secret in od.CANARIES)
