"""What a 2026-07-28 message is and how a host of that era reads an answer (docs/protocol.md): a
``server/discover``, a request whose envelope opens a modern session, the notification filters of
``subscriptions/listen``, the caching fields a relayed result may carry (sound ones only), and an
answer in the modern era (``resultType``, caching hints, a server's questions marked as its own,
an upstream failure in the modern error range). No state: :class:`mcplock.guard.modern.ModernHost`
holds the session's."""

from __future__ import annotations

from typing import Any

from mcplock.guard.calls import server_question
from mcplock.guard.hostio import SERVER_ERROR
from mcplock.probe import era

INTERNAL_ERROR = -32603  # what a modern host gets for an upstream failure (-32000 is the legacy range)


LISTEN_PAUSE = 1.0  # seconds before the guard's subscription upstream is opened again after it ended


FILTERS = {"tool": "toolsListChanged", "prompt": "promptsListChanged", "resource-template": "resourcesListChanged"}


NOTIFICATION_FILTER = {
    "notifications/tools/list_changed": "toolsListChanged",
    "notifications/prompts/list_changed": "promptsListChanged",
    "notifications/resources/list_changed": "resourcesListChanged",
}


# what only a cacheable result holds (lists, resources/read): it carries ttlMs and cacheScope at 2026-07-28
CACHEABLE = ("contents", "resources", "resourceTemplates", "tools", "prompts")


ASKABLE = {"elicitation/create": "elicitation", "roots/list": "roots", "sampling/createMessage": "sampling"}


MAX_TTL_MS = 86_400_000  # a day: what the guard lets a host cache a relayed answer for, at most


def caching_hints(res: dict[str, Any]) -> dict[str, Any]:
    """``ttlMs`` and ``cacheScope`` for a relayed result: the server's ttl when it is sound (an
    integer of milliseconds from 0 to a day; else 0 — never a negative, fractional, huge or
    non-numeric one), and always ``private``. What the guard relays is decided by this user's
    lock, review state and credentials: a shared (``public``) cache would hand it to another
    client — one with another lock, or none — without the guard (issue 47, item 19)."""
    ttl = res.get("ttlMs")
    if isinstance(ttl, bool) or not isinstance(ttl, int) or ttl < 0:
        ttl = 0
    return {"ttlMs": min(ttl, MAX_TTL_MS), "cacheScope": "private"}


def is_discover(msg: dict[str, Any]) -> bool:
    return msg.get("method") == "server/discover" and "id" in msg


def opens_modern(msg: dict[str, Any]) -> bool:
    """A host request that opens a modern session: discover, or any request with the envelope."""
    return (
        "id" in msg
        and msg.get("method") != "initialize"
        and (is_discover(msg) or era.request_version(msg.get("params")) is not None)
    )


def _marked(server: str, res: dict[str, Any]) -> dict[str, Any]:
    """An ``input_required`` result's server questions, each marked as the server's."""
    reqs = res.get("inputRequests")
    if not isinstance(reqs, dict):
        return {}
    out = {
        k: {**r, "params": server_question(server, r["params"])}
        if isinstance(r, dict) and r.get("method") == "elicitation/create" and isinstance(r.get("params"), dict)
        else r
        for k, r in reqs.items()
    }
    return {"inputRequests": out}


def in_modern_era(msg: dict[str, Any], server: str) -> dict[str, Any]:
    """An answer as a 2026-07-28 host reads it: a result with its ``resultType`` and its
    caching hints, an ``input_required`` one marked as the guard's; an upstream failure
    in the modern error range."""
    if "result" in msg and isinstance(msg["result"], dict):
        res = msg["result"]
        if "resultType" not in res:
            msg = {**msg, "result": {"resultType": "complete", **res}}
        if "ttlMs" in res or "cacheScope" in res or any(k in res for k in CACHEABLE):
            # a legacy upstream's list or read gets the hints; a modern one's are kept only when sound
            msg = {**msg, "result": {**msg["result"], **caching_hints(res)}}
        if res.get("resultType") == "input_required":
            msg = {**msg, "result": {**msg["result"], **_marked(server, res)}}
    elif "error" in msg and isinstance(msg["error"], dict) and msg["error"].get("code") == SERVER_ERROR:
        msg = {**msg, "error": {**msg["error"], "code": INTERNAL_ERROR}}
    return msg
