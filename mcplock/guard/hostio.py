"""The host side of the guard: newline-delimited JSON-RPC on stdin/stdout.

Lines are split on ``\\n`` only (U+2028 inside a string is not a line end); a line that is
not JSON gets a JSON-RPC parse error and the session goes on; stdout carries nothing but
JSON-RPC messages.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import select
import sys
from collections.abc import AsyncIterator
from typing import Any

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
SERVER_ERROR = -32000  # the upstream failed (unreachable, exited, timed out)


def error(rid: Any, code: int, message: str, data: Any = None) -> dict[str, Any]:
    err: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        err["data"] = data
    return {"jsonrpc": "2.0", "id": rid, "error": err}


def result(rid: Any, value: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "result": value}


class HostIO:
    """Reads the host's messages from a file descriptor and writes ours to another."""

    def __init__(self, infd: int | None = None, outfd: int | None = None, limit: int = 16 * 1024 * 1024) -> None:
        self.infd = sys.stdin.fileno() if infd is None else infd
        self.outfd = sys.stdout.fileno() if outfd is None else outfd
        self.limit = limit
        self._reader: asyncio.StreamReader | None = None
        self._transport: asyncio.BaseTransport | None = None

    async def _open(self) -> asyncio.StreamReader:
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader(limit=self.limit + 2)
        try:
            self._transport, _ = await loop.connect_read_pipe(
                lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(self.infd, "rb", buffering=0, closefd=False))
        except (ValueError, OSError):  # a regular file (tests, `< file`): feed it from a thread
            asyncio.get_running_loop().run_in_executor(None, self._feed, reader, loop)
        return reader

    def _feed(self, reader: asyncio.StreamReader, loop: asyncio.AbstractEventLoop) -> None:
        try:
            while chunk := os.read(self.infd, 65536):
                loop.call_soon_threadsafe(reader.feed_data, chunk)
        except OSError:
            pass
        finally:
            loop.call_soon_threadsafe(reader.feed_eof)

    async def messages(self) -> AsyncIterator[Any]:
        """Each message as ``(message, None)``, or ``(None, error)`` for bad input (send it back)."""
        reader = self._reader = await self._open()
        while True:
            try:
                line = await reader.readuntil(b"\n")
            except asyncio.IncompleteReadError as e:
                line = e.partial
                if not line.strip():
                    return
            except asyncio.LimitOverrunError:
                yield None, error(None, INVALID_REQUEST, f"message larger than {self.limit} bytes")
                await _skip_line(reader)
                continue
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except ValueError:
                yield None, error(None, PARSE_ERROR, "Parse error: the line is not JSON")
                continue
            if not isinstance(obj, dict) or obj.get("jsonrpc") != "2.0" or not ("method" in obj or "id" in obj):
                rid = obj.get("id") if isinstance(obj, dict) else None
                yield None, error(rid if isinstance(rid, (str, int)) else None, INVALID_REQUEST,
                                  "Invalid Request: not a JSON-RPC 2.0 message")
                continue
            yield obj, None

    def send(self, msg: dict[str, Any]) -> None:
        data = (json.dumps(msg, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
        while data:
            try:
                n = os.write(self.outfd, data)
            except BlockingIOError:  # pragma: no cover - a non-blocking stdout: wait for it
                select.select([], [self.outfd], [])
                continue
            except OSError:
                return  # the host is gone: reading stdin ends the session
            data = data[n:]

    def close(self) -> None:
        if self._transport is not None:
            with contextlib.suppress(Exception):
                self._transport.close()


async def _skip_line(reader: asyncio.StreamReader) -> None:
    """Drop the rest of an over-long line."""
    while True:
        try:
            await reader.readuntil(b"\n")
            return
        except asyncio.LimitOverrunError as e:
            await reader.readexactly(e.consumed)
        except asyncio.IncompleteReadError:
            return
