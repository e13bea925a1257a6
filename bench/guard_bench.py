"""The guard's cost, side by side in one run: the same client talks to the fixture server
directly and through `mcplock run`.

- per-call overhead: p50 of sequential `tools/call` round trips, guarded minus direct;
- first `tools/list`: from spawning to the first `tools/list` answer, guarded minus direct
  (what the guard adds beyond the upstream's own start: its own start-up and verification);
- peak RSS of the guard process alone (VmHWM from /proc);
- the first `tools/list` again with the server in a 2,000-tool lock: its part remembered
  (mcplock/lock/one.py), and read whole every time.

    python bench/guard_bench.py          # or: make bench (all benchmarks)
    python bench/guard_bench.py --in-process [CALLS]   # CPU µs and event-loop turns per call, in one process
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _home import locked_fixture

CALLS = 1000
STARTS = 7

INIT = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}


class Client:
    def __init__(self, cmd: list[str], cwd: str, env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen(
            cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=cwd, env=env
        )
        self.next_id = 0

    def request(self, method: str, params: dict | None = None) -> dict:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": self.next_id, "method": method, **({"params": params} if params else {})}
        self.proc.stdin.write(json.dumps(msg).encode() + b"\n")
        self.proc.stdin.flush()
        while True:
            resp = json.loads(self.proc.stdout.readline())
            if resp.get("id") == self.next_id:
                return resp

    def start(self) -> None:
        self.request("initialize", INIT)
        assert self.proc.stdin is not None
        self.proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        self.proc.stdin.flush()

    def peak_rss_mib(self) -> float:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
        return 0.0

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def _call_p50(cmd: list[str], cwd: str) -> tuple[float, float]:
    c = Client(cmd, cwd)
    try:
        c.start()
        args = {"name": "search_docs", "arguments": {"query": "install"}}
        for _ in range(50):  # warm up (jsonschema import, caches)
            c.request("tools/call", args)
        times = []
        for _ in range(CALLS):
            t0 = time.perf_counter()
            c.request("tools/call", args)
            times.append(time.perf_counter() - t0)
        return statistics.median(times), c.peak_rss_mib()
    finally:
        c.close()


def _first_list(cmd: list[str], cwd: str, env: dict[str, str] | None = None) -> float:
    times = []
    for _ in range(STARTS):
        t0 = time.perf_counter()
        c = Client(cmd, cwd, env)
        try:
            c.start()
            c.request("tools/list")
            times.append(time.perf_counter() - t0)
        finally:
            c.close()
    return statistics.median(times)


def guard_rows(mcplock: str) -> list[tuple[str, str, str, str]]:
    work = tempfile.mkdtemp(prefix="mcplock-guard-bench-")
    try:
        upstream = locked_fixture(mcplock, work)
        guarded = [mcplock, "run", "docs"]
        direct_p50, _ = _call_p50(upstream, work)
        guard_p50, guard_rss = _call_p50(guarded, work)
        direct_first = _first_list(upstream, work)
        guard_first = _first_list(guarded, work)
        big = _big_project(mcplock, Path(work))
        big_first = _first_list(guarded, big)  # the first start reads the lock whole, the others its entry
        whole_first = _first_list(guarded, big, {**os.environ, "MCPLOCK_LOCK_CACHE": "0"})
    finally:
        shutil.rmtree(work, ignore_errors=True)
    over = (guard_p50 - direct_p50) * 1000
    beyond = (guard_first - direct_first) * 1000
    return [
        (
            f"`tools/call` round trip, direct to the fixture server (p50 of {CALLS})",
            f"{direct_p50 * 1000:.3f} ms",
            "",
            "baseline",
        ),
        (
            "the same through `mcplock run` (policy check, local jsonschema validation, relay)",
            f"{guard_p50 * 1000:.3f} ms",
            f"{guard_rss:.0f} MiB",
            f"+{over:.3f} ms per call (target ≤ 0.10 ms)",
        ),
        ("spawn → first `tools/list` answer, direct", f"{direct_first * 1000:.0f} ms", "", "baseline"),
        (
            "spawn → first `tools/list` answer through `mcplock run` (start-up + verification of every list)",
            f"{guard_first * 1000:.0f} ms",
            "",
            f"+{beyond:.0f} ms (target ≤ 100 ms)",
        ),
        (
            "the same, the server locked beside 4 others with 2,000 tools in all (1.8 MB): its part of the lock "
            "remembered",
            f"{big_first * 1000:.0f} ms",
            "",
            f"+{(big_first - direct_first) * 1000:.0f} ms",
        ),
        (
            "the same, the lock read whole every time (`MCPLOCK_LOCK_CACHE=0`)",
            f"{whole_first * 1000:.0f} ms",
            "",
            f"+{(whole_first - direct_first) * 1000:.0f} ms",
        ),
    ]


def _big_project(mcplock: str, work: Path) -> str:
    """``work``'s lock with 4 more servers (2,000 tools) beside it, in a project of its own (trusted)."""
    from mcplock.lock import store
    from mcplock.lock.read import load

    from run import make_big_lock

    big = work / "big"
    make_big_lock(big / "others.lock")
    lock = load(work / "mcp.lock")
    lock.servers.update(load(big / "others.lock").servers)
    store.save(lock, str(big / "mcp.lock"))
    shutil.copy(work / "surface.json", big / "surface.json")
    subprocess.run([mcplock, "trust", "docs"], cwd=big, capture_output=True, check=True)
    return str(big)


