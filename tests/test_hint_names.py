"""Hints that name a tool or server name exactly that one (docs/failing-safe.md, "Names in hints").

A real lock holds look-alike tools — ``echo`` and ``echo `` (a space at its end), ``café`` in NFC
and in NFD, a name with an ESC — and each hint a command prints is pasted into a real shell
(``bash -c``), where it must act on the item it named and on no other.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import tomllib
import unicodedata
from pathlib import Path

import pytest

from mcplock.text.untrusted import name_text, shell_word

from conftest import MCPLOCK

NAMES = ["echo", "echo ", "caf\u00e9", "cafe\u0301", "a\x1bb"]
_COMMAND = re.compile(r"`(mcplock [^`]*)`")


def _tool(name: str, text: str = "tool.") -> dict:
    return {"name": name, "description": f"{name} {text}", "inputSchema": {"type": "object"}}


def _lock(*, changed: bool = False) -> None:
    """``srv`` with NAMES accepted; ``changed``: each then changed upstream, staged and pending."""
    from mcplock.lock import review, store
    from mcplock.lock.model import Lock, ServerEntry
    from mcplock.lock.spec import ServerSpec

    from lockdata import snapshot

    srv = ServerEntry(name="srv", spec=ServerSpec("srv", transport="stdio", command="python", args=("srv.py",)))
    review.stage(srv, snapshot([_tool(n) for n in NAMES]))
    for e in list(srv.entries()):
        review.accept(srv, e)
    if changed:
        review.stage(srv, snapshot([_tool(n, "tool, now changed.") for n in NAMES]))
    store.save(Lock(servers={"srv": srv}), "mcp.lock")


def _tools() -> dict[str, dict]:
    data = tomllib.loads(Path("mcp.lock").read_text())
    return dict(data["server"]["srv"]["tool"])


def _paste(command: str) -> subprocess.CompletedProcess[str]:
    """``command`` as a person pastes it into bash, `mcplock` being this install's."""
    env = dict(os.environ, PATH=f"{Path(MCPLOCK).parent}{os.pathsep}{os.environ.get('PATH', '')}", LC_ALL="C.UTF-8")
    return subprocess.run(["bash", "-c", command], capture_output=True, text=True, env=env, timeout=120)


def _one(text: str, verb: str) -> str:
    """The one `mcplock VERB …` command of a hint."""
    found = [c for c in _COMMAND.findall(text) if c.startswith(f"mcplock {verb} ")]
    assert len(found) == 1, (verb, text)
    return found[0]


def _shows(name: str, command: str) -> None:
    r = _paste(command)
    assert r.returncode == 0, (command, r.stdout, r.stderr)
    heads = [ln for ln in r.stdout.splitlines() if ln.startswith("tool srv/")]
    assert heads == [f"tool srv/{name_text(name)}"], (command, r.stdout)


def test_a_hint_word_is_the_name_as_the_shell_reads_it():
    words = {n: shell_word(f"srv/{n}") for n in [*NAMES, "it's", "a\\x20b ", "my tool"]}
    assert words["echo"] == "srv/echo" and words["my tool"] == "'srv/my tool'"  # quoted only when needed
    assert words["echo "] == "$'srv/echo\\x20'" and words["cafe\u0301"] == "$'srv/cafe\\u0301'"
    assert words["a\x1bb"] == "$'srv/a\\x1bb'"
    assert len(set(words.values())) == len(words)  # told apart, and printable: nothing hidden in a hint
    assert all(w.isprintable() for n, w in words.items() if n != "caf\u00e9")
    for name, word in words.items():  # and the shell turns each back into exactly the name
        r = _paste(f"printf %s {word}")
        assert r.stdout == f"srv/{name}", (name, word, r.stdout)
    nul = shell_word("srv/a\x00b")  # no argument can hold a NUL: the hint runs nothing, not `srv/a`
    assert nul.startswith("<cannot be typed") and _paste(f"printf %s {nul}").returncode != 0


def test_checks_hints_reach_each_look_alike(cli):
    _lock()
    r = cli("check", "--format", "json")
    assert r.returncode == 0, r.stdout + r.stderr
    hints = {w["name"]: w["hint"] for w in json.loads(r.stdout)["warnings"] if w["code"] == "critical-accepted"}
    assert len(hints) == len(NAMES), hints
    for name, hint in hints.items():  # each reads apart (nothing hidden, no combining mark), and reaches it
        assert all(ch.isprintable() and not unicodedata.combining(ch) for ch in hint), hint
        _shows(name, _one(hint, "show"))
    disable = _one(hints["echo "], "disable")
    assert _paste(disable).returncode == 0
    assert {n: t["enabled"] for n, t in _tools().items()} == {n: n != "echo " for n in NAMES}


def test_the_refusals_of_enable_name_the_item_refused(cli):
    _lock(changed=True)  # each one quarantined: enable refuses it, naming show/accept/reject
    for name in NAMES:
        r = cli("enable", f"srv/{name}")
        assert r.returncode == 2, r.stdout + r.stderr
        _shows(name, _one(r.stderr, "show"))
    r = cli("enable", "srv/cafe\u0301")
    assert _paste(_one(r.stderr, "reject")).returncode == 0
    pending = {n for n, t in _tools().items() if "pending" in t}
    assert pending == set(NAMES) - {"cafe\u0301"}, pending  # the NFD one was rejected, its NFC twin waits


def test_the_guards_refusals_name_the_item_refused(cli):
    from mcplock.lock.read import load
    from mcplock.trust.decide import decide_tool

    _lock()
    for name in NAMES:
        assert cli("disable", f"srv/{name}").returncode == 0
    lock = load("mcp.lock")
    entry = {e.key: e for e in lock.servers["srv"].entries() if e.kind == "tool"}["echo "]
    fix = decide_tool("srv", "echo ", entry).fix or ""
    assert _paste(_one(fix, "enable")).returncode == 0
    assert {n: t["enabled"] for n, t in _tools().items()} == {n: n == "echo " for n in NAMES}


@pytest.mark.parametrize("server", ["docs ", "do\u0063\u0327s"])
def test_server_hints_name_the_server(server):
    from mcplock.render.formats.common import pending_message

    hint = pending_message(server, "tool", "echo ", "changed")
    word = shell_word(f"{server}/echo ")
    assert f"`mcplock show {word}`" in hint and f"`mcplock accept {word}`" in hint, hint
    assert _paste(f"printf %s {word}").stdout == f"{server}/echo "


def test_a_tampered_look_alikes_hint_names_it(cli):
    _lock()
    text = Path("mcp.lock").read_text()
    assert text.count('description = "echo  tool."') == 1  # `echo `'s own (its name, a space, " tool.")
    Path("mcp.lock").write_text(text.replace('description = "echo  tool."', 'description = "echo  tool!"'))
    r = cli("check", "--format", "json")
    assert r.returncode == 1, r.stdout + r.stderr
    hints = [f["hint"] for f in json.loads(r.stdout)["findings"] if f["code"] == "hash-mismatch"]
    assert len(hints) == 1 and _one(hints[0], "accept") == "mcplock accept $'srv/echo\\x20'", hints
