"""Issue 42.10: `init` at a terminal asks every question one way — one key, no Enter (`y`/`n`,
Enter takes the capital letter's answer) — and Ctrl-C at a server's "accept all?" keeps what was
probed: the servers are written with their items pending, `init` again probes nothing, and the run
says so (exit 130). A real pseudo-terminal, real fixture servers over stdio."""

from __future__ import annotations

import json
from pathlib import Path

from mcplock.lock import read

from conftest import FIXTURES
from ptyrun import Pty


def _project(*names: str) -> None:
    servers = {n: {"command": "python3", "args": [str(FIXTURES / "mcp_fixture.py"), "stdio"]} for n in names}
    Path(".mcp.json").write_text(json.dumps({"mcpServers": servers}))


def _key(p: Pty, question: str, key: str) -> None:
    """Wait for ``question`` (it must end in its keys), then press one key, no Enter."""
    p.expect(question, timeout=20)
    p.send(key)


def test_init_asks_every_question_with_one_key(cli):
    _project("docs")
    p = Pty("init")
    _key(p, "trust it and run? [y/N] ", "y")
    _key(p, "accept all of them? [y/N] ", "n")
    _key(p, "now, one by one? [Y/n] ", "\r")  # Enter: the capital letter's answer
    _key(p, "[a/r/s/A/q/?] ", "A")
    code, out = p.wait()
    assert code == 0, out
    assert "still pending" in out
    r = cli("check")
    assert r.returncode == 0, r.stdout + r.stderr


def test_a_key_that_is_no_answer_asks_again_and_says_which_keys(cli):
    _project("docs")
    p = Pty("init")
    _key(p, "trust it and run? [y/N] ", "x")
    said = p.expect("trust it and run? [y/N] ", timeout=20)
    assert "press y or n (Enter: n)" in said
    p.send("n")
    code, out = p.wait()
    assert code == 2, out
    assert "not trusted: nothing ran" in out


def test_ctrl_c_at_a_server_question_keeps_what_was_probed(cli):
    _project("docs", "wiki")
    p = Pty("init")
    _key(p, "trust them and run? [y/N] ", "y")
    _key(p, "accept all of them? [y/N] ", "y")  # the first server
    _key(p, "accept all of them? [y/N] ", "\x03")  # Ctrl-C at the second
    code, out = p.wait()
    assert code == 130, out
    said = " ".join(out.split())
    assert "interrupted: the servers probed are kept in mcp.lock" in said, said
    assert "`mcplock accept` resumes the review" in said
    assert said.count("interrupted") == 1, said
    lock = read.load("mcp.lock")
    assert sorted(lock.servers) == ["docs", "wiki"]
    accepted = [s for s in lock.servers.values() if not s.pending_count()]
    pending = [s for s in lock.servers.values() if s.pending_count()]
    assert len(accepted) == 1 and len(pending) == 1  # the one answered yes; the other left for review
    again = cli("init")  # nothing is probed again
    assert again.returncode == 0, again.stderr
    assert "every server is already locked" in again.stderr
    r = cli("check")
    assert r.returncode == 1 and "pending" in r.stdout + r.stderr  # what was not reviewed is not passed


def test_a_guarded_calls_approval_is_one_key_too(cli):
    r = cli("add", "docs", "--yes", "--", "python3", str(FIXTURES / "mcp_fixture.py"), "stdio")
    assert r.returncode == 0, r.stderr
    p = Pty("call", "docs/get_weather", "--args", '{"city": "Paris"}')
    _key(p, "run it? [y/N] ", "y")
    code, out = p.wait()
    assert code == 0 and "fixture: called get_weather" in out, out
