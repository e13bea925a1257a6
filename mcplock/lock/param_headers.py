"""``x-mcp-header``: tool parameters a Streamable HTTP request mirrors into ``Mcp-Param-{Name}``
headers (MCP 2026-07-28, SEP-2243), and the standard ``Mcp-Method`` / ``Mcp-Name`` headers.

:func:`problems` checks a tool's annotations as the spec constrains them (a non-empty token,
no control characters, unique regardless of case, only on integer / string / boolean
parameters reachable through ``properties`` alone); a tool that breaks them is one the spec
says a client must not use, so the lint reports it and the guard and ``call`` refuse it over
HTTP. :func:`headers` builds the headers of one request, values encoded as the spec says
(plain visible ASCII as it is, anything else ``=?base64?…?=``). Pure, stdlib only.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Mapping
from typing import Any

from mcplock.lock.spec import ServerSpec, Transport

ANNOTATION = "x-mcp-header"
_TOKEN = re.compile(r"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$")  # RFC 9110 tchar
_SAFE = re.compile(r"^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$")  # visible ASCII, inner spaces only
_MAX_SAFE_INT = 2**53 - 1
_PRIMITIVE = ("integer", "string", "boolean")
_NESTED = (
    "items",
    "prefixItems",
    "additionalProperties",
    "patternProperties",
    "oneOf",
    "anyOf",
    "allOf",
    "not",
    "if",
    "then",
    "else",
    "$defs",
    "definitions",
    "dependentSchemas",
    "contains",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
)


def annotated(schema: Any) -> list[tuple[tuple[str, ...], str, Any]]:
    """Every ``x-mcp-header`` reachable from the root through ``properties`` alone:
    (path of property names, header name, the property's schema)."""
    found: list[tuple[tuple[str, ...], str, Any]] = []

    def walk(node: Any, path: tuple[str, ...]) -> None:
        props = node.get("properties") if isinstance(node, Mapping) else None
        if not isinstance(props, Mapping):
            return
        for key, sub in props.items():
            if not isinstance(sub, Mapping):
                continue
            if ANNOTATION in sub:
                found.append(((*path, str(key)), sub[ANNOTATION], sub))
            walk(sub, (*path, str(key)))

    walk(schema, ())
    return found


def _children(node: Any, path: str, reachable: bool) -> list[tuple[Any, str, bool]]:
    """The sub-schemas of ``node`` with their paths, and whether each is still on the chain of
    ``properties`` from the root (only the members of a reachable node's ``properties`` are)."""
    if isinstance(node, list):
        return [(v, f"{path}/{i}", False) for i, v in enumerate(node)]
    if isinstance(node, Mapping):
        return _member_children(node, path, reachable)
    return []


def _member_children(node: Mapping[str, Any], path: str, reachable: bool) -> list[tuple[Any, str, bool]]:
    """An object schema's sub-schemas: its ``properties``' members (reachable when it is), and
    every other member but the annotation itself."""
    out: list[tuple[Any, str, bool]] = []
    for k, v in node.items():
        if k == "properties" and isinstance(v, Mapping) and reachable:
            out.extend((sub, f"{path}/properties/{name}", True) for name, sub in v.items())
        elif k != ANNOTATION:
            out.append((v, f"{path}/{k}", False))
    return out


def _stray(node: Any, path: str, reachable: bool, out: list[str]) -> None:
    """Annotations outside the ``properties`` chain (under items, oneOf, $ref'd $defs …)."""
    if isinstance(node, Mapping) and ANNOTATION in node and not reachable and path:
        out.append(f"`{ANNOTATION}` at {path} is not reachable through `properties` alone")
    for sub, sub_path, sub_reachable in _children(node, path, reachable):
        _stray(sub, sub_path, sub_reachable, out)


def _annotation_problems(where: str, name: Any, sub: Mapping[str, Any], seen: dict[str, str]) -> list[str]:
    """What is wrong with the ``x-mcp-header`` named ``name`` on the parameter at ``where``:
    not a header token, a name an earlier one in ``seen`` already took (it records its own), or
    a parameter of a type a header cannot carry."""
    if not isinstance(name, str) or not name:
        return [f"`{ANNOTATION}` of `{where}` is empty or not a string"]
    if not _TOKEN.match(name):
        return [
            f"`{ANNOTATION}` of `{where}` is not an HTTP header token (space, colon, control or non-ASCII character)"
        ]
    out: list[str] = []
    if name.lower() in seen:
        out.append(f"`{ANNOTATION}` `{name}` of `{where}` repeats that of `{seen[name.lower()]}` (case-insensitively)")
    seen.setdefault(name.lower(), where)
    kind = sub.get("type")
    if kind not in _PRIMITIVE:
        out.append(f"`{ANNOTATION}` of `{where}` is on a parameter of type {kind!r}, not integer, string or boolean")
    return out


def problems(tool: Mapping[str, Any]) -> list[str]:
    """Why the tool's ``x-mcp-header`` annotations are invalid (empty: valid, or none)."""
    schema = tool.get("inputSchema")
    out: list[str] = []
    if not isinstance(schema, Mapping):
        return out
    seen: dict[str, str] = {}
    for path, name, sub in annotated(schema):
        out.extend(_annotation_problems("/".join(path), name, sub, seen))
    if ANNOTATION in schema:
        out.append(f"`{ANNOTATION}` on the input schema itself, not on a parameter")
    _stray(schema, "", True, out)
    return out


def problems_over(spec: ServerSpec, definition: Any) -> list[str]:
    """Why a tool may not be used over this server's transport: its ``x-mcp-header``
    annotations break the spec (checked on Streamable HTTP, where they become headers; other
    transports may ignore them, as the spec allows)."""
    if spec.transport is not Transport.HTTP or not isinstance(definition, Mapping):
        return []
    return problems(definition)


def _text(value: Any) -> str | None:
    """The text a parameter value stands for in a header (None: a null, a non-primitive, or a
    number JSON does not hold exactly)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return _number_text(value)
    return value if isinstance(value, str) else None


def _number_text(value: float) -> str | None:
    """A number's digits when it is an integer a JSON reader holds exactly (a float too)."""
    if isinstance(value, float):
        if not value.is_integer():
            return None
        value = int(value)
    return str(value) if abs(value) <= _MAX_SAFE_INT else None


def encode(value: Any) -> str | None:
    """A parameter value as a header value (None: nothing to send, e.g. null or a non-primitive):
    plain visible ASCII as it is, anything else (or what would read as encoded) ``=?base64?…?=``."""
    text = _text(value)
    if text is None:
        return None
    if _SAFE.match(text) and not (text.startswith("=?base64?") and text.endswith("?=")):
        return text
    return "=?base64?" + base64.b64encode(text.encode("utf-8")).decode("ascii") + "?="


_NAME_FIELD = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}


