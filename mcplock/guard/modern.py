"""The guard's 2026-07-28 side (docs/protocol.md): a host that opens with ``server/discover``.

- ``server/discover`` is answered at once from the lock (versions, the capabilities of what the
  lock holds, accepted instructions, the locked server info) and starts the upstream's
  verification, as ``initialize`` does for a legacy host; nothing else is answered before it.
- A modern host's requests carry the ``_meta`` envelope; it never reaches a legacy upstream
  (stripped), a modern upstream gets the guard's own. Every answer it gets carries
  ``resultType``; lists the caching fields (``ttlMs`` 0: the lock may change, ``private``).
- Change notifications go only to its ``subscriptions/listen`` streams that asked for them,
  tagged with the subscription's id; never untagged.
- Multi round-trip requests: an ``input_required`` result passes through, and the retry that
  answers it must name the same accepted tool and carry the ``requestState`` the server gave
  for it (one the guard saw): a retry for another tool, or with a state nobody issued, is
  refused with -32602, nothing forwarded. The retry is itself a ``tools/call``, checked under
  the lock like any other.
- The upstream is spoken to in its own era: a modern upstream's change notifications come
  through the guard's own ``subscriptions/listen`` (:meth:`ModernHost.listen_upstream`); a
  legacy host whose call a modern upstream answers ``input_required`` is asked the 2025 way
  (elicitation, roots, sampling requests) and the call retried with its answers (:meth:`ModernHost.bridged`);
  a legacy upstream that asks a modern host something (elicitation, roots, sampling) during a call
  gets it the 2026 way: the call is answered ``input_required`` carrying the server's request, and
  the host's retry (same tool, the guard's ``requestState``) answers the server's pending request
  and gets the original call's result (:meth:`ModernHost.ask_modern_host`).
- A server's question always reads as the server's (:func:`~mcplock.guard.calls.server_question`),
  whichever way it reaches the host; only the guard's approval question reads as mcplock's.
"""

from __future__ import annotations

import asyncio
import secrets
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mcplock.errors import ProbeError
from mcplock.guard import approve
from mcplock.guard.answers import answer_for, failure_for
from mcplock.guard.calls import server_question
from mcplock.guard.discover import discover_answer
from mcplock.guard.embedded import screen
from mcplock.guard.hostio import INVALID_PARAMS, SERVER_ERROR, error, result
from mcplock.guard.ledger import Key, host_key
from mcplock.guard.modern_wire import ASKABLE, FILTERS, NOTIFICATION_FILTER, in_modern_era
from mcplock.guard.wellformed import member
from mcplock.probe import era
from mcplock.text.untrusted import name_text

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Mapping

    from mcplock.guard.hostio import HostIO
    from mcplock.guard.ledger import Ledger
    from mcplock.guard.messages import CallToolParams, Request
    from mcplock.guard.state import HostState, Notes
    from mcplock.guard.upstream import Upstream
    from mcplock.guard.view import Current
    from mcplock.lock.model import ServerEntry

    AskHost = Callable[[str, Any], Awaitable[Mapping[str, Any] | None]]  # the host's answer

MAX_STATES = 1024  # requestStates remembered for retries (the oldest forgotten first)
MAX_ROUNDS = 8  # input_required rounds the guard answers for a legacy host before it gives up


