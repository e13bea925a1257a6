"""What may cross the guard: well-formed JSON-RPC 2.0 messages only, in both directions.

- A **request** has a string ``method``, an id that is a string or a number (not null, a
  boolean, an array or an object), ``params`` an object when present, and neither ``result``
  nor ``error``. A **notification** is the same without an id.
- A **response** has no ``method``, an id of those kinds, and exactly one of ``result`` (an
  object) or ``error`` (an object with an integer ``code`` and a string ``message``).

Anything else — a ``method`` that is null or not a string, ``result`` beside a ``method``, an
id alone, both ``result`` and ``error``, a batch, a scalar — is no message at all: the guard
drops it and says so on stderr (from the upstream), or answers ``Invalid Request`` (from the
host). What crosses is rebuilt from these fields alone (:func:`rebuilt`), so no extra member
rides along. A response crosses only as the answer to an id the guard itself sent
(:mod:`mcplock.guard.upstream_side`). docs/guard.md and docs/failing-safe.md say why.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcplock.guard.messages import Call

REQUEST, NOTIFICATION, RESPONSE = "request", "notification", "response"

# a \\uD800-\\uDFFF escape: the only way JSON text can carry a lone surrogate (checked further)
SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


def is_id(v: Any) -> bool:
    """A usable JSON-RPC id: a string or a number (``type`` is exact: True is no id)."""
    t = type(v)
    return t is str or t is int or t is float


def shape(msg: Any) -> tuple[str, str]:
    """``(kind, "")`` for a well-formed message (:data:`REQUEST`, :data:`NOTIFICATION` or
    :data:`RESPONSE`), else ``("", why)`` with why it is none of them."""
    if type(msg) is not dict:
        return "", "a JSON-RPC batch (MCP has none)" if type(msg) is list else "not a JSON object"
    if msg.get("jsonrpc") != "2.0":
        return "", "not JSON-RPC 2.0"
    if "method" in msg:
        return _call_shape(msg)
    return _answer_shape(msg)


def _call_shape(msg: dict[str, Any]) -> tuple[str, str]:
    """The shape of a message with a ``method``: a request or a notification, or why neither."""
    if type(msg["method"]) is not str:
        return "", "its `method` is not a string"
    if "result" in msg or "error" in msg:
        return "", "a `method` beside a `result` or an `error`"
    params = msg.get("params")
    if params is not None and type(params) is not dict:
        return "", "its `params` are not an object"
    if "id" not in msg:
        return NOTIFICATION, ""
    return (REQUEST, "") if is_id(msg["id"]) else ("", "its id is not a string or a number")


def _answer_shape(msg: dict[str, Any]) -> tuple[str, str]:
    """The shape of a message without a ``method``: a response, or why it is none."""
    if not is_id(msg.get("id")):
        if "result" in msg or "error" in msg:
            return "", "an answer without a usable id"
        return "", "neither a request nor an answer"
    has_result, has_error = "result" in msg, "error" in msg
    if has_result and has_error:
        return "", "an answer with both a `result` and an `error`"
    if has_result:
        return (RESPONSE, "") if type(msg["result"]) is dict else ("", "its `result` is not an object")
    if has_error:
        e = msg["error"]
        if type(e) is dict and type(e.get("code")) is int and type(e.get("message")) is str:
            return RESPONSE, ""
        return "", "its `error` is not an object with an integer `code` and a string `message`"
    return "", "an id alone (neither a request nor an answer)"


def rebuilt(msg: Call, rid: Any = None) -> dict[str, Any]:
    """A well-formed request or notification with only its own fields (``rid``: the id it gets)."""
    out: dict[str, Any] = {"jsonrpc": "2.0"}
    if rid is not None:
        out["id"] = rid
    out["method"] = msg["method"]
    if msg.get("params") is not None:
        out["params"] = msg["params"]
    return out


def answer_fields(resp: dict[str, Any]) -> dict[str, Any] | None:
    """The ``result`` or the ``error`` (code, message, data) of a well-formed response; None
    when ``resp`` is not one."""
    if shape(resp)[0] != RESPONSE:
        return None
    if "result" in resp:
        return {"result": resp["result"]}
    e = resp["error"]
    err = {"code": e["code"], "message": e["message"]}
    if "data" in e:
        err["data"] = e["data"]
    return {"error": err}


def member(obj: Any, key: str) -> dict[str, Any]:
    """``obj[key]`` where it is a JSON object (a message's ``params``, a result), else an empty one."""
    v = obj.get(key) if isinstance(obj, dict) else None
    return v if isinstance(v, dict) else {}
