"""The JSON-RPC 2.0 messages the guard reads, as types mypy checks (no runtime cost: TypedDicts).

A message is one of these only once :func:`mcplock.guard.wellformed.shape` has passed it: a
:class:`Request` has a string ``method`` and an id that is a string or a number, ``params``
an object (or null) when present; a :class:`Notification` the same without an id; a response
an id and exactly one of ``result`` (an object) or ``error`` (an object with an integer
``code`` and a string ``message``). The host's and the server's messages reach the guard's
parts typed so, and mypy holds each read (``msg["id"]``, ``msg["params"]``) to the fields the
kind has.

The params the guard reads (``tools/call``, ``resources/read``, ``prompts/get``,
``elicitation/create``, ``notifications/cancelled``) are typed by their members' names; each
member's value is ``object``, because the guard checks its type before it uses it: those
values are whatever the other side sent (:func:`params` reads them).

The ``id: NotRequired[Never]`` of a notification (and ``result``/``error`` of the responses)
is what lets mypy tell the kinds apart by ``"id" in msg``: without it a Request would be a
Notification too (a TypedDict with more keys is a subtype), and the union would collapse.
"""

from __future__ import annotations

from typing import Any, Never, NotRequired, TypedDict, cast, final

RequestId = str | int | float  # wellformed.is_id: a string or a number, never a boolean or null


@final
class Request(TypedDict):
    jsonrpc: str
    id: RequestId
    method: str
    params: NotRequired[dict[str, Any] | None]


@final
class Notification(TypedDict):
    jsonrpc: str
    id: NotRequired[Never]  # none: what makes it a notification
    method: str
    params: NotRequired[dict[str, Any] | None]


class ErrorObject(TypedDict):
    code: int
    message: str
    data: NotRequired[Any]


@final
class ResultResponse(TypedDict):
    jsonrpc: str
    id: RequestId
    result: dict[str, Any]
    error: NotRequired[Never]


@final
class ErrorResponse(TypedDict):
    jsonrpc: str
    id: RequestId
    error: ErrorObject
    result: NotRequired[Never]


Response = ResultResponse | ErrorResponse
Call = Request | Notification  # a message with a method
Message = Request | Notification | Response


class CallToolParams(TypedDict, total=False):
    """``tools/call``: the tool, its arguments; at 2026-07-28 a retry's ``requestState`` and
    ``inputResponses``, and the envelope in ``_meta``."""

    name: object
    arguments: object
    requestState: object
    inputResponses: object
    _meta: object


class ReadResourceParams(TypedDict, total=False):
    """``resources/read`` (and ``skills/get``): the URI read."""

    uri: object
    _meta: object


class GetPromptParams(TypedDict, total=False):
    """``prompts/get``: the prompt and its arguments."""

    name: object
    arguments: object
    _meta: object


class ElicitParams(TypedDict, total=False):
    """``elicitation/create``: a form (``requestedSchema``) or, in URL mode, a URL to open."""

    mode: object
    message: object
    requestedSchema: object
    url: object
    elicitationId: object


class CancelledParams(TypedDict, total=False):
    """``notifications/cancelled``: the request it cancels, and why."""

    requestId: object
    reason: object


def params(msg: Call) -> dict[str, Any]:
    """A call's ``params`` object; an empty one when it has none (or null)."""
    p = msg.get("params")
    return p if p is not None else {}


def call_params(msg: Request) -> CallToolParams:
    """A ``tools/call``'s params, by the names the guard reads."""
    return cast(CallToolParams, params(msg))  # every member is `object`: any params object is one


def read_params(msg: Request) -> ReadResourceParams:
    """A ``resources/read``'s (or ``skills/get``'s) params, by the names the guard reads."""
    return cast(ReadResourceParams, params(msg))  # every member is `object`: any params object is one


def prompt_params(msg: Request) -> GetPromptParams:
    """A ``prompts/get``'s params, by the names the guard reads."""
    return cast(GetPromptParams, params(msg))  # every member is `object`: any params object is one


def cancelled_params(msg: Notification) -> CancelledParams:
    """A ``notifications/cancelled``'s params, by the names the guard reads."""
    return cast(CancelledParams, params(msg))  # every member is `object`: any params object is one
