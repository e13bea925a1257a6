"""An inventory read back from the CycloneDX BOM :mod:`.cyclonedx` wrote (``mcplock fleet`` joins
either format): the BOM's JSON, its ``mcplock:*`` properties (docs/organisation.md) back into the
``mcplock-inventory`` shape. The document is untrusted input: a value of the wrong type is
read as absent, and a BOM that carries no mcplock inventory is refused with the reason."""

from __future__ import annotations

import json
from typing import Any

from mcplock.lock.model import ITEM_KINDS
from mcplock.org.inventory import FORMAT


class NotAnInventory(ValueError):
    """A document that is not an mcplock inventory (the message says what it is instead)."""


def _props(node: Any) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    props = node.get("properties") if isinstance(node, dict) else None
    for p in props if isinstance(props, list) else []:
        if isinstance(p, dict) and isinstance(p.get("name"), str) and isinstance(p.get("value"), str):
            out.setdefault(p["name"], []).append(p["value"])
    return out


def _one(props: dict[str, list[str]], name: str) -> str | None:
    got = props.get(name)
    return got[0] if got else None


def _int(props: dict[str, list[str]], name: str) -> int:
    value = _one(props, name)
    return int(value) if value is not None and value.isdigit() else 0


def _bool(props: dict[str, list[str]], name: str) -> bool | None:
    value = _one(props, name)
    return None if value is None else value == "true"


def _list(doc: dict[str, Any], key: str) -> list[dict[str, Any]]:
    value = doc.get(key)
    return [x for x in value if isinstance(x, dict)] if isinstance(value, list) else []


def inventory(doc: Any) -> dict[str, Any]:
    """The inventory a BOM carries (raises :class:`NotAnInventory`)."""
    if not isinstance(doc, dict) or doc.get("bomFormat") != "CycloneDX":
        raise NotAnInventory("not a CycloneDX BOM")
    meta: dict[str, Any] = doc["metadata"] if isinstance(doc.get("metadata"), dict) else {}
    mp = _props(meta)
    if _one(mp, "mcplock:inventory:format") != FORMAT:
        raise NotAnInventory("a CycloneDX BOM without mcplock's inventory properties (not made by `mcplock inventory`)")
    version = _one(mp, "mcplock:inventory:version")
    component: dict[str, Any] = meta["component"] if isinstance(meta.get("component"), dict) else {}
    inv: dict[str, Any] = {
        "format": FORMAT,
        "version": int(version) if version and version.isdigit() else 0,
        "generated_at": _utc(meta.get("timestamp")),
        "generator": None,
        "scope": _one(mp, "mcplock:scope") or "project",
        "project": str(component.get("name") or ""),
        "lock": _lock(mp),
        "policy": _policy(mp),
        "servers": [],
        "violations": [_violation(v) for v in mp.get("mcplock:violation", [])],
        "notes": mp.get("mcplock:note", []),
    }
    components = _list(doc, "components")
    packages = {str(c.get("bom-ref")): c for c in components if "mcplock:registry" in _props(c)}
    items: dict[str, list[dict[str, Any]]] = {}
    for c in components:
        cp = _props(c)
        if "mcplock:kind" in cp:
            items.setdefault(_one(cp, "cdx:mcp:serviceRef") or "", []).append(_item(cp))
    for s in _list(doc, "services"):
        sp = _props(s)
        if "mcplock:origin" in sp:
            mine = sorted(items.get(str(s.get("bom-ref")), []), key=lambda r: (_ORDER.get(r["kind"], 99), r["name"]))
            inv["servers"].append(_server(s, sp, packages, mine))
    inv["servers"].sort(key=lambda r: (r["origin"] != "lock", r["name"], (r["config"] or {}).get("file") or ""))
    return inv


_ORDER = {k: i for i, k in enumerate(("instructions", *ITEM_KINDS))}


def _utc(value: Any) -> str:
    """A BOM's timestamp as an inventory writes one (``…Z``); anything unreadable as ``""``."""
    from datetime import UTC, datetime

    if not isinstance(value, str):
        return ""
    try:
        when = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return ""
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _lock(mp: dict[str, list[str]]) -> dict[str, Any] | None:
    if _one(mp, "mcplock:lock:sha256") is None:
        return None
    return {
        "file": _one(mp, "mcplock:lock:file"),
        "sha256": _one(mp, "mcplock:lock:sha256"),
        "signature": _one(mp, "mcplock:lock:signature") or "missing",
        "signing_key": _one(mp, "mcplock:lock:signing-key"),
        "signed_at": _one(mp, "mcplock:lock:signed-at"),
    }


