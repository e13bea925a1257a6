"""Issue 42.4: the key `ssh-keygen` makes by default — ed25519 with a passphrase — signs out of
the box: `bcrypt` (its KDF) is a dependency, the passphrase is asked for at a terminal and read
from MCPLOCK_KEY_PASSPHRASE in CI (docs/signing.md), and a wrong one reads "wrong passphrase"."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from lockdata import make_lock
from ptyrun import Pty, default_env

SSH_KEYGEN = shutil.which("ssh-keygen")
pytestmark = pytest.mark.skipif(SSH_KEYGEN is None, reason="ssh-keygen (openssh-client) is not installed")


def _key(passphrase: str) -> None:
    assert SSH_KEYGEN is not None
    subprocess.run([SSH_KEYGEN, "-q", "-t", "ed25519", "-N", passphrase, "-f", "id_ed25519"], check=True)


def test_a_passphrase_protected_ssh_keygen_key_signs_from_the_environment_and_says_wrong_passphrase(cli):
    make_lock()
    _key("correct horse")
    r = cli("sign", "--key", "id_ed25519", env={"MCPLOCK_KEY_PASSPHRASE": "correct horse"})
    assert r.returncode == 0, r.stderr
    assert cli("verify-signature", "--key", "id_ed25519.pub").returncode == 0

    Path("mcp.lock.sig").unlink()
    r = cli("sign", "--key", "id_ed25519", env={"MCPLOCK_KEY_PASSPHRASE": "battery staple"})
    assert r.returncode == 2
    assert "wrong passphrase for id_ed25519" in r.stderr and "Corrupt" not in r.stderr
    assert not Path("mcp.lock.sig").exists()

    r = cli("sign", "--key", "id_ed25519")  # no terminal, no variable: what to set
    assert r.returncode == 2 and "MCPLOCK_KEY_PASSPHRASE" in r.stderr
    assert "pipx" not in r.stderr and "Traceback" not in r.stderr


def test_at_a_terminal_sign_asks_for_the_passphrase():
    make_lock()
    _key("correct horse")
    env = default_env()
    env.pop("MCPLOCK_KEY_PASSPHRASE", None)
    p = Pty("sign", "--key", "id_ed25519", env=env)
    p.expect("passphrase for id_ed25519:")
    p.send("correct horse\n")
    code, out = p.wait()
    assert code == 0, out
    assert "correct horse" not in out  # not echoed
    assert Path("mcp.lock.sig").exists()
