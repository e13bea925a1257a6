"""A guard that cannot start its server still answers the host (docs/guard.md, "When the guard
refuses to start").

A host that launches ``mcplock run NAME`` and sees the process die shows at best "failed to
connect"; the reason is on stderr, which most hosts keep in a log nobody opens. So before it
exits, a guard refused by the lock (a teammate's fresh clone: the server is not trusted on this
machine yet; a hash that does not verify; a pin that does not match) reads the host's first
requests — ``initialize`` of a 2025-11-25 host, ``server/discover`` or any first request of a
2026-07-28 one — and answers each with a JSON-RPC error whose message says what happened and the
command that fixes it (``mcplock trust``). It stops at end of input, a few seconds after its last
answer, or when no request came at all. Nothing of the server runs; stdlib only (the guard's
fast start).
"""

from __future__ import annotations

import json
import os
import select
import sys
import time
from typing import Any, BinaryIO

#: JSON-RPC's range for a server's own errors: "the server did not start"
REFUSED = -32001
FIRST_WAIT = 10.0  # seconds for the host's first request
GRACE = 2.0  # after an answer: a host that falls back (server/discover, then initialize) gets its second one
MAX_BYTES = 1 << 22


def refusal_text(name: str, message: str, hint: str | None) -> str:
    from mcplock.text.untrusted import sanitize

    text = f"mcplock did not start `{name}`: {message.strip()}"
    if hint:
        text += f" — {hint}"
    text += "; then restart the server in your host"
    return sanitize(" ".join(text.split()), 2000)


def answer(
    name: str,
    message: str,
    hint: str | None,
    code: str,
    *,
    stdin: BinaryIO | None = None,
    stdout: BinaryIO | None = None,
    first_wait: float = FIRST_WAIT,
    grace: float = GRACE,
) -> int:
    """Answer every request on ``stdin`` with the refusal until the host stops asking; the number
    of requests answered."""
    if os.name == "nt":  # select() takes no pipes there: the stderr message is all a host gets
        return 0
    src = stdin if stdin is not None else sys.stdin.buffer
    dst = stdout if stdout is not None else sys.stdout.buffer
    fd = _host_fd(src)
    if fd is None:
        return 0
    text = refusal_text(name, message, hint)
    data = {"mcplock": {"code": code, "server": name, "hint": hint}}
    deadline = time.monotonic() + first_wait
    buf, seen, answered = b"", 0, 0
    while chunk := _next_chunk(fd, deadline - time.monotonic()):
        seen += len(chunk)
        if seen > MAX_BYTES:
            return answered
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            reply = _reply(line, text, data)
            if reply is None:
                continue
            try:
                dst.write(reply)
                dst.flush()
            except (OSError, ValueError):
                return answered
            answered += 1
            deadline = time.monotonic() + grace
    return answered


def _host_fd(src: BinaryIO) -> int | None:
    """The descriptor a host writes its requests to; None when nobody is there to answer (a
    person at a terminal reads the stderr message; a stream without a descriptor)."""
    try:
        fd = src.fileno()
        return None if os.isatty(fd) else fd
    except (OSError, ValueError, AttributeError):
        return None


def _next_chunk(fd: int, left: float) -> bytes:
    """What the host wrote next within ``left`` seconds; empty at its end, at the time's end, or
    when the descriptor cannot be read."""
    if left <= 0:
        return b""
    try:
        ready, _, _ = select.select([fd], [], [], left)
        return os.read(fd, 65536) if ready else b""
    except (OSError, ValueError):
        return b""


def _reply(line: bytes, text: str, data: dict[str, Any]) -> bytes | None:
    try:
        msg = json.loads(line)
    except ValueError:
        return None
    if not isinstance(msg, dict) or not isinstance(msg.get("method"), str) or msg.get("id") is None:
        return None  # a notification (or not a request): no answer
    if not isinstance(msg["id"], (str, int)) or isinstance(msg["id"], bool):
        return None
    error = {"code": REFUSED, "message": text, "data": data}
    return json.dumps({"jsonrpc": "2.0", "id": msg["id"], "error": error}, ensure_ascii=True).encode() + b"\n"
