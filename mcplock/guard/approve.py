"""The guard's approval question to a 2026-07-28 host (docs/guard.md, step 5; docs/protocol.md).

A modern host takes no requests from a server, so the guard cannot send it ``elicitation/create``
the 2025 way. It answers the call ``input_required`` instead: one input request, its own
(:data:`KEY`), the same question a legacy host gets — ``[mcplock approval] …`` with
``_meta["mcplock/approval"]`` — and a ``requestState`` of its own, good for one retry of the same
tool with the same arguments. Only that retry with an explicit ``accept`` lets the call through
(without the guard's state and answer: they are not the server's); anything else refuses it.
"""

from __future__ import annotations

import json
import secrets
from typing import TYPE_CHECKING, Any

from mcplock.guard.calls import elicitation_params
from mcplock.guard.hostio import result

if TYPE_CHECKING:
    from mcplock.guard.guard import Guard

KEY = "mcplock-approval"  # the guard's input request among a retry's inputResponses
MAX_PENDING = 1024  # approval states remembered (the oldest forgotten first)


def _same(args: Any) -> str:
    return json.dumps({} if args is None else args, sort_keys=True, ensure_ascii=False)


def ask(guard: Guard, rid: Any, name: str, args: Any) -> None:
    """Answer the call ``rid`` with the guard's approval question, as ``input_required``."""
    key = (type(rid).__name__, rid)  # answered now: no call of this id is in flight
    guard.requests.calls.pop(key, None)
    guard.requests.call_params.pop(key, None)
    state = "mcplock-approval-" + secrets.token_urlsafe(18)
    guard.modern.approvals[state] = (name, _same(args))
    guard.modern.states[state] = name  # the retry is held to this tool like any other
    while len(guard.modern.approvals) > MAX_PENDING:
        guard.modern.states.pop(next(iter(guard.modern.approvals)), None)
        guard.modern.approvals.pop(next(iter(guard.modern.approvals)))
    question = {"method": "elicitation/create", "params": elicitation_params(guard.server.name, name, args)}
    guard.io.send(result(rid, {"resultType": "input_required", "inputRequests": {KEY: question},
                               "requestState": state}))


def answered(guard: Guard, params: dict[str, Any]) -> bool | None:
    """A retry's verdict: True when it answers the guard's question for this very call with an
    explicit accept, False when it answers it otherwise, None when it carries no state of the
    guard's approval (the question is still to be asked)."""
    state = params.get("requestState")
    pending = guard.modern.approvals.pop(state, None) if isinstance(state, str) else None
    if pending is None or not isinstance(state, str):
        return None
    guard.modern.states.pop(state, None)  # one use
    answers = params.get("inputResponses")
    got = answers.get(KEY) if isinstance(answers, dict) else None
    return pending == (params.get("name"), _same(params.get("arguments"))) and isinstance(got, dict) and \
        got.get("action") == "accept"


def for_upstream(msg: dict[str, Any]) -> dict[str, Any]:
    """The approved call as the server gets it: without the guard's state and answer."""
    params = {k: v for k, v in msg["params"].items() if k not in ("requestState", "inputResponses")}
    return {**msg, "params": params}
