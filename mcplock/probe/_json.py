"""Strict JSON for the probe and the guard: a message read with NaN and Infinity refused
(:class:`BadConstant`, and a message that names the item holding one), and a message written
compact with non-ASCII as it is; both with the C scanner and encoder built once, not per message."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from typing import Any

from mcplock.text.untrusted import sanitize


class BadConstant(ValueError):
    """JSON text used NaN / Infinity, which JSON does not allow."""


def _reject_constant(name: str) -> Any:
    raise BadConstant(f"`{name}` is not valid JSON")


class _Decoder(json.JSONDecoder):
    scan_once: Callable[[str, int], tuple[Any, int]]  # set by JSONDecoder.__init__: the C scanner


_DECODER = _Decoder(parse_constant=_reject_constant)  # one, not one per message
_SCAN = _DECODER.scan_once  # what JSONDecoder.decode calls, without its two regex matches
_JSON_SPACE = " \t\n\r"  # JSON's whitespace, and nothing else


def loads(text: str | bytes) -> Any:
    """``json.loads`` that rejects NaN / Infinity (they cannot be pinned or hashed)."""
    if isinstance(text, str):  # JSONDecoder.decode as it is, one call per message on the guard's path
        s = text.strip(_JSON_SPACE)
        try:
            obj, end = _SCAN(s, 0)
        except StopIteration as err:
            raise json.JSONDecodeError("Expecting value", s, err.value) from None
        if end != len(s):
            raise json.JSONDecodeError("Extra data", s, end)
        return obj
    return json.loads(text, parse_constant=_reject_constant)


INVALID_JSON_HINT = "ask the server's maintainers to send valid JSON (NaN and Infinity are not JSON numbers)"
_NOUNS = {"tools": "tool", "prompts": "prompt", "resourceTemplates": "resource template", "resources": "resource"}


def _non_finite(v: Any, path: list[str | int]) -> list[str | int] | None:
    if isinstance(v, float) and not math.isfinite(v):
        return path
    items = v.items() if isinstance(v, dict) else enumerate(v) if isinstance(v, list) else ()
    for k, x in items:
        found = _non_finite(x, [*path, k])
        if found is not None:
            return found
    return None


def bad_constant_message(text: str | bytes, err: BadConstant) -> str:
    """What is wrong with a message that uses NaN / Infinity, naming the item that holds it
    (``tool `search_docs` at result.tools[0].inputSchema…``) when it is in a list result."""
    try:
        obj = json.loads(text)
        path = _non_finite(obj, [])
    except (ValueError, RecursionError):
        path = None
    if not path:
        return f"the server sent a JSON-RPC message that is not valid JSON: {err}"
    v: Any = obj
    for k in path:
        v = v[k]
    token = "NaN" if math.isnan(v) else ("Infinity" if v > 0 else "-Infinity")
    where = "".join(f"[{k}]" if isinstance(k, int) else (f".{k}" if i else str(k)) for i, k in enumerate(path))
    what = _listed_item(obj, path)
    return f"the server sent `{token}`{what} at {sanitize(where, 200)}: JSON has no such value, so it cannot be pinned"


def _listed_item(obj: Any, path: list[str | int]) -> str:
    """`` in tool `NAME` `` when ``path`` lies inside an item of a list result (by its name, URI
    template or URI); empty otherwise."""
    if len(path) > 3 and path[0] == "result" and path[1] in _NOUNS and isinstance(path[2], int):
        item = obj["result"][path[1]][path[2]]
        key = next((item[k] for k in ("name", "uriTemplate", "uri") if isinstance(item.get(k), str)), None)
        if key is not None:
            return f" in {_NOUNS[str(path[1])]} `{sanitize(key, 120)}`"
    return ""


_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))  # what json.dumps builds per call
# JSONEncoder.encode builds its C encoder anew for every call: this one is built once. No circular
# check (a message is parsed JSON or built of JSON values: it has no cycle), else the same settings.
_C_ENCODE: Callable[[object, int], Any] | None
try:
    from _json import encode_basestring, make_encoder
except ImportError:  # pragma: no cover - CPython has them
    _C_ENCODE = None
else:
    _C_ENCODE = make_encoder(None, _ENCODER.default, encode_basestring, None, ":", ",", False, False, True)


def dumps(msg: Mapping[str, Any]) -> str:
    """One JSON-RPC message as compact JSON text, non-ASCII as it is."""
    if _C_ENCODE is None:  # pragma: no cover - CPython has the C encoder
        return _ENCODER.encode(msg)
    return "".join(_C_ENCODE(msg, 0))
