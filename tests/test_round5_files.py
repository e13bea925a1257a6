"""Issue 47, items 21 and 18 (docs/failing-safe.md, round 5): mcplock writes only regular files
inside the project, and reads a repository's files only when they are regular files of a bounded
size. Every writer (the lock, its signature, the export record, the mcp-lock/1 export, host files)
and every reader (the lock, its signature, the export record, a policy, a host config, an
mcp-lock/1 document) meets a link out of the project, a device, a FIFO and a directory, through
the console script.

As root (CI) a test never points a writer at the real ``/dev/null``: it makes a character device
of its own with the same numbers (``mknod``), which the code before this fix replaced with a
regular file exactly as it would have replaced ``/dev/null``. Without root it links to the real
``/dev/null``, which no other user can replace."""

from __future__ import annotations

import json
import os
import resource
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from test_signing import fingerprint_of, keygen, policy

from conftest import MCPLOCK
from lockdata import make_lock


def _device(where: Path) -> Path:
    """A character device standing for /dev/null (see the module docstring)."""
    if os.geteuid() != 0:
        return Path(os.devnull)
    dev = where / "null-twin"
    os.mknod(dev, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    return dev


def _is_device(p: Path) -> bool:
    return stat.S_ISCHR(os.stat(p).st_mode)


def _members(tmp_path: Path) -> dict[str, Path]:
    """What a repository may put where mcplock writes: a link to a person's file outside the
    project, a link to a device, a FIFO, a directory (each fresh)."""
    outside = tmp_path.parent / f"{tmp_path.name}-outside"
    outside.mkdir(exist_ok=True)
    person = outside / "notes.txt"
    person.write_text("a person's notes\n")
    fifo = outside / "fifo"
    if not fifo.exists():
        os.mkfifo(fifo)
    return {"outside": person, "device": _device(outside), "fifo": fifo, "directory": outside / "adir"}


def _plant(path: Path, member: str, target: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink()
    if member == "directory":
        path.mkdir()
    elif member == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to(target)


def _untouched(member: str, target: Path, path: Path) -> None:
    if member == "outside":
        assert target.read_text() == "a person's notes\n"
    elif member == "device":
        assert _is_device(target)
    elif member == "fifo":
        assert stat.S_ISFIFO(os.lstat(path).st_mode)
    else:
        assert path.is_dir() and not path.is_symlink()


def _run(*args: str, env: dict[str, str] | None = None, stdin: int | None = subprocess.DEVNULL):
    """The console script with its address space capped at 1 GiB (a reader that swallows
    /dev/zero fails there instead of taking the machine's memory) and a timeout (a FIFO)."""

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))

    return subprocess.run(
        [MCPLOCK, *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        stdin=stdin,
        timeout=60,
        preexec_fn=cap,
    )


MEMBERS = ["outside", "device", "fifo", "directory"]


@pytest.mark.parametrize("member", MEMBERS)
def test_sign_never_writes_through_what_the_repository_put_at_the_signature(cli, tmp_path, member):
    make_lock()
    keygen("alice")
    target = _members(tmp_path)[member]
    sig = Path("mcp.lock.sig")
    _plant(sig, member, target)
    r = _run("sign", "--key", "alice")
    assert r.returncode == 2, r.stdout + r.stderr
    assert "Traceback" not in r.stderr and "mcp.lock.sig" in r.stderr
    assert "rm mcp.lock.sig" in r.stderr, r.stderr  # what to do next
    _untouched(member, target, sig)
    # the way out the error names works: remove it, sign again
    if member == "directory":
        sig.rmdir()
    else:
        sig.unlink()
    assert cli("sign", "--key", "alice").returncode == 0 and sig.is_file()


@pytest.mark.parametrize("member", ["outside", "device"])
def test_the_lock_and_the_export_record_are_never_written_through_a_link(cli, tmp_path, member):
    make_lock()
    target = _members(tmp_path)[member]
    real = Path("real.lock")
    Path("mcp.lock").rename(real)
    if member == "outside":  # the lock itself a link out of the project (readable: a lock)
        target.write_bytes(real.read_bytes())
        Path("mcp.lock").symlink_to(target)
        r = _run("disable", "docs/delete_page")
        assert r.returncode == 2 and "outside the project" in r.stderr, r.stderr
        assert "enabled = false" not in target.read_text()
        Path("mcp.lock").unlink()
    real.rename("mcp.lock")
    # the export record (mcp.lock.exports.json) as such a link
    Path(".mcp.json").write_text(json.dumps({"mcpServers": {"docs": {"command": "python", "args": ["server.py"]}}}))
    record = Path("mcp.lock.exports.json")
    before = target.read_bytes() if member == "outside" else None
    record.symlink_to(target)
    r = _run("export", "--host", "claude-code")
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stdout + r.stderr
    assert "mcp.lock.exports.json" in r.stderr
    if member == "outside":
        assert target.read_bytes() == before
    else:
        assert _is_device(target)


def test_the_mcp_lock_v1_export_is_never_written_through_a_link_out(cli, tmp_path):
    make_lock()
    person = _members(tmp_path)["outside"]
    Path("mcp-lock.json").symlink_to(person)
    r = _run("export", "--format", "mcp-lock-v1")
    assert r.returncode == 2 and "outside the project" in r.stderr, r.stdout + r.stderr
    assert person.read_text() == "a person's notes\n"


def test_a_link_inside_the_project_to_a_regular_file_is_still_written_through(cli):
    """The honest twin: a lock kept in a sub-directory and linked (docs/failing-safe.md, Writing)."""
    make_lock("store.lock")
    os.mkdir("locks")
    os.rename("store.lock", "locks/team.lock")
    Path("mcp.lock").symlink_to("locks/team.lock")
    r = cli("disable", "docs/delete_page")
    assert r.returncode == 0, r.stderr
    assert Path("mcp.lock").is_symlink() and "enabled = false" in Path("locks/team.lock").read_text()


# --- 18: readers ----------------------------------------------------------------------------


def test_a_lock_linked_to_dev_zero_is_refused_not_swallowed():
    Path("mcp.lock").symlink_to("/dev/zero")
    for cmd in (("check",), ("list",), ("diff",)):
        r = _run(*cmd)
        assert r.returncode == 2, (cmd, r.stdout, r.stderr)
        assert "a device" in r.stderr and "not a regular file" in r.stderr, r.stderr
        assert "Traceback" not in r.stderr and "MemoryError" not in r.stderr


def test_a_lock_larger_than_the_bound_is_refused_unread():
    with open("mcp.lock", "wb") as f:
        f.truncate(65 * 1024 * 1024)  # sparse: 65 MiB of NULs
    r = _run("check")
    assert r.returncode == 2 and "larger than 64 MiB" in r.stderr, r.stderr


def test_a_signature_linked_to_stdin_does_not_swallow_the_hosts_messages(tmp_path):
    """The guard under `[signing] require` reads mcp.lock.sig before anything: linked to
    /dev/stdin it read the host's `initialize` as a signature."""
    make_lock()
    keygen("alice")
    pol = policy(fingerprint_of("alice.pub"))
    Path("mcp.lock.sig").symlink_to("/dev/stdin")
    init = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}) + "\n"
    r = subprocess.run(
        [MCPLOCK, "run", "docs"],
        input=init,
        capture_output=True,
        text=True,
        env={**os.environ, "MCPLOCK_POLICY": pol},
        timeout=60,
    )
    assert r.returncode == 2, r.stdout + r.stderr
    assert "mcp.lock.sig" in r.stderr and "not a regular file" in r.stderr, r.stderr