# --- in-process: the guard's own work per call, and the event-loop turns it takes ------------------
#
# Wall-clock p50s need a quiet machine; CPU time in one process does not (much). Here host and
# server are played by plain fd callbacks in one event loop, the real Guard (HostIO on its stdin
# and stdout pipes, the stdio transport adopting a started server, as `mcplock run` has it)
# between them over real pipes; or, for the floor, a bare relay that parses and writes every line
# again. Per call: the thread's CPU time (p50 and minimum of CALLS calls, each sent in the
# callback that read the previous answer) and the event-loop turns (`_run_once`) and callbacks run.
# The host and the server take one turn each per call, so the guard's own turns are the rest.

SEARCH_DOCS = {
    "name": "search_docs",
    "description": "Search the team documentation and return the titles and ids of matching pages.",
    "inputSchema": {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "Words to search for", "minLength": 1},
            "limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 10},
        },
        "required": ["query"],
        "additionalProperties": False,
    },
    "annotations": {"title": "Search docs", "readOnlyHint": True, "openWorldHint": False},
}
FOUND = {"content": [{"type": "text", "text": "3 pages: install (12), install-windows (14), upgrade (20)"}]}


def _lines_of(fd: int, buf: bytearray) -> list[bytes]:
    buf += os.read(fd, 65536)
    *lines, rest = bytes(buf).split(b"\n")
    buf[:] = rest
    return lines


class _Server:
    """The upstream, in a reader callback: answers `initialize`, `tools/list`, `tools/call`."""

    def __init__(self, loop: Any, rfd: int, wfd: int) -> None:
        self.rfd, self.wfd, self.buf = rfd, wfd, bytearray()
        os.set_blocking(rfd, False)
        loop.add_reader(rfd, self.readable)

    def readable(self) -> None:
        for line in _lines_of(self.rfd, self.buf):
            msg = json.loads(line)
            method = msg.get("method")
            if "id" not in msg or method is None:
                continue
            res = {
                "initialize": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {"tools": {}},
                    "serverInfo": INIT["clientInfo"],
                },
                "tools/list": {"tools": [SEARCH_DOCS]},
                "tools/call": FOUND,
            }.get(method)
            answer = {"result": res} if res is not None else {"error": {"code": -32601, "message": "Method not found"}}
            os.write(self.wfd, json.dumps({"jsonrpc": "2.0", "id": msg["id"], **answer}).encode() + b"\n")


class _Host:
    """The host, in a reader callback: each answer goes to ``on_answer``."""

    def __init__(self, loop: Any, rfd: int, wfd: int) -> None:
        self.rfd, self.wfd, self.buf, self.next_id = rfd, wfd, bytearray(), 0
        self.on_answer: Any = None
        os.set_blocking(rfd, False)
        loop.add_reader(rfd, self.readable)

    def send(self, method: str, params: dict | None = None) -> None:
        self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": self.next_id, "method": method, **({"params": params} if params else {})}
        os.write(self.wfd, json.dumps(msg).encode() + b"\n")

    def readable(self) -> None:
        for line in _lines_of(self.rfd, self.buf):
            self.on_answer(json.loads(line))


class _Relay:
    """The floor: every line parsed and written again, both ways, in the read callback."""

    def __init__(self, loop: Any, host_r: int, host_w: int, up_w: int, up_r: int) -> None:
        self.bufs = {host_r: bytearray(), up_r: bytearray()}
        for r, w in ((host_r, up_w), (up_r, host_w)):
            os.set_blocking(r, False)
            loop.add_reader(r, self.pump, r, w)

    def pump(self, r: int, w: int) -> None:
        for line in _lines_of(r, self.bufs[r]):
            os.write(w, (json.dumps(json.loads(line), separators=(",", ":"), ensure_ascii=False) + "\n").encode())


class _Started:
    """A server as the guard's early start hands it over (subprocess.Popen's part the stdio
    transport adopts): the pipes are the harness's, the process a sleeping child (what the
    transport watches for an exit and kills at the end)."""

    def __init__(self, stdin: Any, stdout: Any, stderr: Any) -> None:
        self.child = subprocess.Popen(["sleep", "3600"], start_new_session=True, stdin=subprocess.DEVNULL)
        self.pid, self.returncode = self.child.pid, None
        self.stdin, self.stdout, self.stderr = stdin, stdout, stderr

    def poll(self) -> int | None:
        return self.child.poll()

    def wait(self, timeout: float | None = None) -> int:
        return self.child.wait(timeout)


