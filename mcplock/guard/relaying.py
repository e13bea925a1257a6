"""The guard's upstream side: host requests relayed to the upstream and their answers, what the
upstream sends on its own (server requests, notifications), and the re-verification a
``list_changed`` or a re-sent list starts.

A request the upstream can take at once (stdio while its pipe is not backed up) is written in
the host's read callback and answered from the transport's future: no task per call. Otherwise
a task waits its turn (:meth:`Relaying._forward`), as over HTTP. Either way the host's id is
remapped to the guard's own upstream id and back, the answer is rebuilt from ``result`` or
``error`` alone, and an upstream answer to an id the guard never sent reaches nobody.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from mcplock.errors import ProbeError
from mcplock.guard.calls import server_question
from mcplock.guard.hostio import SERVER_ERROR, HostIO, error
from mcplock.guard.upstream import Upstream
from mcplock.guard.view import KINDS, View, live_hashes
from mcplock.guard.wellformed import REQUEST, RESPONSE, answer_fields, rebuilt, shape
from mcplock.lock.model import ServerEntry

# kind -> (the probe's list name, the host's list method, the list_changed notification)
LISTS = {"tool": ("tools", "tools/list", "notifications/tools/list_changed"),
         "prompt": ("prompts", "prompts/list", "notifications/prompts/list_changed"),
         "resource-template": ("templates", "resources/templates/list", "notifications/resources/list_changed")}
_CHANGED = {v[2]: k for k, v in LISTS.items()}

Then = Callable[[dict[str, Any]], None]  # sees the answer the host got


def host_key(rid: Any) -> tuple[str, Any]:
    """A host request id as a dict key (1 and "1" and True are different ids)."""
    return (type(rid).__name__, rid)


class _InFlight:
    """A host request relayed without a task, until its answer, timeout or cancellation."""

    __slots__ = ("key", "method", "rid", "then", "timed_out", "timer", "uid")

    def __init__(self, rid: Any, key: tuple[str, Any], uid: int, method: str, then: Then | None) -> None:
        self.rid, self.key, self.uid, self.method, self.then = rid, key, uid, method, then
        self.timer: asyncio.TimerHandle | None = None
        self.timed_out = False


class Relaying:
    """Mixed into :class:`mcplock.guard.relay.Guard`, whose state it shares."""

    server: ServerEntry
    up: Upstream
    io: HostIO
    view: View | None
    ready: bool
    request_timeout: float | None
    say: Callable[[str], None]
    up_held: list[dict[str, Any]]
    forwarded: dict[tuple[str, Any], int]
    by_host_id: dict[tuple[str, Any], asyncio.Future[Any]]
    waiting: dict[str, tuple[str, Any]]
    host_gone: bool
    fresh: asyncio.Event | None
    reverifying: asyncio.Lock | None
    host_era: str | None
    _calls_by_id: dict[tuple[str, Any], str]

    if TYPE_CHECKING:  # the Guard's own (for type checkers only: a stub here would shadow them)
        def _spawn(self, coro: Any, host_id: Any = None) -> asyncio.Task[Any]: ...
        def _host_id(self) -> str: ...
        def _report_hidden(self) -> None: ...
        def _note(self, key: str, text: str) -> None: ...
        def _to_host(self, msg: dict[str, Any]) -> dict[str, Any]: ...
        def _up_params(self, params: Any) -> Any: ...
        def _notify_host(self, method: str) -> None: ...
        def _bridged(self, key: tuple[str, Any], out: dict[str, Any]) -> bool: ...
        def _ask_modern_host(self, msg: dict[str, Any]) -> bool: ...

    # --- host → upstream ------------------------------------------------------------------

    def _send_up(self, msg: dict[str, Any]) -> None:
        """A notification or a reply to the upstream, in order with everything else sent."""
        if not self.up.send_now(msg):
            self._spawn(self._send_up_later(msg))

    async def _send_up_later(self, msg: dict[str, Any]) -> None:
        with contextlib.suppress(ProbeError):
            await self.up.send(msg)

    def _relay(self, msg: dict[str, Any], then: Then | None = None) -> None:
        """Relay one host request: now when the upstream takes it at once, else in a task."""
        started = self.up.request_now(msg["method"], self._up_params(msg.get("params")))
        if started is None:
            self._spawn(self._forward(msg, then), msg["id"])
            return
        uid, fut = started
        call = _InFlight(msg["id"], host_key(msg["id"]), uid, msg["method"], then)
        self.forwarded[call.key] = uid
        self.by_host_id[call.key] = fut
        if self.request_timeout is not None:
            call.timer = asyncio.get_running_loop().call_later(self.request_timeout, self._time_out, call, fut)
        fut.add_done_callback(partial(self._relayed, call))

    def _time_out(self, call: _InFlight, fut: asyncio.Future[Any]) -> None:
        call.timed_out = True
        fut.cancel()

    def _relayed(self, call: _InFlight, fut: asyncio.Future[Any]) -> None:
        """The end of a request :meth:`_relay` sent at once: the host gets what :meth:`_forward` gives."""
        if call.timer is not None:
            call.timer.cancel()
        self.forwarded.pop(call.key, None)
        if self.by_host_id.get(call.key) is fut:
            del self.by_host_id[call.key]
        if call.timed_out:
            self._send_up({"jsonrpc": "2.0", "method": "notifications/cancelled",
                           "params": {"requestId": call.uid, "reason": "timed out in mcplock"}})
            out = _failed(call.rid, self.up.timed_out(self.request_timeout or 0, call.method))
        elif fut.cancelled():
            return  # the host cancelled it: the upstream was told, the host wants no answer
        else:
            try:
                out = _answer(call.rid, self.up.answer(fut))
            except ProbeError as e:
                out = _failed(call.rid, e)
        if self._bridged(call.key, out):
            return  # a legacy host's call the server asked input for: the guard asks the host, then retries
        self.io.send(self._to_host(out))
        self._calls_by_id.pop(call.key, None)
        if call.then is not None:
            call.then(out)

    async def _forward(self, msg: dict[str, Any], then: Then | None = None,
                       rewrite: Callable[[dict[str, Any]], dict[str, Any]] | None = None) -> dict[str, Any]:
        """Relay one host request in a task; the host gets the upstream's answer (through
        ``rewrite`` when given) or a prompt error."""
        rid, method = msg["id"], msg["method"]
        k = host_key(rid)
        try:
            resp = await self.up.request(method, self._up_params(msg.get("params")), timeout=self.request_timeout,
                                         on_id=lambda uid: self.forwarded.__setitem__(k, uid))
        except ProbeError as e:
            uid = self.forwarded.get(k)
            if e.kind == "timeout" and uid is not None:
                self._send_up({"jsonrpc": "2.0", "method": "notifications/cancelled",
                               "params": {"requestId": uid, "reason": "timed out in mcplock"}})
            out = _failed(rid, e)
        else:
            out = _answer(rid, resp)
            if rewrite is not None:
                out = rewrite(out)
        finally:
            self.forwarded.pop(k, None)
        if self._bridged(k, out):
            return out
        self.io.send(self._to_host(out))
        self._calls_by_id.pop(k, None)
        if then is not None:
            then(out)
        return out

    # --- upstream → guard -------------------------------------------------------------------

    def _from_upstream(self, msg: Any) -> None:
        """What the upstream sent that answers no request the guard is waiting for. Only a
        well-formed request or notification goes on (rebuilt from its own fields); anything else
        — an answer to an id the guard never sent or no longer waits for, a ``method`` that is
        not a string, a batch — is dropped and noted on stderr (:mod:`mcplock.guard.wellformed`)."""
        kind, why = shape(msg)
        if kind == RESPONSE:
            why = "an answer to no request the guard is waiting for"
        if why:
            self._note(f"malformed:{why}", f"mcplock: {self.server.name}: dropped a message from the server ({why}); "
                       "only well-formed JSON-RPC requests, notifications and answers to the guard's own requests "
                       "cross the guard (further ones like it are dropped without a note)")
            return
        if not self.ready:
            self.up_held.append(msg)
            return
        method = msg["method"]
        if method == "notifications/subscriptions/acknowledged":
            return  # the guard's own subscription upstream (a modern upstream)
        if kind == REQUEST:  # a server request (sampling, elicitation, roots, ping)
            if self.host_era == "modern" and self._ask_modern_host(msg):
                return  # it reaches the host inside an input_required answer to its call
            if self.host_era == "modern":  # a modern host takes no requests: answered here, harmlessly
                from mcplock.probe.transport import answer_server_request

                self._note(f"server-request:{method}", f"mcplock: {self.server.name} asked the host "
                           f"`{method}` the 2025 way; a 2026-07-28 host takes no such request: declined")
                self._send_up(answer_server_request(msg, "the host speaks MCP 2026-07-28"))
                return
            if self.host_gone:
                self._send_up(error(msg["id"], SERVER_ERROR, "the host closed the session"))
                return
            hid = self._host_id()
            self.waiting[hid] = ("upstream", msg["id"])
            if method == "elicitation/create":  # a person must tell it from the guard's own question
                msg = {**msg, "params": server_question(self.server.name, msg.get("params"))}
            self.io.send(rebuilt(msg, hid))
            return
        if method in _CHANGED:
            self._spawn(self._list_changed(_CHANGED[method]))
            if method != "notifications/resources/list_changed":
                return  # resources are data: their own list_changed goes on to the host too
            self._notify_host(method)
            return
        if method == "notifications/cancelled":
            params = msg.get("params") or {}
            for hid, (who, uid) in list(self.waiting.items()):
                if who == "upstream" and uid == params.get("requestId"):
                    self.waiting.pop(hid, None)
                    self.io.send({"jsonrpc": "2.0", "method": method, "params": {**params, "requestId": hid}})
            return
        self.io.send(rebuilt(msg))

    async def _list_changed(self, kind: str) -> None:
        if await self._reverify([kind]):
            self._notify_host(LISTS[kind][2])

    async def _reverify(self, kinds: list[str]) -> list[str]:
        """List ``kinds`` again and rebuild the view; the kinds whose visible part changed."""
        assert self.reverifying is not None and self.fresh is not None and self.view is not None
        async with self.reverifying:
            self.fresh.clear()
            try:
                old = self.view
                live = dict(old.live)
                for kind in kinds:
                    try:
                        live[kind] = live_hashes(kind, await self.up.list_again(LISTS[kind][0]))
                    except ProbeError as e:
                        live[kind] = {}  # fail closed: nothing of this kind until it lists again
                        self.say(f"mcplock: {self.server.name}: listing again failed, hiding its {kind}s: {e.message}")
                self.view = View(self.server, live, old.live_instructions, old.offered, old.org, old.lacks)
                changed = [k for k in KINDS if old.fingerprint(k) != self.view.fingerprint(k)]
                if changed:
                    self._report_hidden()
                return changed
            finally:
                self.fresh.set()


def _answer(rid: Any, resp: dict[str, Any]) -> dict[str, Any]:
    """The host's answer: its own id with the upstream's ``result`` or ``error`` (nothing else);
    an answer that is not a well-formed response (both, neither, a result that is not an object,
    an error without code and message) is an error, never its result."""
    fields = answer_fields(resp)
    if fields is None:
        return error(rid, SERVER_ERROR, f"mcplock: the server's answer was malformed ({shape(resp)[1]})")
    return {"jsonrpc": "2.0", "id": rid, **fields}


def _failed(rid: Any, e: ProbeError) -> dict[str, Any]:
    return error(rid, SERVER_ERROR, f"mcplock: {e.message}", {"kind": e.kind, "hint": e.hint})
