"""stdio transport: a child process speaking newline-delimited JSON-RPC.

The child runs in its own session (process group), so that closing it kills its
children too (``npx`` → ``node``). Cleanup always ends with SIGKILL to the group.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import signal
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mcplock.errors import ProbeError
from mcplock.lock.spec import ServerSpec
from mcplock.probe._common import (
    OnDone,
    PendingRequests,
    State,
    TailBuffer,
    answer_server_request,
    is_jsonrpc,
    is_response,
    is_server_request,
    size_limit_hint,
)
from mcplock.probe._json import INVALID_JSON_HINT, BadConstant, bad_constant_message, dumps, loads
from mcplock.probe._pipes import Adopted, Lines, adopt, spawn
from mcplock.probe._stdio_errors import silent, stopped
from mcplock.probe.launch import stdio_launch
from mcplock.text.untrusted import sanitize

if TYPE_CHECKING:
    import subprocess

    from mcplock.probe.options import ProbeOptions

# Process groups still alive, killed by probe_many / at exit if a cleanup was cut short.
LIVE_GROUPS: set[int] = set()

_EXIT_GRACE = 0.5  # after closing stdin
_TERM_GRACE = 1.0  # after SIGTERM
# Write at once (no drain, no lock) while the pipe's unsent buffer is below this.
_WRITE_NOW_BELOW = 65536


def kill_group(pgid: int, sig: int = signal.SIGKILL) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError, OSError):
        os.killpg(pgid, sig)


def kill_all_live() -> None:
    for pgid in list(LIVE_GROUPS):
        kill_group(pgid)
        LIVE_GROUPS.discard(pgid)


class _Gone(Exception):
    """stdout closed: the server process is gone (or closed its stdout)."""


class StdioTransport(PendingRequests):
    def __init__(
        self, spec: ServerSpec, opts: ProbeOptions, environ: Any, *, started: subprocess.Popen[bytes] | None = None
    ) -> None:
        self.spec = spec
        self.opts = opts
        self.environ = environ
        self.state = State()
        self.stderr = TailBuffer()
        self.proc: asyncio.subprocess.Process | Adopted | None = None
        self.started = started  # a child started early from this spec, adopted by start() (probe.launch)
        self._init_requests()
        self._tasks: list[asyncio.Task[None]] = []
        self._stdout_done = asyncio.Event()
        self._stderr_done = asyncio.Event()
        self._write_lock = asyncio.Lock()
        self._writers = 0  # senders waiting for the write lock (a write now would overtake them)
        self._lines = Lines(
            opts.max_response_bytes, self._stdout_line, self._stdout_too_large, self._stdout_end, released=False
        )
        self._closing = False

    # --- lifecycle -------------------------------------------------------------------------

    async def start(self) -> None:
        spec = self.spec
        self.state.step = f"`{spec.command}` to start"
        limit = self.opts.max_response_bytes + 2
        if self.started is not None:  # started before the event loop, from the same spec (the guard)
            started, self.started = self.started, None
            self.proc = await adopt(self._lines, started, limit=limit)
            self._begin()
            return
        launch = stdio_launch(spec, self.environ)  # the minimal environment, never mcplock's whole one
        command = launch.command
        try:
            self.proc = await spawn(
                self._lines, command, launch.args, limit=limit, env=launch.env, cwd=launch.cwd, start_new_session=True
            )
        except FileNotFoundError:
            raise ProbeError(
                "command-not-found",
                f"command `{spec.command}` not found",
                hint=f"install it, or make sure the directory that holds `{os.path.basename(command) or command}` "
                "is on PATH (GUI apps and CI often have a shorter PATH than your shell)",
            ) from None
        except PermissionError:
            raise ProbeError(
                "not-found",
                f"command `{spec.command}` is not executable (permission denied)",
                hint=f"check the file's permissions: chmod +x {shlex.quote(command)}",
            ) from None
        except OSError as e:
            raise ProbeError("spawn", f"could not start `{spec.command}`: {sanitize(e.strerror or str(e))}") from None
        self._begin()

    def _begin(self) -> None:
        assert self.proc is not None
        LIVE_GROUPS.add(self.proc.pid)
        self._tasks.append(asyncio.create_task(self._read_stderr()))
        self._lines.release()  # stdout lines are handled in the read callback (no reader task)

    async def close(self) -> None:
        proc = self.proc
        if proc is None:
            return
        pgid = proc.pid
        self._closing = True
        try:
            if proc.stdin is not None and not proc.stdin.is_closing():
                with contextlib.suppress(Exception):
                    proc.stdin.close()
            if proc.returncode is None:
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(proc.wait(), _EXIT_GRACE)
            if proc.returncode is None:
                kill_group(pgid, signal.SIGTERM)
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(proc.wait(), _TERM_GRACE)
        finally:
            # Whatever happened above (even a second cancel): the whole group dies.
            kill_group(pgid, signal.SIGKILL)
            LIVE_GROUPS.discard(pgid)
            for task in self._tasks:
                task.cancel()
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(proc.wait(), 2.0)
            with contextlib.suppress(BaseException):
                await asyncio.gather(*self._tasks, return_exceptions=True)
            transport = getattr(proc, "_transport", None)
            if transport is not None:
                with contextlib.suppress(Exception):
                    transport.close()

    def set_protocol_version(self, version: str) -> None:
        pass

    # --- messages -----------------------------------------------------------------------

    async def _send(self, msg: dict[str, Any]) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        data = (dumps(msg) + "\n").encode("utf-8")
        self._writers += 1
        try:
            await self._write_lock.acquire()
        finally:
            self._writers -= 1
        try:
            try:
                self.proc.stdin.write(data)
                await self.proc.stdin.drain()
            except (BrokenPipeError, ConnectionResetError, RuntimeError):
                raise _Gone() from None
        finally:
            self._write_lock.release()

    def _writable_now(self) -> asyncio.StreamWriter | None:
        """The child's stdin when nothing waits to be written before a new message and the pipe
        takes it without waiting (its unsent buffer is small): a write now keeps the order and
        needs no drain. None: write through :meth:`send_message`."""
        stdin = self.proc.stdin if self.proc is not None else None
        if (
            self._failure is None
            and stdin is not None
            and not self._writers
            and not stdin.is_closing()
            and stdin.transport.get_write_buffer_size() < _WRITE_NOW_BELOW
        ):
            return stdin
        return None

    def write_now(self, msg: dict[str, Any]) -> bool:
        """Write one message (a notification, a reply) at once; False: use :meth:`send_message`."""
        stdin = self._writable_now()
        if stdin is None:
            return False
        stdin.write((dumps(msg) + "\n").encode("utf-8"))
        return True

    def request_now(
        self, method: str, params: dict[str, Any] | None, on_done: OnDone | None = None
    ) -> tuple[int, asyncio.Future[Any]] | None:
        """:meth:`request` without a task: the request is written already; its id and the
        future of the answer (``on_done`` hears it end: in the read callback that brought the
        answer). None when it cannot be written at once (use :meth:`request`)."""
        stdin = self._writable_now()
        if stdin is None:
            return None
        rid, msg, fut = self._new_request(method, params)
        stdin.write((dumps(msg) + "\n").encode("utf-8"))  # the server starts on it while the guard goes on
        self._watch_now(rid, method, fut, on_done)
        return rid, fut

    async def request(
        self, method: str, params: dict[str, Any] | None, on_id: Callable[[int], None] | None = None
    ) -> dict[str, Any]:
        rid, msg, fut = self._new_request(method, params)
        if on_id is not None:
            on_id(rid)
        try:
            try:
                await self._send(msg)
            except _Gone:
                await self._stdout_done.wait()
                raise await self._gone_error() from None
            return await fut
        finally:
            self._finish(rid, method)

    async def notify(self, method: str, params: dict[str, Any] | None) -> None:
        msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        await self.send_message(msg)

    async def send_message(self, msg: dict[str, Any]) -> None:
        """Send one message as it is (a notification, or a reply to a server request)."""
        if self._failure is not None:
            raise self._failure
        try:
            await self._send(msg)
        except _Gone:
            await self._stdout_done.wait()
            raise await self._gone_error() from None

    def _stdout_line(self, line: bytes) -> None:
        try:
            self._handle_line(line)
        except Exception as e:  # pragma: no cover - defensive
            self._lines.stop()
            self._fail(ProbeError("protocol", f"reading the server's stdout failed: {sanitize(str(e))}"))
            self._stdout_done.set()

    def _stdout_too_large(self) -> bool:
        self._fail(self._too_large())
        self._stdout_done.set()
        return False  # stop reading

    def _stdout_end(self) -> None:
        """EOF: the server exited or closed stdout."""
        self._stdout_done.set()
        if not self._closing:
            self._tasks.append(asyncio.create_task(self._gone()))

    async def _gone(self) -> None:
        self._fail(await self._gone_error())

    def _too_large(self) -> ProbeError:
        return ProbeError(
            "too-large",
            f"server `{self.spec.name}` sent a message larger than {self.opts.max_response_bytes} bytes "
            f"(while waiting for {self.state.step.removeprefix('the answer to ')})",
            hint=size_limit_hint(self.opts.max_response_bytes),
        )

    def _handle_line(self, raw: bytes) -> None:
        try:
            text = raw.decode("utf-8").rstrip("\r\n")
        except UnicodeDecodeError:
            text = raw.decode("utf-8", errors="replace").rstrip("\r\n")
            if '"jsonrpc"' in text:
                self._fail(ProbeError("protocol", "the server sent a JSON-RPC message that is not valid UTF-8"))
            else:
                self.state.skip(text)
            return
        if not text.strip():
            return
        try:
            obj = loads(text)
        except BadConstant as e:
            if '"jsonrpc"' in text:
                self._fail(ProbeError("protocol", bad_constant_message(text, e), hint=INVALID_JSON_HINT))
                return
            self.state.skip(text)
            return
        except ValueError:
            self.state.skip(text)
            return
        if isinstance(obj, list) and any(is_jsonrpc(m) for m in obj):
            self._batch(obj)
            return
        if not is_jsonrpc(obj):
            self.state.skip(text)
            return
        self.state.valid_messages += 1
        self._dispatch(obj, self._answer)

    def _batch(self, msgs: list[Any]) -> None:
        """A JSON-RPC batch (an array) on stdout. An answer to one of our requests in a batch is
        a protocol error at once (JSON-RPC answers a single request with a single object; mcplock
        never sends batches), not a wait for the timeout; requests in it are answered."""
        self.state.valid_messages += 1
        if self.on_message is not None:  # a long-lived session drops a batch, and says so
            self.on_message(msgs)  # a batch: the session drops it and says so
            return
        if any(is_jsonrpc(m) and is_response(m) for m in msgs):
            self._fail(
                ProbeError(
                    "protocol",
                    f"server `{self.spec.name}` answered a single request with a JSON-RPC batch (a JSON array "
                    f"of {len(msgs)} message{'s' if len(msgs) != 1 else ''}); JSON-RPC answers a single request "
                    "with a single response object",
                    hint="report it to the server's maintainers (MCP has no batches since 2025-06-18)",
                )
            )
            return
        for m in msgs:
            if is_jsonrpc(m) and is_server_request(m):
                self._background(self._answer(m))

    async def _answer(self, req: dict[str, Any]) -> None:
        with contextlib.suppress(Exception):
            await self._send(answer_server_request(req))

    async def _read_stderr(self) -> None:
        assert self.proc is not None and self.proc.stderr is not None
        err = self.proc.stderr
        try:
            while True:
                chunk = await err.read(65536)
                if not chunk:
                    break
                self.stderr.feed(chunk)
        finally:
            self._stderr_done.set()

    async def _gone_error(self) -> ProbeError:
        proc = self.proc
        assert proc is not None
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(proc.wait(), 1.0)
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self._stderr_done.wait(), 0.5)
        return stopped(self.spec.name, self.state, proc.returncode, self.stderr.text())

    def stderr_tail(self) -> str:
        return self.stderr.text()

    def timeout_error(self, timeout: float) -> ProbeError:
        return silent(self.spec.name, self.state, timeout, self.stderr.text())