class ModernHost:
    """The 2026-07-28 host side of one session: its subscriptions, the requestStates seen for its
    calls, the guard's approval questions, the calls its legacy upstream asked it something
    about. Its collaborators: the upstream connection and the way to send it a message, the
    ledger, the host's state (read), the host's framing and the guard's own question to the host."""

    def __init__(
        self,
        up: Upstream,
        send_up: Callable[[dict[str, Any]], None],
        *,
        server: ServerEntry,
        io: HostIO,
        ledger: Ledger,
        host: HostState,
        ask: AskHost,
        request_timeout: float | None,
        discover_early: bool = False,
        views: Current | None = None,
        notes: Notes | None = None,
    ) -> None:
        self.up = up
        self.send_up = send_up
        self.server = server
        self.io = io
        self.ledger = ledger
        self.host = host
        self.ask = ask
        self.request_timeout = request_timeout
        self.subscriptions: dict[Any, dict[str, Any]] = {}  # a modern host's subscriptions/listen id -> filter
        self.states: dict[str, str] = {}  # requestState -> the tool whose input_required result carried it
        self.asked_calls: dict[tuple[str, Any], _Held] = {}  # a modern host's call its legacy upstream asked about
        self.asked_states: dict[str, _Held] = {}  # the requestState the guard gave for it -> the call
        self.approvals: dict[str, tuple[str, str]] = {}  # the guard's approval state -> (tool, arguments)
        self.discover_early = discover_early  # the host's first server/discover was answered before the loop
        self.views = views  # read: which App documents an answer may embed (guard/embedded.py)
        self.notes = notes

    # --- server/discover --------------------------------------------------------------------

    def answer_discover(self, msg: Request) -> None:
        if self.discover_early:
            self.discover_early = False  # answered before the event loop started (guard/discover.py)
            return
        self.io.send(discover_answer(self.server, msg))

    # --- what a modern host gets ------------------------------------------------------------

    def to_host(self, msg: dict[str, Any]) -> dict[str, Any]:
        """An answer on its way to the host, in the host's era; an App document embedded in it
        is the locked one or is dropped (:mod:`mcplock.guard.embedded`), in either era."""
        if "method" in msg:
            return msg
        res = msg.get("result")
        if isinstance(res, dict) and ("content" in res or "messages" in res):
            msg = self._screened(msg, res)
        if not self.host.modern:
            return msg
        res = msg.get("result")
        if isinstance(res, dict) and res.get("resultType") == "input_required":
            self._remember_state(msg)  # the retry must name the same tool
        return in_modern_era(msg, self.server.name)

    def _screened(self, msg: dict[str, Any], res: dict[str, Any]) -> dict[str, Any]:
        """``msg`` with every App document embedded in its ``res`` that is not the locked one
        dropped, and a note saying so; ``msg`` itself when none is."""
        screened, dropped = screen(res, self.server, self.views.view if self.views is not None else None)
        if not dropped:
            return msg
        if self.notes is not None:
            self.notes.note(
                f"embedded:{dropped[0]}",
                f"mcplock: {self.server.name}: dropped an App "
                "document embedded in a result (not the one the lock accepted): "
                + ", ".join(name_text(u) for u in dropped),
            )
        return {**msg, "result": screened}

    def list_result(self, field: str, items: list[dict[str, Any]]) -> dict[str, Any]:
        if self.host.modern:
            return {"resultType": "complete", field: items, "ttlMs": 0, "cacheScope": "private"}
        return {field: items}

    # --- subscriptions/listen (host side) ---------------------------------------------------

    def listen(self, msg: Request) -> None:
        params = member(msg, "params")
        wanted = member(params, "notifications")
        agreed = {k: True for k in FILTERS.values() if wanted.get(k) is True}
        self.subscriptions[msg["id"]] = agreed
        self.io.send(
            {
                "jsonrpc": "2.0",
                "method": "notifications/subscriptions/acknowledged",
                "params": {"_meta": {era.SUBSCRIPTION_KEY: msg["id"]}, "notifications": agreed},
            }
        )

    def end_listen(self, request_id: Any) -> bool:
        """The host cancelled a subscription: a graceful end, answered. False: ``request_id`` is none."""
        if request_id not in self.subscriptions:
            return False
        del self.subscriptions[request_id]
        self.io.send(result(request_id, {"resultType": "complete", "_meta": {era.SUBSCRIPTION_KEY: request_id}}))
        return True

    def notify_host(self, method: str) -> None:
        """A change the host may see: untagged for a legacy host, on each subscription that asked for a modern one."""
        if not self.host.modern:
            self.io.send({"jsonrpc": "2.0", "method": method})
            return
        want = NOTIFICATION_FILTER.get(method)
        for sid, agreed in self.subscriptions.items():
            if want is not None and agreed.get(want):
                self.io.send({"jsonrpc": "2.0", "method": method, "params": {"_meta": {era.SUBSCRIPTION_KEY: sid}}})

    # --- the guard's approval question (guard/approve.py) ------------------------------------

    def ask_approval(self, rid: Any, name: str, args: Any) -> None:
        """Answer the call ``rid`` with the guard's approval question, as ``input_required``."""
        self.ledger.call_answered(host_key(rid))  # answered now: no call of this id is in flight
        state = approve.new_state()
        self.approvals[state] = (name, approve.same(args))
        self.states[state] = name  # the retry is held to this tool like any other
        while len(self.approvals) > approve.MAX_PENDING:
            self.states.pop(next(iter(self.approvals)), None)
            self.approvals.pop(next(iter(self.approvals)))
        self.io.send(approve.question(self.server.name, rid, name, args, state))

    def approval_answered(self, params: CallToolParams) -> bool | None:
        """A retry's verdict: True when it answers the guard's question for this very call with an
        explicit accept, False when it answers it otherwise, None when it carries no state of the
        guard's approval (the question is still to be asked)."""
        state = params.get("requestState")
        pending = self.approvals.pop(state, None) if isinstance(state, str) else None
        if pending is None or not isinstance(state, str):
            return None
        self.states.pop(state, None)  # one use
        return approve.verdict(pending, params)

    # --- multi round-trip requests ----------------------------------------------------------

    def _remember_state(self, msg: dict[str, Any]) -> None:
        state = msg["result"].get("requestState")
        name = self.ledger.tool_of(host_key(msg.get("id")))
        if isinstance(state, str) and name is not None:
            self.states[state] = name
            while len(self.states) > MAX_STATES:
                self.states.pop(next(iter(self.states)))

    def retry_refused(self, rid: Any, params: dict[str, Any]) -> bool:
        """A retry (``inputResponses`` / ``requestState``) that does not continue a call of the
        same tool is refused (-32602); True when it was."""
        if "requestState" not in params and "inputResponses" not in params:
            return False
        state = params.get("requestState")
        if state is None:
            return False  # a retry of an input_required result that carried no state: the tool is checked as usual
        issued = self.states.get(state) if isinstance(state, str) else None
        if issued == params.get("name"):
            return False
        why = (
            "was not issued by the server for any call mcplock relayed"
            if issued is None
            else f"continues a call of `{issued}`, not of `{params.get('name')}`"
        )
        self.io.send(error(rid, INVALID_PARAMS, f"mcplock refused this retry: its requestState {why}"))
        return True

    # --- a legacy host, a modern upstream that asks for input ---------------------------------

    def bridged(self, key: Key, out: dict[str, Any]) -> bool:
        """A legacy host's call answered ``input_required`` (a legacy host cannot read it): the
        guard asks the host what the server asks, the 2025 way, and retries the same call with the
        answers. True when it took the call over (its answer comes later)."""
        if self._held_answer(key, out):
            return True
        params = self.ledger.take_params(key)
        res = out.get("result")
        if (
            self.host.modern
            or params is None
            or not (isinstance(res, dict) and res.get("resultType") == "input_required")
        ):
            return False
        self.ledger.spawn(self._bridge(out["id"], key, params, res), out["id"])
        return True

    async def _bridge(self, rid: Any, key: Key, params: dict[str, Any], res: dict[str, Any]) -> None:
        out: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "result": res}
        try:
            for _ in range(MAX_ROUNDS):
                retry = {**params, "inputResponses": await self._host_answers(member(res, "inputRequests"))}
                if "requestState" in res:
                    retry["requestState"] = res["requestState"]
                resp = await self.up.request("tools/call", retry, timeout=self.request_timeout)
                out = answer_for(rid, resp)
                res = member(out, "result")
                if res.get("resultType") != "input_required":
                    break
            else:
                out = error(rid, INVALID_PARAMS, f"mcplock: the server asked for input {MAX_ROUNDS} times in a row")
        except ProbeError as e:
            out = failure_for(rid, e)
        finally:
            self.ledger.call_answered(key)
        self.io.send(self.to_host(out))

    async def _host_answers(self, requests: dict[str, Any]) -> dict[str, Any]:
        """What a legacy host answers to the requests an ``input_required`` result carries, asked
        one by one the 2025 way: those it declared a capability for; the others go unanswered."""
        answers: dict[str, Any] = {}
        for k, req in requests.items():
            method = req.get("method") if isinstance(req, dict) else None
            if method in ASKABLE and self.host.caps.get(ASKABLE[method]) is not None:
                asked = req.get("params")
                if method == "elicitation/create":
                    asked = server_question(self.server.name, asked)
                got = await self.ask(method, asked)
                if isinstance(got, dict) and "result" in got:
                    answers[k] = got["result"]
        return answers

    # --- a modern host, a legacy upstream that asks it something ------------------------------

    def ask_modern_host(self, msg: Request) -> bool:
        """A legacy upstream's request (elicitation, roots, sampling) while a modern host's call
        is in flight: it goes to the host inside an ``input_required`` answer to that call (the
        latest one; stdio says no more). True when it did; False leaves it to be declined."""
        method = msg["method"]
        if method not in ASKABLE or self.host.caps.get(ASKABLE[method]) is None or self.host.gone:
            return False
        held = next(reversed(self.asked_calls.values()), None) if self.asked_calls else None
        new = held is None
        if held is None:
            latest = self.ledger.take_latest_relayed_call()  # answered now: its id is the host's again
            if latest is None:
                return False
            key, name = latest
            held = _Held(name, rid=key[1])
            self.asked_calls[key] = held
        hid = self.ledger.relaying(msg["id"])  # an error for it if the host leaves
        params = msg.get("params")
        if method == "elicitation/create":
            params = server_question(self.server.name, params)
        held.asking.append((hid, {"method": method, **({"params": params} if isinstance(params, dict) else {})}))
        if new:
            self._ask_round(held)  # the call itself is answered now
        else:
            held.changed.set()  # for the retry waiting now (:meth:`_resume`), or the next one
        return True

    def _ask_round(self, held: _Held) -> None:
        """Answer the host request that waits (the call, or its retry) ``input_required`` with what the server asks."""
        state = "mcplock-" + secrets.token_urlsafe(18)
        self.asked_states[state] = held
        self.states[state] = held.name
        while len(self.asked_states) > MAX_STATES:
            self.states.pop(next(iter(self.asked_states)), None)
            self.asked_states.pop(next(iter(self.asked_states)))
        held.sent = [k for k, _ in held.asking]
        requests, held.asking = dict(held.asking), []
        rid, held.rid = held.rid, _NO_ID
        self.io.send(result(rid, {"resultType": "input_required", "inputRequests": requests, "requestState": state}))

    def resumed(self, rid: Any, params: dict[str, Any]) -> bool:
        """A retry (already held to the same tool and checked under the lock) that carries a
        ``requestState`` of the guard's own: its answers go to the server's pending requests and
        the host gets the original call's result (or the server's next question). True when it did."""
        state = params.get("requestState")
        held = self.asked_states.pop(state, None) if isinstance(state, str) else None
        if held is None or not isinstance(state, str):
            return False
        self.states.pop(state, None)  # one use
        answers = member(params, "inputResponses")
        for hid in held.sent:
            w = self.ledger.answered_by_host(hid)
            if w is not None:
                got = answers.get(hid)
                self.send_up(
                    {"jsonrpc": "2.0", "id": w[1], "result": got}
                    if isinstance(got, dict)
                    else error(w[1], SERVER_ERROR, "the host gave no answer to this request")
                )
        held.sent, held.rid = [], rid
        self.ledger.spawn(self._resume(held), rid)
        return True

    async def _resume(self, held: _Held) -> None:
        while True:
            if held.answer is not None:
                for hid, _ in held.asking:  # the server answered the call: it waits for nothing more
                    w = self.ledger.answered_by_host(hid)
                    if w is not None:
                        self.send_up(error(w[1], SERVER_ERROR, "the call it belongs to was answered"))
                rid, held.rid = held.rid, _NO_ID
                self.io.send(self.to_host({**held.answer, "id": rid}))
                return
            if held.asking:
                self._ask_round(held)
                return
            held.changed.clear()
            await held.changed.wait()

    def _held_answer(self, key: Key, out: dict[str, Any]) -> bool:
        """The upstream's answer to a call the host was answered ``input_required`` for: kept for its retry."""
        held = self.asked_calls.pop(key, None) if self.asked_calls else None
        if held is None:
            return False
        held.answer = out
        held.changed.set()
        return True


_NO_ID = object()  # no host request waits for a held call's next answer


@dataclass(eq=False)
class _Held:
    """A modern host's call its legacy upstream asked something about: the host was answered
    ``input_required``; the upstream's call goes on, its answer kept for the host's retry."""

    name: str  # the tool (the retry is held to it)
    rid: Any = _NO_ID  # the host request to answer next (the call, then each retry)
    asking: list[tuple[str, dict[str, Any]]] = field(default_factory=list)  # (input key, request) not yet sent
    sent: list[str] = field(default_factory=list)  # the input keys of the last round
    answer: dict[str, Any] | None = None  # the upstream's answer to the call, once it came
    changed: asyncio.Event = field(default_factory=asyncio.Event)
