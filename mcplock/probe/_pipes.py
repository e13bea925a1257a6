"""Pipes read by callbacks: a line splitter, and a child process whose stdout lines are
handed over as they arrive — started here (:func:`spawn`) or before the event loop existed
and handed to it (:func:`adopt`, the guard's early start).

asyncio's own subprocess protocol feeds stdout into a StreamReader that a task then reads
line by line: two event-loop turns and a wake-up per message. Here stdout goes to a
:class:`Lines` in the read callback itself (a spawned child's too: asyncio hands its pipes' bytes
on one turn later, see :class:`_StdoutNow`); stdin and stderr stay asyncio's streams. Pipes
are read 64 KiB at a time: asyncio reads 256 KiB, an allocation that costs an mmap/munmap
pair per read, and a Linux pipe holds 64 KiB by default anyway.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import subprocess

READ_SIZE = 65536


class Lines:
    """Splits a byte stream on ``\\n`` (only) and hands each line, newline included, to
    ``on_line`` in order. A line over ``limit`` bytes (its newline aside) goes to
    ``on_too_large``, whose True means "skip it and go on", False "stop reading". ``on_end``
    hears the end of the stream once (after a last line without its newline, if any), unless
    reading stopped. Nothing is handed over before :meth:`release`."""

    def __init__(
        self,
        limit: int,
        on_line: Callable[[bytes], None],
        on_too_large: Callable[[], bool],
        on_end: Callable[[], None],
        *,
        released: bool = True,
    ) -> None:
        self.limit = limit
        self.on_line = on_line
        self.on_too_large = on_too_large
        self.on_end = on_end
        self.stopped = False
        self._buf = bytearray()
        self._scanned = 0  # no newline before this offset of the buffer
        self._skipping = False
        self._released = released
        self._eof = False

    def stop(self) -> None:
        """Hand nothing more over (the reader failed or closed)."""
        self.stopped = True
        self._buf.clear()

    def release(self) -> None:
        """Start handing lines over (bytes that came before are handled now)."""
        self._released = True
        self.feed(b"")
        if self._eof:
            self.eof()

    def feed(self, data: bytes) -> None:
        if self.stopped:
            return
        if not self._buf and self._released and not self._skipping:  # nothing held over: lines straight from data
            start = 0
            while (nl := data.find(b"\n", start)) >= 0:
                if nl - start > self.limit:
                    if not self._too_large():
                        return
                else:
                    self.on_line(data[start : nl + 1])
                    if self.stopped:
                        return
                start = nl + 1
            if start == len(data):
                return
            data = data[start:]
            self._scanned = 0
        buf = self._buf
        buf += data
        if not self._released:
            return
        start = 0
        while (nl := buf.find(b"\n", self._scanned)) >= 0:
            self._scanned = nl + 1
            if self._skipping:
                self._skipping = False
            elif nl - start > self.limit:
                if not self._too_large():
                    return
            else:
                self.on_line(bytes(buf[start : nl + 1]))
                if self.stopped:
                    return
            start = nl + 1
        del buf[:start]
        self._scanned = len(buf)
        if len(buf) > self.limit:  # cannot become a line that fits any more
            if self._skipping:
                buf.clear()
            elif self._too_large():
                self._skipping = True
                buf.clear()
            self._scanned = 0

    def _too_large(self) -> bool:
        go_on = self.on_too_large()
        if not go_on:
            self.stop()
        return go_on

    def eof(self) -> None:
        if self.stopped:
            return
        if not self._released:
            self._eof = True
            return
        rest = bytes(self._buf)
        self._buf.clear()
        if rest and not self._skipping:
            self.on_line(rest)
        if not self.stopped:
            self.stopped = True
            self.on_end()


class ChildProtocol(asyncio.subprocess.SubprocessStreamProtocol):
    """asyncio's subprocess protocol with stdout going to ``lines`` instead of a reader."""

    def __init__(self, lines: Lines, limit: int, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(limit=limit, loop=loop)
        self.lines = lines

    def pipe_data_received(self, fd: int, data: bytes | str) -> None:
        if fd == 1:
            self.lines.feed(data)  # type: ignore[arg-type]  # a pipe delivers bytes (str only in text mode)
        else:
            super().pipe_data_received(fd, data)

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        if fd == 1:
            self.lines.eof()
        super().pipe_connection_lost(fd, exc)


async def spawn(
    lines: Lines, command: str, args: list[str], *, limit: int, **kwargs: Any
) -> asyncio.subprocess.Process:
    """``asyncio.create_subprocess_exec`` with all three pipes, stdout read into ``lines``."""
    loop = asyncio.get_running_loop()
    pipe = asyncio.subprocess.PIPE
    starting = asyncio.ensure_future(
        loop.subprocess_exec(
            lambda: ChildProtocol(lines, limit, loop), command, *args, stdin=pipe, stdout=pipe, stderr=pipe, **kwargs
        )
    )
    try:
        transport, protocol = await asyncio.shield(starting)
    except asyncio.CancelledError:
        # Cancelled (Ctrl-C) while the child starts. asyncio's own cleanup would kill the child
        # alone and then wait for its pipes to close, forever if a grandchild holds them (`sh -c`,
        # `npx` → `node`). Let the start finish, kill the whole group, then give up.
        with contextlib.suppress(BaseException):
            transport, _ = await starting
            pid = transport.get_pid()
            with contextlib.suppress(OSError):
                if kwargs.get("start_new_session"):
                    os.killpg(pid, signal.SIGKILL)
                else:
                    os.kill(pid, signal.SIGKILL)
            transport.close()
        raise
    for fd in (1, 2):
        with contextlib.suppress(Exception):
            transport.get_pipe_transport(fd).max_size = READ_SIZE  # type: ignore[union-attr]  # asyncio internal
    out = transport.get_pipe_transport(1)
    if out is not None:
        out.set_protocol(_StdoutNow(out.get_protocol(), lines))
    return asyncio.subprocess.Process(transport, protocol, loop)


class _StdoutNow(asyncio.Protocol):
    """A spawned child's stdout pipe, its bytes into ``lines`` in the read callback itself.
    asyncio's subprocess pipe protocol hands every chunk to the process protocol with
    ``call_soon``, one event-loop turn after the read (a turn per server message, on top of the
    read's own); what it does at the pipe's end (the process's bookkeeping, then
    :meth:`ChildProtocol.pipe_connection_lost`) stays its own: ``was`` hears it."""

    def __init__(self, was: asyncio.BaseProtocol, lines: Lines) -> None:
        self.was = was
        self.lines = lines

    def data_received(self, data: bytes) -> None:
        self.lines.feed(data)

    def connection_lost(self, exc: Exception | None) -> None:
        self.was.connection_lost(exc)


class LinesProtocol(asyncio.Protocol):
    """A read pipe's bytes into ``lines``, in the read callback (the guard's stdin too)."""

    def __init__(self, lines: Lines) -> None:
        self.lines = lines

    def data_received(self, data: bytes) -> None:
        self.lines.feed(data)

    def eof_received(self) -> bool:
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self.lines.eof()


class _WriteProtocol(asyncio.streams.FlowControlMixin):  # what asyncio's own subprocess stdin uses
    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(loop=loop)
        self._closed = loop.create_future()

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        if not self._closed.done():
            self._closed.set_result(None)

    def _get_close_waiter(self, stream: object) -> asyncio.Future[None]:
        return self._closed


class Adopted:
    """A child started before the event loop (:func:`mcplock.probe.launch.start_early`), driven
    like the :class:`asyncio.subprocess.Process` of :func:`spawn`: stdout read into ``lines``
    in the read callback, ``stdin`` a StreamWriter, ``stderr`` a StreamReader, :meth:`wait`.
    Its exit is seen through a pidfd (a thread that waits, where there is none)."""

    def __init__(self, popen: subprocess.Popen[bytes]) -> None:
        self.popen = popen
        self.pid = popen.pid
        self.stdin: asyncio.StreamWriter
        self.stderr: asyncio.StreamReader
        self._pipes: list[asyncio.BaseTransport] = []
        self._exited: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self._pidfd = -1
        self._transport = self  # what closing the process closes (as asyncio's Process has)

    @property
    def returncode(self) -> int | None:
        return self.popen.returncode

    async def wait(self) -> int:
        return await asyncio.shield(self._exited)

    def close(self) -> None:
        for t in self._pipes:
            t.close()
        self._stop_watching()

    def _reaped(self) -> None:
        code = self.popen.poll()
        if code is not None:
            self._stop_watching()
            if not self._exited.done():
                self._exited.set_result(code)

    def _stop_watching(self) -> None:
        if self._pidfd >= 0:
            with contextlib.suppress(Exception):
                asyncio.get_running_loop().remove_reader(self._pidfd)
            os.close(self._pidfd)
            self._pidfd = -1


async def adopt(lines: Lines, popen: subprocess.Popen[bytes], *, limit: int) -> Adopted:
    """Hand a running child's pipes to the event loop (see :class:`Adopted`)."""
    loop = asyncio.get_running_loop()
    proc = Adopted(popen)
    out, _ = await loop.connect_read_pipe(lambda: LinesProtocol(lines), popen.stdout)
    reader = asyncio.StreamReader(limit=limit, loop=loop)
    err, _ = await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader, loop=loop), popen.stderr)
    for t in (out, err):
        with contextlib.suppress(Exception):
            t.max_size = READ_SIZE  # type: ignore[attr-defined]  # asyncio's read size: not public
    inp, protocol = await loop.connect_write_pipe(lambda: _WriteProtocol(loop), popen.stdin)
    proc._pipes = [out, err, inp]
    proc.stdin = asyncio.StreamWriter(inp, protocol, None, loop)
    proc.stderr = reader
    try:
        proc._pidfd = os.pidfd_open(popen.pid)
    except (AttributeError, OSError):  # no pidfd (an old kernel, not Linux): a thread waits
        fut = loop.run_in_executor(None, popen.wait)

        def exited(f: asyncio.Future[int]) -> None:
            if not proc._exited.done():
                proc._exited.set_result(f.result())

        fut.add_done_callback(exited)
    else:
        loop.add_reader(proc._pidfd, proc._reaped)
        proc._reaped()  # it may have exited already
    return proc