def _policy(mp: dict[str, list[str]]) -> dict[str, Any] | None:
    if _one(mp, "mcplock:policy:signing-required") is None:
        return None
    return {
        "digest": _one(mp, "mcplock:policy:digest"),
        "signing_required": _bool(mp, "mcplock:policy:signing-required") or False,
        "signing_keys": mp.get("mcplock:policy:signing-key", []),
    }


def _violation(text: str) -> dict[str, Any]:
    try:
        v = json.loads(text)
    except ValueError:
        v = None
    if not isinstance(v, dict):
        return {"rule": "unknown", "server": "", "item": None, "message": text}
    return {k: v.get(k) if isinstance(v.get(k), str) else None for k in ("rule", "server", "item", "message")}


def _item(cp: dict[str, list[str]]) -> dict[str, Any]:
    rec: dict[str, Any] = {
        "kind": _one(cp, "mcplock:kind"),
        "name": _one(cp, "mcplock:name") or "",
        "state": _one(cp, "mcplock:state") or "accepted",
        "hash": _one(cp, "mcplock:definition-hash"),
    }
    if rec["kind"] == "tool":
        rec["enabled"] = _bool(cp, "mcplock:enabled")
        rec["approval"] = _one(cp, "mcplock:approval")
    for key, prop in (("change", "change"), ("pending_hash", "pending-hash"), ("rejected_hash", "rejected-hash")):
        if (value := _one(cp, f"mcplock:{prop}")) is not None:
            rec[key] = value
    rec["highest_finding"] = _one(cp, "mcplock:highest-accepted-finding")
    return rec


def _package(c: dict[str, Any]) -> dict[str, Any]:
    cp = _props(c)
    return {
        "registry": _one(cp, "mcplock:registry"),
        "name": _one(cp, "mcplock:package-name") or "",
        "version": str(c.get("version") or ""),
        "integrity": cp.get("mcplock:integrity", []),
        "purl": c.get("purl") if isinstance(c.get("purl"), str) else None,
    }


def _pair(sp: dict[str, list[str]], prefix: str, keys: tuple[str, str]) -> dict[str, Any] | None:
    values = {k: _one(sp, f"{prefix}:{k}") for k in keys}
    return values if any(v is not None for v in values.values()) else None


def _server(
    s: dict[str, Any], sp: dict[str, list[str]], packages: dict[str, dict[str, Any]], items: list[dict[str, Any]]
) -> dict[str, Any]:
    endpoints = s.get("endpoints")
    pkg = packages.get(_one(sp, "cdx:mcp:packageRefs") or "")
    digest = _one(sp, "mcplock:surface:mcp-lock-v1")
    config_file = _one(sp, "mcplock:config:file")
    return {
        "name": _one(sp, "mcplock:name") or str(s.get("name") or ""),
        "origin": _one(sp, "mcplock:origin"),
        "config": {"host": _one(sp, "cdx:mcp:configFormat"), "file": config_file} if config_file else None,
        "transport": _one(sp, "mcplock:transport") or "stdio",
        "endpoint": endpoints[0]
        if isinstance(endpoints, list) and endpoints and isinstance(endpoints[0], str)
        else None,
        "pinning": _one(sp, "mcplock:pinning") or "local",
        "command": _one(sp, "cdx:mcp:command"),
        "package": _package(pkg) if pkg is not None else None,
        "launch": _pair(sp, "mcplock:launch", ("registry", "name"))
        and {
            "registry": _one(sp, "mcplock:launch:registry"),
            "name": _one(sp, "mcplock:launch:name"),
            "requested": _one(sp, "mcplock:launch:requested"),
        },
        "server_info": _pair(sp, "mcplock:server-info", ("name", "version")),
        "registry_entry": _pair(sp, "mcplock:registry-entry", ("name", "version")),
        "surface": {
            "mcp-lock-v1": digest,
            "tools": _int(sp, "cdx:mcp:toolCount"),
            "prompts": _int(sp, "cdx:mcp:promptCount"),
            "resources": _int(sp, "cdx:mcp:resourceCount"),
        }
        if digest
        else None,
        "instructions_hash": _one(sp, "mcplock:instructions-hash"),
        "config_hash": _one(sp, "mcplock:config-hash"),
        "review": {
            "state": _one(sp, "mcplock:review:state") or "unreviewed",
            **{k: _int(sp, f"mcplock:review:{k}") for k in ("accepted", "pending", "disabled", "rejected")},
            "highest_accepted_finding": _one(sp, "mcplock:review:highest-accepted-finding"),
        },
        "items": items,
    }