def _param_headers(tool: Any, args: Any) -> dict[str, str]:
    """The ``Mcp-Param-*`` headers of a call with ``args`` to ``tool``: one per annotated
    parameter the call gives a value (none for a tool whose annotations break the spec)."""
    if not isinstance(tool, Mapping) or not isinstance(args, Mapping) or problems(tool):
        return {}
    out: dict[str, str] = {}
    for path, name, _sub in annotated(tool.get("inputSchema")):
        text = encode(_value_at(args, path))  # None (no value, null): no header
        if text is not None:
            out[f"Mcp-Param-{name}"] = text
    return out


def _value_at(args: Mapping[str, Any], path: tuple[str, ...]) -> Any:
    """The value of the parameter at ``path`` in a call's arguments (None: the call gives none)."""
    value: Any = args
    for key in path:
        value = value.get(key) if isinstance(value, Mapping) else None
    return value


def headers(msg: Mapping[str, Any], version: str, tools: Mapping[str, Any]) -> dict[str, str]:
    """The headers a modern Streamable HTTP POST of ``msg`` carries: ``MCP-Protocol-Version``,
    ``Mcp-Method``, ``Mcp-Name`` (calls, reads, prompt gets) and the tool's ``Mcp-Param-*``."""
    method = msg.get("method")
    raw = msg.get("params")
    params: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
    out = {"MCP-Protocol-Version": version, "Mcp-Method": str(method)}
    field = _NAME_FIELD.get(str(method))
    if field is not None and isinstance(params.get(field), str):
        out["Mcp-Name"] = encode(params[field]) or ""
    if method == "tools/call":
        name = params.get("name")
        out.update(_param_headers(tools.get(name) if isinstance(name, str) else None, params.get("arguments")))
    return out
