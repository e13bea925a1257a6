"""Issue 47, item 9 (docs/signing.md, "Rollback"; docs/failing-safe.md, round 5): an earlier lock
restored with its own earlier signature no longer passes. Real git, the console script, the
guard: every signature carries a sequence one past the highest in the history of mcp.lock.sig,
and verification refuses one lower than the history holds."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from test_signing import fingerprint_of, keygen, policy

from lockdata import make_lock


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], check=True, capture_output=True, text=True, timeout=60).stdout


def _commit(msg: str) -> None:
    _git("add", "-A")
    _git("commit", "-q", "-m", msg)


def _sequence() -> int:
    return json.loads(Path("mcp.lock.sig").read_text())["sequence"]


def test_a_restored_earlier_lock_and_signature_is_refused_as_a_rollback(cli):
    _git("init", "-q")
    _git("config", "user.email", "t@example.com")
    _git("config", "user.name", "t")
    make_lock()
    keygen("alice")
    pol = policy(fingerprint_of("alice.pub"))
    env = {"MCPLOCK_POLICY": pol}
    assert cli("sign", "--key", "alice", env=env).returncode == 0
    assert _sequence() == 1
    _commit("lock, signed")
    assert cli("disable", "docs/delete_page").returncode == 0  # the reviewers take a tool away
    assert cli("sign", "--key", "alice", env=env).returncode == 0
    assert _sequence() == 2
    _commit("delete_page disabled, signed again")
    assert cli("check", env=env).returncode == 0

    # a pusher without the key restores both files as they were
    _git("checkout", "HEAD~1", "--", "mcp.lock", "mcp.lock.sig")
    _commit("restore")
    for cmd in (("check",), ("verify-signature",), ("diff",)):
        r = cli(*cmd, env=env)
        assert r.returncode != 0, (cmd, r.stdout, r.stderr)
        out = r.stdout + r.stderr
        assert "rollback" in out and "sequence 1" in out and "sequence 2" in out, (cmd, out)
    r = cli("run", "docs", input="", env=env)  # the guard starts nothing
    assert r.returncode != 0 and "rollback" in r.stderr, r.stderr

    # going back on purpose: a key holder signs it again, with a new sequence
    assert cli("sign", "--key", "alice", env=env).returncode == 0
    assert _sequence() == 3
    assert cli("check", env=env).returncode == 0
