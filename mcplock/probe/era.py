"""MCP's two protocol eras, as mcplock speaks them on both sides (docs/protocol.md).

*Legacy* revisions (2025-11-25 and earlier) open a session with ``initialize``; the *modern*
one (2026-07-28) has no handshake: every request carries its version, the client's
capabilities and its identity in ``params._meta``, a server answers ``server/discover``, and
results carry ``resultType`` (and list results the caching hints ``ttlMs`` / ``cacheScope``).
Pure: the probe, the guard and ``call`` share these facts. No I/O, no SDK.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

MODERN_VERSIONS = ("2026-07-28",)  # the modern revisions mcplock speaks (the newest last)
LEGACY_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
MODERN = MODERN_VERSIONS[-1]
LEGACY = LEGACY_VERSIONS[-1]

VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"
CLIENT_INFO_KEY = "io.modelcontextprotocol/clientInfo"
SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo"
SUBSCRIPTION_KEY = "io.modelcontextprotocol/subscriptionId"
RESERVED_PREFIX = "io.modelcontextprotocol/"

# The error codes the spec reserves (-32020…-32099) and defines; a server that answers with one
# of them speaks the modern protocol (the fallback to `initialize` is for anything else).
HEADER_MISMATCH = -32020
MISSING_CLIENT_CAPABILITY = -32021
UNSUPPORTED_VERSION = -32022
MODERN_ERRORS = (HEADER_MISMATCH, MISSING_CLIENT_CAPABILITY, UNSUPPORTED_VERSION)

# Result-level fields that say how to cache or continue a result: never part of a definition,
# never hashed (a list result's entries are what the lock pins; these sit beside them).
RESULT_FIELDS = ("resultType", "ttlMs", "cacheScope", "_meta", "nextCursor")

# Requests whose Streamable HTTP POST carries `Mcp-Name` (params.name or params.uri).
NAMED = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}
# Requests that may answer with an `input_required` result (multi round-trip requests).
MULTI_ROUND_TRIP = ("tools/call", "prompts/get", "resources/read")


def advertised(caps: Mapping[str, Any], name: str) -> bool:
    """Whether a capabilities object (either era, either side) offers ``name``: present, not
    null or false (``{}`` offers it)."""
    return caps.get(name) not in (None, False)


def is_modern(version: str | None) -> bool:
    return version in MODERN_VERSIONS


def envelope(version: str, capabilities: Mapping[str, Any], client_info: Mapping[str, Any]) -> dict[str, Any]:
    """The per-request ``_meta`` fields of a modern request."""
    return {VERSION_KEY: version, CAPABILITIES_KEY: dict(capabilities), CLIENT_INFO_KEY: dict(client_info)}


def with_envelope(params: Mapping[str, Any] | None, env: Mapping[str, Any]) -> dict[str, Any]:
    """``params`` with ``env`` in its ``_meta`` (kept: the rest of ``_meta``, e.g. ``progressToken``)."""
    out = dict(params or {})
    meta = out.get("_meta")
    out["_meta"] = {**(meta if isinstance(meta, Mapping) else {}), **env}
    return out


def without_envelope(params: Any) -> Any:
    """``params`` without the reserved ``io.modelcontextprotocol/`` keys of ``_meta`` (a modern
    host's request on its way to a legacy server); ``_meta`` dropped when nothing else is left."""
    if type(params) is dict and "_meta" not in params:  # the common case, without the ABC checks below
        return params
    if not isinstance(params, Mapping) or not isinstance(params.get("_meta"), Mapping):
        return params
    out = dict(params)
    meta = {k: v for k, v in out["_meta"].items() if not (isinstance(k, str) and k.startswith(RESERVED_PREFIX))}
    if meta:
        out["_meta"] = meta
    else:
        del out["_meta"]
    return out


def request_version(params: Any) -> str | None:
    """The protocol version a request's envelope names (None: no envelope, a legacy request)."""
    if isinstance(params, Mapping):
        meta = params.get("_meta")
        if isinstance(meta, Mapping):
            v = meta.get(VERSION_KEY)
            return v if isinstance(v, str) else None
    return None


def supported_of(data: Any) -> list[str]:
    """The versions an UnsupportedProtocolVersion error's ``data.supported`` names (strings only)."""
    sup = data.get("supported") if isinstance(data, Mapping) else None
    return [v for v in sup if isinstance(v, str)] if isinstance(sup, list) else []


def mutual_modern(versions: list[str]) -> str | None:
    """The newest modern version both sides speak, if any."""
    both = [v for v in MODERN_VERSIONS if v in versions]
    return both[-1] if both else None
