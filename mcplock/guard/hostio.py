"""The host side of the guard: newline-delimited JSON-RPC on stdin/stdout.

Lines are split on ``\\n`` only (U+2028 inside a string is not a line end); a line that is
not JSON (NaN, Infinity, not UTF-8) gets a JSON-RPC parse error, one that is not a well-formed
message (:mod:`mcplock.guard.wellformed`: an id that is an array, a ``method`` that is not a
string, a lone surrogate in a string) ``Invalid Request`` with its id where it has a usable one,
and the session goes on; stdout carries nothing but JSON-RPC messages.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import select
import sys
from collections.abc import Callable
from typing import Any

from mcplock.guard.wellformed import SURROGATE_ESCAPE, is_id, shape
from mcplock.probe.transport import READ_SIZE, BadConstant, Lines, LinesProtocol, dumps, loads

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
SERVER_ERROR = -32000  # the upstream failed (unreachable, exited, timed out)


def error(rid: Any, code: int, message: str, data: Any = None) -> dict[str, Any]:
    err: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        err["data"] = data
    return {"jsonrpc": "2.0", "id": rid, "error": err}


def result(rid: Any, value: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "result": value}


OnMessage = Callable[[dict[str, Any]], None]


def _loose_id(line: bytes) -> Any:
    """The id of a request the strict parser refused (NaN in it), when it has a usable one."""
    try:
        obj = json.loads(line)
    except (ValueError, RecursionError):
        return None
    rid = obj.get("id") if isinstance(obj, dict) else None
    return rid if is_id(rid) and rid == rid else None


def _encodable(obj: Any) -> bool:
    try:
        dumps(obj).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class HostIO:
    """Reads the host's messages from a file descriptor and writes ours to another.

    :meth:`start` hands every message to ``on_message`` as soon as its line is complete, in
    the read callback itself (no task per message); bad input is answered here.
    """

    def __init__(self, infd: int | None = None, outfd: int | None = None, limit: int = 16 * 1024 * 1024) -> None:
        self.infd = sys.stdin.fileno() if infd is None else infd
        self.outfd = sys.stdout.fileno() if outfd is None else outfd
        self.limit = limit
        self._transport: asyncio.ReadTransport | None = None
        self._on_message: OnMessage = lambda _m: None
        self._on_end: Callable[[], None] = lambda: None
        self.on_drop: Callable[[str], None] = lambda _why: None  # a message from the server not sent, and why
        self.lines = Lines(limit, self._line, self._too_large, lambda: self._on_end())
        self.abandoned = False  # the guard is ending (a signal): nothing more is written to the host

    async def start(
        self,
        on_message: OnMessage,
        on_end: Callable[[], None],
        prefix: bytes = b"",
        on_drop: Callable[[str], None] | None = None,
    ) -> None:
        """Read stdin from now on: each message to ``on_message``, ``on_end`` once it closes
        (``prefix``: what was read of it before, handed over first; ``on_drop``: hears a message
        from the server that could not be sent, and why)."""
        self._on_message, self._on_end = on_message, on_end
        if on_drop is not None:
            self.on_drop = on_drop
        if prefix:
            self.lines.feed(prefix)
        loop = asyncio.get_running_loop()
        try:
            self._transport, _ = await loop.connect_read_pipe(
                lambda: LinesProtocol(self.lines), os.fdopen(self.infd, "rb", buffering=0, closefd=False)
            )
            self._transport.max_size = READ_SIZE  # type: ignore[attr-defined]  # asyncio's read size: not public
        except (ValueError, OSError):  # a regular file (tests, `< file`): feed it from a thread
            loop.run_in_executor(None, self._read_file, loop)

    def _read_file(self, loop: asyncio.AbstractEventLoop) -> None:
        try:
            while chunk := os.read(self.infd, READ_SIZE):
                loop.call_soon_threadsafe(self.lines.feed, chunk)
        except OSError:
            pass
        finally:
            loop.call_soon_threadsafe(self.lines.eof)

    def _too_large(self) -> bool:
        self.send(error(None, INVALID_REQUEST, f"message larger than {self.limit} bytes"))
        return True  # skip the line, go on

    def _line(self, line: bytes) -> None:
        try:
            obj = loads(line.decode("utf-8"))
        except BadConstant:
            self.send(error(_loose_id(line), PARSE_ERROR, "Parse error: NaN and Infinity are not JSON"))
            return
        except (ValueError, RecursionError):
            if line.strip():
                self.send(error(None, PARSE_ERROR, "Parse error: the line is not JSON"))
            return
        kind, why = shape(obj)
        if not kind:
            rid = obj.get("id") if isinstance(obj, dict) else None
            self.send(error(rid if is_id(rid) else None, INVALID_REQUEST, f"Invalid Request: {why}"))
            return
        if SURROGATE_ESCAPE.search(line) is not None and not _encodable(obj):
            self.send(
                error(
                    obj.get("id"),
                    INVALID_REQUEST,
                    "Invalid Request: a string holds a lone surrogate (\\ud800-\\udfff), which is not Unicode",
                )
            )
            return
        self._on_message(obj)

    def send(self, msg: dict[str, Any]) -> None:
        """Write one message; one that cannot be written as UTF-8 (a lone surrogate from the
        server) is replaced by an error when it answers the host, else dropped (``on_drop``)."""
        try:
            data = (dumps(msg) + "\n").encode("utf-8")
        except UnicodeEncodeError:
            if "method" not in msg and is_id(msg.get("id")):
                self.send(
                    error(
                        msg["id"],
                        SERVER_ERROR,
                        "mcplock: the server's answer holds a lone surrogate, which is not Unicode",
                    )
                )
            else:
                self.on_drop("a string holds a lone surrogate, which is not Unicode")
            return
        while data and not self.abandoned:
            try:
                n = os.write(self.outfd, data)
            except BlockingIOError:  # pragma: no cover - a non-blocking stdout: wait for it
                select.select([], [self.outfd], [])
                continue
            except OSError:
                return  # the host is gone: reading stdin ends the session
            except BaseException:  # a signal (SIGTERM) interrupted a write the host never reads
                self.abandon()
                raise
            data = data[n:]

    def abandon(self) -> None:
        """Write nothing more to the host: the guard is ending on a signal, and a host that
        stopped reading would otherwise block the clean-up in a pipe write for ever."""
        self.abandoned = True

    def close(self) -> None:
        self.lines.stop()
        if self._transport is not None:
            with contextlib.suppress(Exception):
                self._transport.close()
