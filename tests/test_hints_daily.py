"""Issue 42.9: hints that cannot work or mislead.

- `sign` with a key the policy does not list refuses and writes nothing (it used to replace a
  good signature with one `check` then fails);
- `add --policy FILE` says that an organisation's policy goes to `check`/`diff`/`export`/`sign`;
- the pre-commit hook runs when `mcp.lock.sig` changes; no doc pins a `@v1` tag that does not
  exist (no release tag exists: a commit, as the README says).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from lockdata import make_lock

ROOT = Path(__file__).resolve().parent.parent


def _keygen(name: str) -> None:
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", name], check=True)


def _fingerprint(cli, pub: str) -> str:
    r = cli("fingerprint", pub)
    assert r.returncode == 0, r.stderr
    return r.stdout.split()[0]


def test_sign_with_a_key_the_policy_does_not_list_writes_nothing(cli):
    make_lock()
    _keygen("alice")
    _keygen("mallory")
    Path("policy.toml").write_text(
        f'version = 1\n[signing]\nrequire = true\nkeys = ["{_fingerprint(cli, "alice.pub")}"]\n'
    )
    assert cli("sign", "--key", "alice", "--policy", "policy.toml").returncode == 0
    good = Path("mcp.lock.sig").read_bytes()
    r = cli("sign", "--key", "mallory", "--policy", "policy.toml")
    assert r.returncode == 2, r.stdout + r.stderr
    assert "does not list this key" in r.stderr and "nothing was written" in r.stderr
    assert Path("mcp.lock.sig").read_bytes() == good
    assert cli("check", "--policy", "policy.toml").returncode == 0


def test_add_policy_with_a_file_points_at_the_commands_that_take_one(cli):
    Path("policy.toml").write_text("[servers]\n")
    r = cli("add", "docs", "--policy", "policy.toml", "--", "python3", "server.py")
    assert r.returncode == 2
    assert "`mcplock check --policy policy.toml`" in r.stderr and "docs/policy.md" in r.stderr


def test_the_hook_watches_the_signature_and_no_doc_pins_a_tag_that_does_not_exist():
    hooks = (ROOT / ".pre-commit-hooks.yaml").read_text()
    files = re.search(r"^  files: (.+)$", hooks, re.M)
    assert files is not None
    rx = re.compile(files.group(1))
    assert rx.search("mcp.lock.sig") and rx.search("sub/mcp.lock.sig") and rx.search("mcp.lock")
    tags = subprocess.run(["git", "tag"], cwd=ROOT, capture_output=True, text=True).stdout.split()
    for doc in [ROOT / "README.md", ROOT / ".pre-commit-hooks.yaml", *sorted((ROOT / "docs").glob("*.md"))]:
        for rev in re.findall(r"/mcplock@([\w.-]+)", doc.read_text()):
            assert rev in tags or rev == "FULL_COMMIT_SHA" or re.fullmatch(r"[0-9a-f]{40}", rev), (doc.name, rev)


def test_a_broken_lock_is_repaired_by_what_its_hint_says_and_nothing_more(cli):
    """Restoring the committed lock is the whole repair: the hint names `git checkout` and
    `mcplock check`, never `refresh` (which would probe the servers and stage what they say now);
    the commands it names, run as written, leave a lock that passes."""
    make_lock()
    subprocess.run(["git", "init", "-q"], check=True)
    subprocess.run(["git", "add", "mcp.lock"], check=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "lock"], check=True)
    assert cli("check").returncode == 0
    good = Path("mcp.lock").read_text()
    for broken in (good.replace("[server.", "[server.[", 1), good + "\nversion = 2\n"):
        Path("mcp.lock").write_text(broken)
        r = cli("check")
        assert r.returncode == 2, r.stdout + r.stderr
        out = r.stdout + r.stderr
        assert "refresh" not in out, out
        named = re.findall(r"`((?:git|mcplock) [^`]*)`", out)
        assert "git checkout -- mcp.lock" in named and "mcplock check" in named, out
        subprocess.run(["git", "checkout", "--", "mcp.lock"], check=True)
        assert cli("check").returncode == 0