@pytest.mark.parametrize("what", ["signature", "record", "policy", "host-config", "document"])
def test_every_repository_file_mcplock_reads_refuses_a_fifo_or_a_device(cli, tmp_path, what):
    make_lock()
    fifo = Path("planted.fifo")
    os.mkfifo(fifo)
    if what == "signature":
        keygen("alice")
        Path("mcp.lock.sig").symlink_to(fifo)
        r = _run("verify-signature", "--key", "alice.pub")
    elif what == "record":
        Path("mcp.lock.exports.json").symlink_to(fifo)
        r = _run("check")
    elif what == "policy":
        Path("policy.toml").symlink_to("/dev/zero")
        r = _run("check", "--policy", "policy.toml")
    elif what == "host-config":
        Path(".mcp.json").symlink_to(fifo)
        r = _run("add", "--from", ".mcp.json", "--yes")
    else:
        Path("mcp-lock.json").symlink_to("/dev/zero")
        r = _run("verify-lock", "mcp-lock.json")
    assert r.returncode in (1, 2), r.stdout + r.stderr
    out = r.stdout + r.stderr
    assert "not a regular file" in out, out
    assert "Traceback" not in out and "MemoryError" not in out


if sys.platform != "linux":  # pragma: no cover
    pytestmark = pytest.mark.skip("FIFOs, devices and /dev/stdin as on Linux")


def test_a_cache_file_linked_out_is_replaced_in_place_never_written_through(cli, tmp_path):
    """The caches live in mcplock's own directory; a link planted there is replaced by the
    rename that writes the cache (the lint cache here), and its target is left as it was."""
    make_lock()
    assert cli("check").returncode == 0
    cache = Path(os.environ["XDG_CACHE_HOME"]) / "mcplock" / "lint"
    written = max((p for p in cache.iterdir() if p.suffix == ".json"), key=lambda p: p.stat().st_mtime)
    person = _members(tmp_path)["outside"]
    written.unlink()
    written.symlink_to(person)
    assert cli("check").returncode == 0
    assert person.read_text() == "a person's notes\n"
    assert written.is_file() and not written.is_symlink()
