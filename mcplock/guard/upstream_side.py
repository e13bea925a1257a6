"""The guard's upstream side: host requests relayed to the upstream and their answers, what the
upstream sends on its own (server requests, notifications), and the re-verification a
``list_changed`` or a re-sent list starts.

A request the upstream can take at once (stdio while its pipe is not backed up) is written in
the host's read callback and answered from the transport's future: no task per call. Otherwise
a task waits its turn (:meth:`UpstreamSide.forward`), as over HTTP. Either way the host's id is
remapped to the guard's own upstream id and back, the answer is rebuilt from ``result`` or
``error`` alone, and an upstream answer to an id the guard never sent reaches nobody.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from mcplock.errors import ProbeError
from mcplock.guard.answers import answer_for, failure_for
from mcplock.guard.calls import server_question
from mcplock.guard.hostio import SERVER_ERROR, error
from mcplock.guard.ledger import Key, Ledger, host_key
from mcplock.guard.messages import cancelled_params
from mcplock.guard.view import KINDS, View, live_hashes
from mcplock.guard.wellformed import REQUEST, RESPONSE, rebuilt, shape
from mcplock.probe import era

if TYPE_CHECKING:
    from mcplock.guard.hostio import HostIO
    from mcplock.guard.messages import Notification, Request
    from mcplock.guard.modern import ModernHost
    from mcplock.guard.state import HostState, Notes
    from mcplock.guard.upstream import Upstream
    from mcplock.guard.view import Current
    from mcplock.lock.model import ServerEntry

# kind -> (the probe's list name, the host's list method, the list_changed notification)
LISTS = {
    "tool": ("tools", "tools/list", "notifications/tools/list_changed"),
    "prompt": ("prompts", "prompts/list", "notifications/prompts/list_changed"),
    "resource-template": ("templates", "resources/templates/list", "notifications/resources/list_changed"),
}
_CHANGED = {v[2]: k for k, v in LISTS.items()}

Then = Callable[[dict[str, Any]], None]  # sees the answer the host got


class _InFlight:
    """A host request relayed without a task, until its answer, timeout or cancellation."""

    __slots__ = ("answer", "deadline", "ended", "key", "method", "rid", "then", "timed_out", "uid")

    def __init__(self, rid: Any, key: Key, method: str, then: Then | None) -> None:
        self.rid, self.key, self.method, self.then = rid, key, method, then
        self.uid = 0  # the id it went upstream under
        self.answer: asyncio.Future[Any] | None = None  # the upstream's future of its answer, until it ends
        self.deadline = 0.0  # the event loop's time when it times out (with a request timeout)
        self.timed_out = False
        self.ended = False


class _Deadlines:
    """When the requests relayed without a task time out: one timer for all of them, not one
    each (a timer per call costs more than the rest of its bookkeeping). Every request gets
    the same timeout, so their deadlines come in the order they were sent: a queue, whose
    head the one timer waits for. Ended requests leave it from the head, and the whole queue
    is swept when most of it has ended behind a long one (it stays proportional to what is
    in flight)."""

    def __init__(self, timeout: float, expired: Callable[[_InFlight], None]) -> None:
        self.timeout = timeout
        self.expired = expired
        self._queue: deque[_InFlight] = deque()
        self._live = 0
        self._timer: asyncio.TimerHandle | None = None
        self._loop: asyncio.AbstractEventLoop | None = None  # the session's, once a call is added

    def add(self, call: _InFlight) -> None:
        loop = self._loop
        if loop is None:
            loop = self._loop = asyncio.get_running_loop()
        call.deadline = loop.time() + self.timeout
        self._queue.append(call)
        self._live += 1
        if self._timer is None:
            self._timer = loop.call_at(call.deadline, self._expire)

    def ended(self, call: _InFlight) -> None:
        if call.ended or not call.deadline:  # once, and only for a call it holds
            return
        call.ended = True
        self._live -= 1
        queue = self._queue
        while queue and queue[0].ended:
            queue.popleft()
        if len(queue) > 64 and len(queue) > 2 * self._live:
            self._queue = deque(c for c in queue if not c.ended)

    def _expire(self) -> None:
        self._timer = None
        queue = self._queue
        loop = asyncio.get_running_loop()
        now = loop.time()
        while queue and (queue[0].ended or queue[0].deadline <= now):
            call = queue.popleft()
            if not call.ended:
                self.expired(call)
        if queue:
            self._timer = loop.call_at(queue[0].deadline, self._expire)


def send_up(up: Upstream, ledger: Ledger, msg: dict[str, Any]) -> None:
    """A notification or a reply to the upstream, in order with everything else sent."""
    if not up.send_now(msg):
        ledger.spawn(_send_up_later(up, msg))


async def _send_up_later(up: Upstream, msg: dict[str, Any]) -> None:
    with contextlib.suppress(ProbeError):
        await up.send(msg)


class UpstreamSide:
    """The guard's side towards the upstream: the connection (:attr:`up`), the host requests
    relayed on it (their ids in the :class:`~mcplock.guard.ledger.Ledger`), what the upstream
    sent before the host was ready, and re-verification. Its collaborators: the ledger, the
    host's state (read), the view (:class:`~mcplock.guard.view.Current`, rebuilt here), the
    host's framing and the modern host side (what an answer becomes in the host's era)."""

    def __init__(
        self,
        up: Upstream,
        *,
        server: ServerEntry,
        io: HostIO,
        ledger: Ledger,
        host: HostState,
        views: Current,
        notes: Notes,
        modern: ModernHost,
        request_timeout: float | None,
    ) -> None:
        self.up = up
        self.server = server
        self.io = io
        self.ledger = ledger
        self.host = host
        self.views = views
        self.notes = notes
        self.modern = modern
        self.request_timeout = request_timeout
        self.up_held: list[dict[str, Any]] = []  # upstream messages before the host is initialized
        self._deadlines = _Deadlines(request_timeout, self._time_out) if request_timeout is not None else None
        self._relisting: dict[str, bool] = {}  # kind -> a list_changed came while it was listed again

    def release_held(self) -> None:
        """The host is ready: what the upstream sent meanwhile goes on, in order."""
        early, self.up_held = self.up_held, []
        for m in early:
            self.from_upstream(m)

    # --- host → upstream ------------------------------------------------------------------

    def send_up(self, msg: dict[str, Any]) -> None:
        """A notification or a reply to the upstream, in order with everything else sent."""
        send_up(self.up, self.ledger, msg)

    def relay(self, msg: Request, then: Then | None = None) -> None:
        """Relay one host request: now when the upstream takes it at once, else in a task."""
        rid = msg["id"]
        call = _InFlight(rid, host_key(rid), msg["method"], then)
        started = self.up.request_now(
            msg["method"], era.without_envelope(msg.get("params")), partial(self._relayed, call)
        )
        if started is None:
            self.ledger.spawn(self.forward(msg, then), rid)
            return
        call.uid, call.answer = started
        self.ledger.relayed(call.key, call.uid, call.answer)
        if self._deadlines is not None:
            self._deadlines.add(call)

    def _time_out(self, call: _InFlight) -> None:
        call.timed_out = True
        if call.answer is not None:
            call.answer.cancel()

    def _relayed(self, call: _InFlight, fut: asyncio.Future[Any]) -> None:
        """The end of a request :meth:`relay` sent at once (heard as soon as its answer is read):
        the host gets what :meth:`forward` gives. The host's answer is written before the books
        are closed (the deadline, the ledger's relay): nothing runs in between, and the host
        reads it while the guard finishes here."""
        call.answer = None
        if call.timed_out:
            self.send_up(
                {
                    "jsonrpc": "2.0",
                    "method": "notifications/cancelled",
                    "params": {"requestId": call.uid, "reason": "timed out in mcplock"},
                }
            )
            out = failure_for(call.rid, self.up.timed_out(self.request_timeout or 0, call.method))
        elif fut.cancelled():  # the host cancelled it: the upstream was told, the host wants no answer
            self._relay_closed(call, fut)
            return
        else:
            try:
                out = answer_for(call.rid, self.up.answer(fut))
            except ProbeError as e:
                out = failure_for(call.rid, e)
        if self.modern.bridged(call.key, out):  # a legacy host's call the server asked input for:
            self._relay_closed(call, fut)  # the guard asks the host, then retries
            return
        self.io.send(self.modern.to_host(out))
        self._relay_closed(call, fut)
        self.ledger.call_answered(call.key)
        if call.then is not None:
            call.then(out)

    def _relay_closed(self, call: _InFlight, fut: asyncio.Future[Any]) -> None:
        """The books of a request :meth:`relay` sent at once, closed: its deadline and its relay
        in the ledger (what answers the host request now is a bridge's task, if anything)."""
        if self._deadlines is not None:
            self._deadlines.ended(call)
        self.ledger.relay_ended(call.key, fut)

    async def forward(
        self,
        msg: Request,
        then: Then | None = None,
        rewrite: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
    ) -> dict[str, Any]:
        """Relay one host request in a task; the host gets the upstream's answer (through
        ``rewrite`` when given) or a prompt error."""
        rid, method = msg["id"], msg["method"]
        k = host_key(rid)
        try:
            resp = await self.up.request(
                method,
                era.without_envelope(msg.get("params")),
                timeout=self.request_timeout,
                on_id=partial(self.ledger.sent, k),
            )
        except ProbeError as e:
            uid = self.ledger.upstream_id(k)
            if e.kind == "timeout" and uid is not None:
                self.send_up(
                    {
                        "jsonrpc": "2.0",
                        "method": "notifications/cancelled",
                        "params": {"requestId": uid, "reason": "timed out in mcplock"},
                    }
                )
            out = failure_for(rid, e)
        else:
            out = answer_for(rid, resp)
            if rewrite is not None:
                out = rewrite(out)
        finally:
            self.ledger.relay_ended(k)
        if self.modern.bridged(k, out):
            return out
        self.io.send(self.modern.to_host(out))
        self.ledger.call_answered(k)
        if then is not None:
            then(out)
        return out

    # --- upstream → guard -------------------------------------------------------------------

    def from_upstream(self, msg: Any) -> None:
        """What the upstream sent that answers no request the guard is waiting for. Only a
        well-formed request or notification goes on (rebuilt from its own fields); anything else
        — an answer to an id the guard never sent or no longer waits for, a ``method`` that is
        not a string, a batch — is dropped and noted on stderr (:mod:`mcplock.guard.wellformed`)."""
        kind, why = shape(msg)
        if kind == RESPONSE:
            why = "an answer to no request the guard is waiting for"
        if why:
            self.notes.note(
                f"malformed:{why}",
                f"mcplock: {self.server.name}: dropped a message from the server "
                f"({why}); only well-formed JSON-RPC requests, notifications and answers to the guard's "
                "own requests cross the guard (further ones like it are dropped without a note)",
            )
            return
        if not self.host.ready:
            self.up_held.append(msg)
            return
        if msg["method"] == "notifications/subscriptions/acknowledged":
            return  # the guard's own subscription upstream (a modern upstream)
        if kind == REQUEST:
            self._server_request(msg)
        else:
            self._server_notification(msg)

    def _server_request(self, msg: Request) -> None:
        """A server's request (sampling, elicitation, roots, ping): to the host under an id of
        the guard's, inside a modern host's call, or answered here when no host can take it."""
        method = msg["method"]
        if self.host.modern and self.modern.ask_modern_host(msg):
            return  # it reaches the host inside an input_required answer to its call
        if self.host.modern:  # a modern host takes no requests: answered here, harmlessly
            from mcplock.probe.transport import answer_server_request

            self.notes.note(
                f"server-request:{method}",
                f"mcplock: {self.server.name} asked the host "
                f"`{method}` the 2025 way; a 2026-07-28 host takes no such request: declined",
            )
            self.send_up(answer_server_request(msg, "the host speaks MCP 2026-07-28"))
            return
        if self.host.gone:
            self.send_up(error(msg["id"], SERVER_ERROR, "the host closed the session"))
            return
        hid = self.ledger.relaying(msg["id"])
        if method == "elicitation/create":  # a person must tell it from the guard's own question
            msg = {**msg, "params": server_question(self.server.name, msg.get("params"))}
        self.io.send(rebuilt(msg, hid))

    def _server_notification(self, msg: Notification) -> None:
        """A server's notification: a list change re-verifies, a cancellation is mapped to the
        host's id, the rest goes on rebuilt."""
        method = msg["method"]
        if method in _CHANGED:
            self._changed(_CHANGED[method])
            if method != "notifications/resources/list_changed":
                return  # resources are data: their own list_changed goes on to the host too
            self.modern.notify_host(method)
            return
        if method == "notifications/cancelled":
            params = cancelled_params(msg)
            for hid in self.ledger.cancelled_upstream(params.get("requestId")):
                self.io.send({"jsonrpc": "2.0", "method": method, "params": {**params, "requestId": hid}})
            return
        self.io.send(rebuilt(msg))

    def _changed(self, kind: str) -> None:
        """A ``list_changed`` for ``kind``: one re-list at a time per kind, and one more after it
        for everything that came meanwhile — a flood of them costs two listings, not one each."""
        if kind in self._relisting:
            self._relisting[kind] = True  # seen while one runs: once more after it
            return
        self._relisting[kind] = False
        self.ledger.spawn(self._list_changed(kind))

    async def _list_changed(self, kind: str) -> None:
        try:
            while True:
                self._relisting[kind] = False
                if await self.reverify([kind]):
                    self.modern.notify_host(LISTS[kind][2])
                if not self._relisting.get(kind):
                    return
        finally:
            self._relisting.pop(kind, None)

    async def reverify(self, kinds: list[str]) -> list[str]:
        """List ``kinds`` again and rebuild the view; the kinds whose visible part changed."""
        async with self.views.rebuilding() as old:
            live = dict(old.live)
            for kind in kinds:
                try:
                    live[kind] = live_hashes(kind, await self.up.list_again(LISTS[kind][0]))
                except ProbeError as e:
                    live[kind] = {}  # fail closed: nothing of this kind until it lists again
                    self.notes.say(
                        f"mcplock: {self.server.name}: listing again failed, hiding its {kind}s: {e.message}"
                    )
            new = View(self.server, live, old.live_instructions, old.offered, old.org, old.lacks)
            self.views.set(new)
            changed = [k for k in KINDS if old.fingerprint(k) != new.fingerprint(k)]
            if changed and (report := new.hidden_report()) is not None:
                self.notes.say(report)
            return changed
