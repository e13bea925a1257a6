"""Shared pieces of the probe: JSON-RPC message shapes, text sanitizing, stderr capture, secret
scrubbing and the requests in flight (strict JSON: :mod:`mcplock.probe._json`). No I/O here."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from mcplock.errors import ProbeError
from mcplock.lock.spec import ServerSpec
from mcplock.lock.templates import expand, template_names
from mcplock.probe.era import with_envelope
from mcplock.text.untrusted import sanitize

# a server message that answers none of ours, parsed (a JSON-RPC object), or a batch as it came
# (a list: the receiver drops it and says so); the receiver checks its shape (guard/wellformed.py)
OnMessage = Callable[[dict[str, Any] | list[Any]], None]


def _run_now(callback: OnDone, fut: asyncio.Future[Any]) -> None:
    """``callback(fut)`` as the event loop would run a done callback: an error in it is the
    loop's to report, never the reader's (which would take it for a broken server)."""
    try:
        callback(fut)
    except Exception as e:
        fut.get_loop().call_exception_handler({"message": "a request's done callback failed", "exception": e})


def is_jsonrpc(obj: Any) -> bool:
    """A JSON-RPC 2.0 message (single object; batches are gone from MCP)."""
    return isinstance(obj, dict) and obj.get("jsonrpc") == "2.0" and ("method" in obj or "id" in obj)


def is_response(obj: dict[str, Any]) -> bool:
    return "method" not in obj and ("result" in obj or "error" in obj)


def is_server_request(obj: dict[str, Any]) -> bool:
    return "method" in obj and "id" in obj


def answer_server_request(req: Mapping[str, Any], why: str = "mcplock is probing definitions") -> dict[str, Any]:
    """Our reply to a request the server sends us, harmless: pong to ``ping``; for the
    capabilities a probe declares (:mod:`mcplock.model.client_capabilities`) no roots, sampling
    refused (``why`` says so), elicitation declined; else method not found."""
    method = req.get("method")
    if method == "ping":
        return {"jsonrpc": "2.0", "id": req.get("id"), "result": {}}
    if method == "roots/list":
        return {"jsonrpc": "2.0", "id": req.get("id"), "result": {"roots": []}}
    if method == "elicitation/create":
        return {"jsonrpc": "2.0", "id": req.get("id"), "result": {"action": "decline"}}
    if method == "sampling/createMessage":
        return {"jsonrpc": "2.0", "id": req.get("id"), "error": {"code": -1, "message": f"{why}: sampling declined"}}
    return {
        "jsonrpc": "2.0",
        "id": req.get("id"),
        "error": {"code": -32601, "message": "Method not found (mcplock only lists definitions)"},
    }


# --- text for messages ------------------------------------------------------------------


def size_limit_hint(max_bytes: int) -> str:
    """The hint of a message over the size limit (there is no option to raise it: it says so)."""
    return (
        f"mcplock reads at most {max_bytes // (1024 * 1024)} MiB per message, to stay safe from a server that "
        "floods it; a server that needs more is not supported: report it to its maintainers"
    )


def fmt_seconds(s: float) -> str:
    return f"{s:g}"


class TailBuffer:
    """The last lines of a stream (stderr): at most ``max_lines`` lines and ``max_bytes``."""

    def __init__(self, max_lines: int = 20, max_bytes: int = 4096) -> None:
        self.max_lines = max_lines
        self.max_bytes = max_bytes
        self._lines: deque[str] = deque(maxlen=max_lines)
        self._partial = ""

    def feed(self, chunk: bytes) -> None:
        text = self._partial + chunk.decode("utf-8", errors="replace")
        parts = text.split("\n")
        self._partial = parts.pop()[-self.max_bytes :]
        for line in parts:
            self._lines.append(line.rstrip("\r")[-self.max_bytes :])

    def text(self) -> str:
        lines = list(self._lines)
        if self._partial:
            lines.append(self._partial)
        out = "\n".join(lines).strip("\n")
        if len(out) > self.max_bytes:
            out = out[-self.max_bytes :]
            out = out.split("\n", 1)[1] if "\n" in out else out
        return out


def with_stderr(message: str, tail: str, max_lines: int = 20) -> str:
    """``message`` followed by the stderr tail, indented and sanitized."""
    if not tail.strip():
        return message
    lines = tail.splitlines()[-max_lines:]
    body = "\n".join("  | " + sanitize(line, 400) for line in lines)
    return f"{message}\nstderr (last lines):\n{body}"


# --- probe state --------------------------------------------------------------------------


IDLE = "the server's next message"  # the step of an open session between requests


@dataclass
class State:
    """What the probe is doing now, for timeout messages and stdio diagnostics."""

    step: str = "start"
    valid_messages: int = 0
    skipped_lines: list[str] = field(default_factory=list)
    skipped_count: int = 0
    in_flight: list[str] = field(default_factory=list)  # a long-lived session's requests, oldest first

    def skip(self, line: str, keep: int = 100) -> None:
        self.skipped_count += 1
        if len(self.skipped_lines) < keep:
            self.skipped_lines.append(line[:2000])

    def relaying(self, method: str) -> None:
        """A long-lived session sends ``method``: messages name it (unless the step already
        does, e.g. a list's page 2) until it is answered."""
        self.in_flight.append(method)
        if not self.step.startswith(f"the answer to {method}"):
            self.step = f"the answer to {method}"

    def relayed(self, method: str) -> None:
        """``method`` got its answer (or failed): messages name a request still in flight, or
        the server's next message."""
        if method in self.in_flight:
            self.in_flight.remove(method)
        self.step = f"the answer to {self.in_flight[-1]}" if self.in_flight else IDLE


class RpcError(Exception):
    """A JSON-RPC error response (translated to ProbeError ``rpc`` by the session)."""

    def __init__(self, code: Any, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data


def response_result(resp: dict[str, Any], method: str) -> Any:
    """The ``result`` of a response, or RpcError / ProbeError for an error or a bad shape."""
    if "error" in resp:
        err = resp["error"]
        if not isinstance(err, dict):
            raise ProbeError("protocol", f"{method}: the server sent an error response whose `error` is not an object")
        return_code = err.get("code")
        msg = err.get("message")
        raise RpcError(return_code, msg if isinstance(msg, str) else "", err.get("data"))
    if "result" not in resp:
        raise ProbeError("protocol", f"{method}: the server's response has neither `result` nor `error`")
    return resp["result"]


# --- secrets ------------------------------------------------------------------------------


def secret_values(spec: ServerSpec, environ: Mapping[str, str] | None) -> list[str]:
    """Every value a ``${VAR}`` in the spec expands to, plus host-config secrets.

    These must never appear in a message: errors are scrubbed with :func:`scrub`.
    """
    values: set[str] = {v for v in spec.secrets.values() if isinstance(v, str)}
    texts = [*spec.args, *spec.env.values(), *spec.headers.values()]
    if spec.url:
        texts.append(spec.url)
    if spec.command:
        texts.append(spec.command)
    for t in texts:
        for name in template_names(t):
            values.add(expand("${" + name + "}", environ, spec.secrets))
    # Whole expanded header values too ("Bearer abc" as well as "abc").
    for t in spec.headers.values():
        values.add(expand(t, environ, spec.secrets))
    return sorted((v for v in values if len(v) >= 4), key=len, reverse=True)


def scrub(text: str | None, secrets: list[str]) -> str | None:
    if not text:
        return text
    for s in secrets:
        if s in text:
            text = text.replace(s, "***")
    return text


def scrubbed(err: ProbeError, secrets: list[str]) -> ProbeError:
    """``err`` with every secret value replaced by ``***`` in its message and next action."""
    msg = scrub(err.message, secrets) or ""
    action = err.action.mapped(lambda t: scrub(t, secrets)) if err.action is not None else None
    if msg == err.message and action == err.action:
        return err
    return err.evolve(message=msg, action=action)


OnDone = Callable[["asyncio.Future[Any]"], None]  # hears a request written at once end (request_now)


class Defaults:
    """What a transport without the matching ability answers (:class:`mcplock.probe.transport.Connection`)."""

    def request_now(
        self, method: str, params: dict[str, Any] | None, on_done: OnDone | None = None
    ) -> tuple[int, asyncio.Future[Any]] | None:
        return None  # no write without a task: use request()

    def write_now(self, msg: dict[str, Any]) -> bool:
        return False  # use send_message()

    def stderr_tail(self) -> str:
        return ""  # no stderr stream (a remote server)

    def timeout_error(self, seconds: float) -> ProbeError | None:
        return None  # the generic account (mcplock.probe.transport.timed_out)


class PendingRequests(Defaults):
    """JSON-RPC requests awaiting answers read off a stream (stdio, legacy SSE).

    The transport's reader resolves ``_pending[id]``; :meth:`_fail` ends every waiting
    request at once. A failed future is marked retrieved, so asyncio never logs the raw
    error text (it may hold unscrubbed server output). A request written at once
    (:meth:`_watch_now`) hears its answer in the read callback that brought it, not one
    event-loop turn later as a future's done callback would (the guard's per-call path).
    """

    state: State
    _next_id: int
    _pending: dict[int, asyncio.Future[dict[str, Any]]]
    _failure: BaseException | None
    # A long-lived session (the guard) sets these: server requests and notifications go to
    # ``on_message`` instead of the probe's own answers; ``on_failure`` hears the end.
    on_message: OnMessage | None
    on_failure: Callable[[BaseException], None] | None
    # the modern era's per-request `_meta` fields (mcplock.probe.era.envelope), once the server spoke
    # 2026-07-28; None: a legacy session
    envelope: dict[str, Any] | None
    shares_one_channel = True  # every answer comes on one stream (stdio, legacy SSE): discover may go unanswered

    def _init_requests(self) -> None:
        self.envelope = None
        self.tools: dict[str, Any] = {}
        self._next_id = 0
        self._pending = {}
        self._now: dict[int, OnDone] = {}  # a request written at once -> what hears its end (_watch_now)
        self._failure = None
        self.on_message = None
        self.on_failure = None
        self._replies: set[asyncio.Task[None]] = set()

    def _background(self, coro: Any) -> None:
        """Run ``coro`` (a reply to the server) without waiting for it; keep it referenced."""
        task = asyncio.create_task(coro)
        self._replies.add(task)
        task.add_done_callback(self._replies.discard)

    def _dispatch(self, msg: dict[str, Any], answer: Callable[[dict[str, Any]], Any]) -> None:
        """One JSON-RPC message from the server: a response resolves its request; in a long-lived
        session anything else goes to ``on_message`` (an answer to no pending request too: it
        drops that and says so); otherwise a server request gets ``answer``'s
        harmless reply (run in the background) and a notification is dropped."""
        if is_response(msg):
            rid = msg.get("id")
            if isinstance(rid, int) and not isinstance(rid, bool) and self._answered(rid, msg):
                return
            if self.on_message is not None:
                self.on_message(msg)  # the session drops it, and says so
        elif self.on_message is not None:
            self.on_message(msg)
        elif is_server_request(msg):
            self._background(answer(msg))

    def _answered(self, rid: int, msg: dict[str, Any]) -> bool:
        """Resolve request ``rid`` with its answer ``msg``; False when no request waits for it. A
        request written at once hears it now, in this read callback: no event-loop turn between."""
        fut = self._pending.get(rid)
        if fut is None or fut.done():
            return False
        ended = self._now.pop(rid, None)
        if ended is not None:
            fut.remove_done_callback(ended)
        fut.set_result(msg)
        if ended is not None:
            _run_now(ended, fut)
        return True

    def _new_request(
        self, method: str, params: dict[str, Any] | None
    ) -> tuple[int, dict[str, Any], asyncio.Future[dict[str, Any]]]:
        if self._failure is not None:
            raise self._failure
        self._next_id += 1
        rid = self._next_id
        msg: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
        if self.envelope is not None:
            params = with_envelope(params, self.envelope)
        if params is not None:
            msg["params"] = params
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[rid] = fut
        if self.on_message is not None:
            self.state.relaying(method)
        return rid, msg, fut

    def _watch_now(self, rid: int, method: str, fut: asyncio.Future[dict[str, Any]], on_done: OnDone | None) -> None:
        """Forget request ``rid`` once ``fut`` is done (:meth:`_finish`), and tell ``on_done``: at
        once when its answer is read (:meth:`_dispatch`), else from the future's done callback (a
        failure, a cancellation)."""

        def ended(f: asyncio.Future[Any]) -> None:
            self._now.pop(rid, None)
            try:
                if on_done is not None:
                    on_done(f)  # first: it answers the host (the guard), the books can wait for it
            finally:
                self._finish(rid, method)

        fut.add_done_callback(ended)
        self._now[rid] = ended

    def _finish(self, rid: int, method: str) -> None:
        """Request ``rid`` is answered, failed or abandoned."""
        self._pending.pop(rid, None)
        if self.on_message is not None:
            self.state.relayed(method)

    def _fail(self, err: BaseException) -> None:
        first = self._failure is None
        if first:
            self._failure = err
        for fut in self._pending.values():
            if not fut.done():
                fut.set_exception(err)
                fut.exception()  # retrieved: see the class docstring
        if first and self.on_failure is not None:
            self.on_failure(err)
