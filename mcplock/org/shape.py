"""Whether a document has the shape of an ``mcplock-inventory`` version 1 — every member ``fleet``
reads, of the type it reads — before anything reads it (an inventory is untrusted input).

The same rules as ``schemas/inventory-v1.json`` (the published JSON Schema, which
tests/test_org_inventory.py holds every inventory mcplock writes to), checked in plain Python: a
fleet reads a thousand inventories, and a JSON Schema validator spends ~10 ms on each.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcplock.lock.model import ITEM_KINDS
from mcplock.model.severity import SEVERITIES

Check = Callable[[Any], str | None]  # why a value is wrong (a path into it, then the rule), or None


def _type(*types: type) -> Check:
    names = "/".join("null" if t is type(None) else t.__name__ for t in types)

    def check(v: Any) -> str | None:
        ok = isinstance(v, types) and not (isinstance(v, bool) and bool not in types)
        return None if ok else f": not {names}"

    return check


STR, INT, BOOL = _type(str), _type(int), _type(bool)
OPT_STR, OPT_BOOL = _type(str, type(None)), _type(bool, type(None))


def _enum(*values: Any) -> Check:
    return lambda v: None if any(v is x or (v == x and type(v) is type(x)) for x in values) else ": not a known value"


def _count(v: Any) -> str | None:
    return INT(v) or (": negative" if v < 0 else None)


def _list(of: Check) -> Check:
    def check(v: Any) -> str | None:
        if not isinstance(v, list):
            return ": not a list"
        for i, x in enumerate(v):
            if (why := of(x)) is not None:
                return f"/{i}{why}"
        return None

    return check


def _obj(required: dict[str, Check], optional: dict[str, Check] | None = None, *, null: bool = False) -> Check:
    optional = optional or {}

    def check(v: Any) -> str | None:
        if v is None and null:
            return None
        if not isinstance(v, dict):
            return ": not an object"
        for key, c in required.items():
            if key not in v:
                return f"/{key}: missing"
            if (why := c(v[key])) is not None:
                return f"/{key}{why}"
        for key, c in optional.items():
            if key in v and (why := c(v[key])) is not None:
                return f"/{key}{why}"
        return None

    return check


_SEVERITY = _enum(None, *SEVERITIES)
_NAME_VERSION = _obj({}, {"name": OPT_STR, "version": OPT_STR}, null=True)
_ITEM = _obj(
    {
        "kind": _enum("instructions", *ITEM_KINDS),
        "name": STR,
        "state": _enum("accepted", "pending", "rejected"),
        "hash": OPT_STR,
        "highest_finding": _SEVERITY,
    },
    {"enabled": OPT_BOOL, "approval": OPT_STR, "change": STR, "pending_hash": OPT_STR, "rejected_hash": STR},
)
_SERVER = _obj(
    {
        "name": STR,
        "origin": _enum("lock", "config"),
        "transport": _enum("stdio", "http", "sse"),
        "pinning": _enum("pinned", "unpinned", "floating", "local", "remote"),
        "package": _obj(
            {"registry": STR, "name": STR, "version": STR, "integrity": _list(STR)}, {"purl": OPT_STR}, null=True
        ),
        "launch": _obj({"registry": STR, "name": STR}, {"requested": OPT_STR}, null=True),
        "surface": _obj({"mcp-lock-v1": STR, "tools": _count}, {"prompts": _count, "resources": _count}, null=True),
        "review": _obj(
            {
                "state": _enum("accepted", "pending", "unreviewed"),
                "accepted": _count,
                "pending": _count,
                "disabled": _count,
                "rejected": _count,
                "highest_accepted_finding": _SEVERITY,
            }
        ),
        "items": _list(_ITEM),
    },
    {
        "config": _obj({}, {"host": OPT_STR, "file": OPT_STR}, null=True),
        "endpoint": OPT_STR,
        "command": OPT_STR,
        "server_info": _NAME_VERSION,
        "registry_entry": _NAME_VERSION,
        "instructions_hash": OPT_STR,
        "config_hash": OPT_STR,
    },
)
INVENTORY = _obj(
    {
        "format": _enum("mcplock-inventory"),
        "version": _enum(1),
        "generated_at": STR,
        "scope": _enum("project", "user"),
        "project": STR,
        "lock": _obj(
            {"sha256": STR, "signature": _enum("missing", "valid", "stale", "invalid"), "signing_key": OPT_STR},
            {"file": OPT_STR, "signed_at": OPT_STR},
            null=True,
        ),
        "policy": _obj({"signing_required": BOOL, "signing_keys": _list(STR)}, {"digest": OPT_STR}, null=True),
        "servers": _list(_SERVER),
        "violations": _list(_obj({"rule": OPT_STR, "server": OPT_STR}, {"item": OPT_STR, "message": OPT_STR})),
        "notes": _list(STR),
    },
    {"generator": _type(dict, type(None))},
)


def problem(doc: Any) -> str | None:
    """Where ``doc`` breaks the inventory's shape (``/servers/3/review/pending: negative``), or None."""
    why = INVENTORY(doc)
    return None if why is None else (why if why.startswith("/") else "(top)" + why)
