"""A child started before the event loop and adopted by it (mcplock.probe._pipes.adopt), as the
guard starts its stdio server: real processes, real pipes; the exit seen through a pidfd and,
where there is none, through a waiting thread."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys

import pytest

from mcplock.lock.spec import ServerSpec
from mcplock.probe._pipes import Lines, adopt
from mcplock.probe.launch import start_early

CHILD = (
    "import sys\n"
    "sys.stdout.write('early\\n'); sys.stdout.flush()\n"  # written before the adoption
    "line = sys.stdin.readline()\n"
    "sys.stderr.write('bye\\n')\n"
    "sys.stdout.write('echo ' + line); sys.stdout.flush()\n"
    "sys.exit(3)\n"
)


async def _drive(popen: subprocess.Popen[bytes]) -> tuple[list[bytes], bytes, int, bool]:
    got: list[bytes] = []
    ended = asyncio.get_running_loop().create_future()
    lines = Lines(1024, got.append, lambda: False, lambda: ended.set_result(True), released=False)
    proc = await adopt(lines, popen, limit=1024)
    lines.release()
    proc.stdin.write(b"hello\n")
    await proc.stdin.drain()
    code = await asyncio.wait_for(proc.wait(), 10)
    err = await asyncio.wait_for(proc.stderr.read(), 10)
    await asyncio.wait_for(ended, 10)
    proc.close()
    return got, err, code, proc.returncode == code


@pytest.mark.parametrize("pidfd", [True, False])
def test_an_adopted_child_is_driven_like_a_spawned_one(monkeypatch, pidfd):
    if not pidfd:

        def no_pidfd(pid: int) -> int:
            raise OSError("no pidfd here")

        monkeypatch.setattr(os, "pidfd_open", no_pidfd, raising=False)
    spec = ServerSpec(name="child", transport="stdio", command=sys.executable, args=["-c", CHILD])
    popen = start_early(spec, dict(os.environ))
    assert popen is not None
    os.killpg(popen.pid, 0)  # its own process group, as every launched server
    got, err, code, same = asyncio.run(_drive(popen))
    assert got == [b"early\n", b"echo hello\n"] and err == b"bye\n" and code == 3 and same


def test_a_start_that_cannot_happen_is_left_to_the_ordinary_start():
    missing = ServerSpec(name="x", transport="stdio", command="/nonexistent/mcplock-test-server")
    assert start_early(missing, dict(os.environ)) is None
    remote = ServerSpec(name="x", transport="http", url="http://127.0.0.1:9/mcp")
    assert start_early(remote, dict(os.environ)) is None
