"""What the host gets for an upstream's answer or failure: the answer rebuilt around the host's
own id (``result`` or ``error``, nothing else), and a failure as a JSON-RPC error without the
server's stderr lines. Shared by the upstream side and the modern host side."""

from __future__ import annotations

from typing import Any

from mcplock.errors import ProbeError
from mcplock.guard.hostio import SERVER_ERROR, error
from mcplock.guard.wellformed import answer_fields, shape


def answer_for(rid: Any, resp: dict[str, Any]) -> dict[str, Any]:
    """The host's answer: its own id with the upstream's ``result`` or ``error`` (nothing else);
    an answer that is not a well-formed response (both, neither, a result that is not an object,
    an error without code and message) is an error, never its result."""
    fields = answer_fields(resp)
    if fields is None:
        return error(rid, SERVER_ERROR, f"mcplock: the server's answer was malformed ({shape(resp)[1]})")
    return {"jsonrpc": "2.0", "id": rid, **fields}


STDERR_MARK = "\nstderr (last lines):"  # where mcplock.probe._common.with_stderr starts the server's own lines
STDERR_ELSEWHERE = " (the server's stderr is on mcplock's stderr, never sent to the host)"


def for_host(message: str) -> str:
    """An error message as the host may see it: without the server's stderr lines. What a
    server writes on stderr is its own text, unreviewed, and the host may hand an error to the
    model; the person sees those lines on mcplock's stderr."""
    head, mark, _ = message.partition(STDERR_MARK)
    return head + STDERR_ELSEWHERE if mark else message


def failure_for(rid: Any, e: ProbeError) -> dict[str, Any]:
    return error(rid, SERVER_ERROR, f"mcplock: {for_host(e.message)}", {"kind": e.kind, "hint": e.hint})
