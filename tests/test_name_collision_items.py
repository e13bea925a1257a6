"""``name-collision`` for the prompts and resources of a server, as for its tools
(docs/failing-safe.md, round 3, item 9): a real lock, the lint, `check`, and `check`'s hint pasted
into a real shell."""

from __future__ import annotations

import json
from pathlib import Path

from test_hint_names import _one, _paste, _tool


def _items_lock() -> None:
    from mcplock.lock import review, store
    from mcplock.lock.model import Lock, ServerEntry
    from mcplock.lock.spec import ServerSpec

    from lockdata import snapshot

    prompts = ["greet", "greet ", "caf\u00e9", "cafe\u0301", "Other", "other"]
    snap = snapshot([_tool("echo")], prompts=[{"name": n, "description": f"{n} prompt."} for n in prompts])
    snap.resource_templates = [
        {"uriTemplate": f"file:///{i}/{{x}}", "name": n} for i, n in enumerate(["config", "\uff43onfig", "notes"])
    ]
    srv = ServerEntry(name="srv", spec=ServerSpec("srv", transport="stdio", command="python", args=("srv.py",)))
    review.stage(srv, snap)
    for e in list(srv.entries()):
        review.accept(srv, e)
    store.save(Lock(servers={"srv": srv}), "mcp.lock")


def test_prompt_and_resource_names_that_collide_are_flagged():
    from mcplock.lint.entries import lint_entries
    from mcplock.lock.read import load

    _items_lock()
    found = lint_entries(load("mcp.lock").servers.values())
    flagged = {(k[1], k[2]): f.severity for k, v in found.items() for f in v if f.rule == "name-collision"}
    assert flagged == {
        ("prompt", "greet"): "critical",
        ("prompt", "greet "): "critical",
        ("prompt", "caf\u00e9"): "critical",
        ("prompt", "cafe\u0301"): "critical",
        ("prompt", "Other"): "high",
        ("prompt", "other"): "high",  # case alone is visible
        ("resource-template", "file:///0/{x}"): "critical",
        ("resource-template", "file:///1/{x}"): "critical",
    }, flagged
    message = next(f.message for f in found[("srv", "prompt", "greet ")] if f.rule == "name-collision")
    assert message.startswith("prompt name `greet\\x20` reads as `greet` of the same server"), message


def test_check_warns_about_an_accepted_colliding_prompt_and_its_hint_reaches_it(cli):
    _items_lock()
    r = cli("check", "--format", "json")
    assert r.returncode == 0, r.stdout + r.stderr
    warned = {
        (w["kind"], w["name"]): w["hint"] for w in json.loads(r.stdout)["warnings"] if w["code"] == "critical-accepted"
    }
    assert set(warned) == {
        ("prompt", "greet"),
        ("prompt", "greet "),
        ("prompt", "caf\u00e9"),
        ("prompt", "cafe\u0301"),
        ("resource-template", "file:///0/{x}"),
        ("resource-template", "file:///1/{x}"),
    }, warned
    r = _paste(_one(warned[("prompt", "greet ")], "show"))
    assert r.returncode == 0 and "prompt srv/prompt:greet\\x20" in r.stdout, r.stdout + r.stderr
    assert "prompt srv/prompt:greet\n" not in r.stdout
    for args in (("check",), ("-q", "check")):  # the all-clear fast path hands it to the full check too
        r = cli(*args)
        assert r.returncode == 0 and "critical-accepted: prompt `srv/prompt:greet\\x20`" in r.stdout, r.stdout


def test_a_diff_flags_an_added_look_alike_prompt(cli):
    from runner import SURFACES, stdio_command

    surface = json.loads((SURFACES / "demo.json").read_text())
    Path("surface.json").write_text(json.dumps(surface))
    r = cli("add", "docs", "--yes", "--policy", "none", "--", *stdio_command(surface="surface.json"))
    assert r.returncode == 0, r.stderr
    prompt = surface["prompts"][0]
    twin = dict(prompt, name=prompt["name"] + " ")
    Path("surface.json").write_text(json.dumps(dict(surface, prompts=[*surface["prompts"], twin])))
    r = cli("diff", "--format", "json")
    assert r.returncode == 1, r.stdout + r.stderr
    changes = [c for s in json.loads(r.stdout)["servers"] for c in s["changes"] if c["kind"] == "prompt"]
    assert [c["name"] for c in changes] == [twin["name"]], changes
    rules = {f["rule"]: f["severity"] for f in changes[0]["findings"]}
    assert rules.get("name-collision") == "critical", changes
