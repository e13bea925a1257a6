"""The guard's approval question to a 2026-07-28 host (docs/guard.md, step 5; docs/protocol.md).

A modern host takes no requests from a server, so the guard cannot send it ``elicitation/create``
the 2025 way. It answers the call ``input_required`` instead: one input request, its own
(:data:`KEY`), the same question a legacy host gets — ``[mcplock approval] …`` with
``_meta["mcplock/approval"]`` — and a ``requestState`` of its own, good for one retry of the same
tool with the same arguments. Only that retry with an explicit ``accept`` lets the call through
(without the guard's state and answer: they are not the server's); anything else refuses it.

Pure pieces: the pending approvals are :class:`mcplock.guard.modern.ModernHost`'s own state
(:meth:`~mcplock.guard.modern.ModernHost.ask_approval`, :meth:`~mcplock.guard.modern.ModernHost.approval_answered`).
"""

from __future__ import annotations

import json
import secrets
from typing import TYPE_CHECKING, Any

from mcplock.guard.calls import elicitation_params
from mcplock.guard.hostio import result

if TYPE_CHECKING:
    from mcplock.guard.messages import CallToolParams, Request

KEY = "mcplock-approval"  # the guard's input request among a retry's inputResponses
MAX_PENDING = 1024  # approval states remembered (the oldest forgotten first)


def same(args: Any) -> str:
    """The arguments as compared between the call and its retry."""
    return json.dumps({} if args is None else args, sort_keys=True, ensure_ascii=False)


def new_state() -> str:
    return "mcplock-approval-" + secrets.token_urlsafe(18)


def question(server: str, rid: Any, name: str, args: Any, state: str) -> dict[str, Any]:
    """The answer to the call ``rid``: the guard's approval question, as ``input_required``."""
    asked = {"method": "elicitation/create", "params": elicitation_params(server, name, args)}
    return result(rid, {"resultType": "input_required", "inputRequests": {KEY: asked}, "requestState": state})


def verdict(pending: tuple[str, str], params: CallToolParams) -> bool:
    """Whether a retry that carries the state of the approval ``pending`` (tool, arguments)
    answers it for this very call with an explicit accept."""
    answers = params.get("inputResponses")
    got = answers.get(KEY) if isinstance(answers, dict) else None
    return (
        pending == (params.get("name"), same(params.get("arguments")))
        and isinstance(got, dict)
        and got.get("action") == "accept"
    )


def for_upstream(msg: Request) -> Request:
    """The approved call as the server gets it: without the guard's state and answer."""
    params = {k: v for k, v in (msg.get("params") or {}).items() if k not in ("requestState", "inputResponses")}
    return {**msg, "params": params}
