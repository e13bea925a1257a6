"""What ``mcplock auth login`` sends to make a server ask for a login, in-process through
httpx2's MockTransport (:func:`mcplock.auth.login._handshake`): the 2026-07-28 discovery and
list methods, or a 2025-11-25 session opened, listed and closed — each stopping at the first
answer that is not a success. The OAuth flow around it is tested end to end in test_auth."""

from __future__ import annotations

import asyncio
import json

import httpx2

from mcplock.auth.login import _handshake

URL = "http://127.0.0.1:1/mcp"


def _run(answer) -> tuple[list[tuple[str, str | None, dict[str, str]]], httpx2.Response]:
    """(method or HTTP verb, session id, headers) of each request, and what _handshake returned."""
    seen: list[tuple[str, str | None, dict[str, str]]] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content) if request.content else {}
        what = body.get("method") or request.method
        seen.append((what, request.headers.get("mcp-session-id"), dict(request.headers)))
        return answer(what, body)

    async def go() -> httpx2.Response:
        async with httpx2.AsyncClient(transport=httpx2.MockTransport(handler)) as client:
            return await _handshake(client, URL, {"X-Extra": "1"}, "mcplock")

    return seen, asyncio.run(go())


def _ok(result: dict, **headers: str) -> httpx2.Response:
    return httpx2.Response(200, json={"jsonrpc": "2.0", "id": 1, "result": result}, headers=headers)


def test_a_modern_server_is_discovered_then_listed_up_to_a_refusal():
    def answer(what, body):
        if what == "server/discover":
            return _ok(
                {"supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}, "prompts": {}, "resources": {}}}
            )
        if what == "prompts/list":
            return httpx2.Response(401, headers={"www-authenticate": "Bearer"})
        return _ok({})

    seen, r = _run(answer)
    assert [w for w, _, _ in seen] == ["server/discover", "tools/list", "prompts/list"]  # not resources/list
    assert r.status_code == 401
    assert all(h.get("x-extra") == "1" and h.get("mcp-method") == w for w, _, h in seen)


def test_a_refused_discovery_is_the_answer():
    seen, r = _run(lambda what, body: httpx2.Response(403))
    assert [w for w, _, _ in seen] == ["server/discover"] and r.status_code == 403


def test_a_legacy_session_is_opened_listed_and_closed():
    def answer(what, body):
        if what == "initialize":
            return _ok({"protocolVersion": "2025-11-25", "capabilities": {"prompts": {}}}, **{"Mcp-Session-Id": "s1"})
        if what == "server/discover":
            return httpx2.Response(400, json={"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "no"}})
        return httpx2.Response(202) if what == "notifications/initialized" else _ok({})

    seen, r = _run(answer)
    assert [(w, sid) for w, sid, _ in seen] == [
        ("server/discover", None),
        ("initialize", None),
        ("notifications/initialized", "s1"),
        ("prompts/list", "s1"),
        ("DELETE", "s1"),
    ]
    assert seen[2][2].get("mcp-protocol-version") == "2025-11-25" and r.status_code == 200


def test_a_legacy_refusal_stops_the_session_and_sends_no_delete():
    def answer(what, body):
        if what == "initialize":
            return _ok({"protocolVersion": "bad version!", "capabilities": {}}, **{"Mcp-Session-Id": "s1"})
        if what == "tools/list":
            return httpx2.Response(401)
        return httpx2.Response(404) if what == "server/discover" else httpx2.Response(202)

    seen, r = _run(answer)
    assert [w for w, _, _ in seen] == ["server/discover", "initialize", "notifications/initialized", "tools/list"]
    assert "mcp-protocol-version" not in seen[2][2]  # an implausible version is not echoed
    assert r.status_code == 401


def test_a_refused_initialize_is_the_answer():
    seen, r = _run(lambda what, body: httpx2.Response(401) if what == "initialize" else httpx2.Response(404))
    assert [w for w, _, _ in seen] == ["server/discover", "initialize"] and r.status_code == 401
