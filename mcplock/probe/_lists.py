"""The paginated ``*/list`` calls of an open session (:func:`list_all`): every page, bounded (pages,
items, a repeated cursor), each item's key checked, no duplicate keys; a server without the
method has an empty list. Reached through :mod:`mcplock.probe.session`, which re-exports it."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from mcplock.errors import ProbeError, json_type
from mcplock.probe._common import RpcError, response_result
from mcplock.probe._open import rpc_error as _rpc_error
from mcplock.text.untrusted import sanitize

if TYPE_CHECKING:
    from mcplock.probe.options import ProbeOptions
    from mcplock.probe.transport import Connection

METHOD_NOT_FOUND = -32601


# kind -> (method, result field, item noun, key field)
LISTS = {
    "tools": ("tools/list", "tools", "tool", "name"),
    "prompts": ("prompts/list", "prompts", "prompt", "name"),
    "templates": ("resources/templates/list", "resourceTemplates", "resource template", "uriTemplate"),
    "resources": ("resources/list", "resources", "resource", "uri"),
    "skills": ("skills/list", "skills", "skill", "uri"),
}


def _sample(entry: dict[str, Any]) -> str:
    try:
        text = json.dumps(entry, ensure_ascii=False)
    except (TypeError, ValueError):  # pragma: no cover - parsed JSON always dumps
        text = repr(entry)
    return sanitize(text, 100)


async def _call(t: Connection, method: str, params: dict[str, Any] | None) -> Any:
    resp = await t.request(method, params)
    t.state.valid_messages += 1
    return response_result(resp, method)


async def list_all(
    t: Connection, opts: ProbeOptions, kind: str, hints: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    """Every page of the list ``kind`` (a key of :data:`LISTS`), checked: bounded, no duplicate
    keys, no looping cursor. A server without the method has an empty list. Raises ProbeError.
    ``hints``, when given, gets the first page's caching fields (``ttlMs``, ``cacheScope``: never
    part of a definition)."""
    method = LISTS[kind][0]
    items: list[dict[str, Any]] = []
    keys: set[str] = set()
    cursors: set[str] = set()
    cursor: str | None = None
    for page in range(1, opts.max_pages + 1):
        where = method if page == 1 else f"{method} page {page}"
        t.state.step = f"the answer to {where}"
        try:
            result = await _call(t, method, {"cursor": cursor} if cursor is not None else None)
        except RpcError as e:
            if e.code == METHOD_NOT_FOUND and page == 1:
                return []
            raise _rpc_error(where, e) from None
        entries = _page(where, LISTS[kind][1], result)
        if hints is not None and page == 1:
            hints.update({k: result[k] for k in ("ttlMs", "cacheScope") if k in result})
        nxt = _next_cursor(where, result, cursor, cursors)
        _take(kind, entries, page, items, keys, opts)
        if nxt is None:
            return items
        cursors.add(nxt)
        cursor = nxt
    raise ProbeError(
        "pagination",
        f"{method} has more than {opts.max_pages} pages (the server keeps sending `nextCursor`)",
        hint=f"mcplock reads at most {opts.max_pages} pages of a list, to stop a pagination that never "
        "ends; a server that really has more is not supported: report it to its maintainers",
    )


def _page(where: str, field: str, result: Any) -> list[Any]:
    """One page's entries, once the page is a complete result that holds an array of them."""
    if not isinstance(result, dict):
        raise ProbeError("protocol", f"{where}: the result is {json_type(result)}, not an object")
    if result.get("resultType", "complete") != "complete":  # only tools/call & co. may ask for input
        raise ProbeError(
            "protocol",
            f"{where}: `resultType` is {sanitize(json.dumps(result['resultType']), 60)}, "
            'not "complete" (a list never asks for input)',
        )
    entries = result.get(field)
    if not isinstance(entries, list):
        got = "missing" if field not in result else json_type(entries)
        raise ProbeError("protocol", f"{where}: `{field}` is {got}, not an array")
    return entries


def _next_cursor(where: str, result: dict[str, Any], cursor: str | None, cursors: set[str]) -> str | None:
    """The page's ``nextCursor`` (None: the last page); one seen before is a loop."""
    nxt = result.get("nextCursor")
    if nxt == "":
        return None
    if nxt is not None and not isinstance(nxt, str):
        raise ProbeError("protocol", f"{where}: `nextCursor` is {json_type(nxt)}, not a string")
    if nxt is not None and (nxt in cursors or nxt == cursor):
        raise ProbeError(
            "pagination",
            f"{where}: the server sent the cursor `{sanitize(nxt, 80)}` again: its pagination loops",
        )
    return nxt


def _take(
    kind: str, entries: list[Any], page: int, items: list[dict[str, Any]], keys: set[str], opts: ProbeOptions
) -> None:
    """A page's entries onto ``items``: each an object with a non-empty key seen nowhere before,
    at most ``opts.max_items`` in all."""
    method, _, noun, key = LISTS[kind]
    for i, entry in enumerate(entries):
        pos = f"entry {len(items) + 1}" + (f" (page {page}, item {i + 1})" if page > 1 else "")
        if not isinstance(entry, dict):
            raise ProbeError("protocol", f"{method}: {pos} is {json_type(entry)}, not an object")
        k = entry.get(key)
        if not isinstance(k, str) or not k:
            got = "missing" if key not in entry else ("empty" if k == "" else json_type(k))
            raise ProbeError(
                "protocol",
                f"{method}: {pos}: `{key}` is {got}, not a non-empty string: {_sample(entry)}",
            )
        if k in keys:
            raise ProbeError(
                "duplicate",
                f"duplicate {noun} `{sanitize(k, 120)}` in {method}",
                hint=f"two entries share the {key} `{sanitize(k, 120)}`: nothing of this server is written; "
                "report it to the server's maintainers",
            )
        keys.add(k)
        items.append(entry)
        if len(items) > opts.max_items:
            raise ProbeError(
                "too-large",
                f"{method} returned more than {opts.max_items} {noun}s",
                hint=f"mcplock reads at most {opts.max_items} {noun}s of a server, to stay safe from one that "
                "floods it; a server that really has more is not supported: report it to its maintainers",
            )