def _docs_entry() -> Any:
    from mcplock.lock import review
    from mcplock.lock.model import ServerEntry
    from mcplock.lock.spec import ServerSpec
    from mcplock.model.snapshot import Snapshot

    entry = ServerEntry(name="docs", spec=ServerSpec("docs", transport="stdio", command="docs"), policy="none")
    review.stage(
        entry,
        Snapshot(server_info={"name": "docs", "version": "1"}, protocol_version="2025-11-25", tools=[SEARCH_DOCS]),
    )
    for e in list(entry.entries()):
        review.accept(entry, e)
    return entry


async def _in_process(mode: str, calls: int) -> dict[str, float]:
    import asyncio
    from asyncio import events

    loop = asyncio.get_running_loop()
    turns = [0, 0]  # loop iterations, callbacks run
    run_once, handle_run = loop._run_once, events.Handle._run  # type: ignore[attr-defined]

    def counted_turn() -> None:
        turns[0] += 1
        run_once()

    def counted_run(handle: Any) -> None:
        turns[1] += 1
        handle_run(handle)

    loop._run_once = counted_turn  # type: ignore[attr-defined]
    events.Handle._run = counted_run  # type: ignore[method-assign]
    (h_in_r, h_in_w), (h_out_r, h_out_w), (s_in_r, s_in_w), (s_out_r, s_out_w), (s_err_r, _) = (
        os.pipe() for _ in range(5)
    )
    _Server(loop, s_in_r, s_out_w)
    host = _Host(loop, h_out_r, h_in_w)
    guard = started = None
    if mode == "guard":
        from mcplock.guard.guard import Guard
        from mcplock.guard.hostio import HostIO
        from mcplock.probe import ProbeOptions

        entry = _docs_entry()
        pipes = (os.fdopen(fd, mode, buffering=0) for fd, mode in ((s_in_w, "wb"), (s_out_r, "rb"), (s_err_r, "rb")))
        started = _Started(*pipes)
        guard = Guard(
            entry,
            entry.spec,
            ProbeOptions(timeout=10.0),
            lockfile=os.devnull,
            io=HostIO(h_in_r, h_out_w),
            started=started,
        )  # type: ignore[arg-type]
        task = asyncio.ensure_future(guard.run())
    else:
        _Relay(loop, h_in_r, h_out_w, s_in_w, s_out_r)
    answers: asyncio.Queue[dict] = asyncio.Queue()
    host.on_answer = answers.put_nowait
    host.send("initialize", INIT)
    await answers.get()
    os.write(h_in_w, b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    host.send("tools/list")
    await answers.get()
    call = {"name": "search_docs", "arguments": {"query": "install"}}
    for _ in range(200):  # warm up (jsonschema, caches)
        host.send("tools/call", call)
        assert (await answers.get()).get("result") == FOUND
    cpu: list[int] = []
    done = loop.create_future()
    clock = time.thread_time_ns
    last = [0]

    def chain(msg: dict) -> None:  # the next call, sent in the callback that read this answer
        now = clock()
        cpu.append(now - last[0])
        if len(cpu) == calls:
            done.set_result(None)
            return
        last[0] = clock()
        host.send("tools/call", call)

    host.on_answer = chain
    turns0, callbacks0 = turns
    last[0] = clock()
    host.send("tools/call", call)
    await done
    n_turns, n_callbacks = turns[0] - turns0, turns[1] - callbacks0
    if guard is not None and started is not None:
        started.child.kill()
        os.close(h_in_w)  # the host leaves: the guard ends its session
        with contextlib.suppress(Exception):
            await asyncio.wait_for(task, 10)
    loop._run_once = run_once  # type: ignore[attr-defined]
    events.Handle._run = handle_run  # type: ignore[method-assign]
    cpu.sort()
    return {
        "cpu_p50": cpu[len(cpu) // 2] / 1000,
        "cpu_min": cpu[0] / 1000,
        "turns": n_turns / calls,
        "callbacks": n_callbacks / calls,
    }


def in_process_rows(calls: int = 5000) -> list[str]:
    import asyncio

    out = [f"in-process, {calls} calls, load average {os.getloadavg()[0]:.1f}"]
    for mode in ("relay", "guard"):
        r = asyncio.run(_in_process(mode, calls))
        out.append(
            f"{mode:>5}: CPU per call p50 {r['cpu_p50']:.1f} µs (min {r['cpu_min']:.1f}); "
            f"{r['turns']:.2f} event-loop turns and {r['callbacks']:.2f} callbacks per call"
        )
    return out


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from _home import as_installed, isolate

    if sys.argv[1:2] == ["--in-process"]:  # the guard's own CPU time and event-loop turns per call
        print("\n".join(in_process_rows(int(sys.argv[2]) if len(sys.argv) > 2 else 5000)))
        raise SystemExit(0)
    isolate()
    as_installed()  # an installed mcplock has its .pyc files (docs/performance.md)
    bin_dir = Path(sys.executable).parent
    rows = guard_rows(os.environ.get("MCPLOCK", str(bin_dir / "mcplock")))
    print("| what | time | peak RSS | overhead |\n|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
