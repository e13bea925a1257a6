"""``server/discover`` answered from the lock (docs/protocol.md), and answered before the guard's
event loop exists when the host already sent it (docs/performance.md, "The guard's start").

A 2026-07-28 host opens with ``server/discover`` and waits for nothing else: its connect time
is the time to that answer. The answer is the lock's (versions, the capabilities of what the lock
holds, accepted instructions, the locked server info), so it needs neither the upstream nor
asyncio: :func:`answer_early` reads what the host has written by the time the lock is loaded,
trusted and the server started, answers a first line that is ``server/discover`` at once, and
hands every byte it read to the guard's host side, which knows that request was answered.
Imports no asyncio and no MCP SDK.
"""

from __future__ import annotations

import json
import os
import select
from typing import TYPE_CHECKING, Any

from mcplock.guard.wellformed import REQUEST, shape
from mcplock.lock.model import ServerEntry
from mcplock.model.documents import SKILLS_EXTENSION
from mcplock.probe import era
from mcplock.trust.decide import decide_item

if TYPE_CHECKING:
    from mcplock.guard.messages import Request

EARLY_READ = 1 << 16  # what answer_early reads of stdin at most (the rest comes through the host side)


def capabilities(up: dict[str, Any], *, skills: bool = False) -> dict[str, Any]:
    """What the guard tells the host it offers, from what the upstream (or the lock) offers:
    every list can change (the guard re-verifies and tells the host). ``skills``: the lock holds
    skills, which the guard serves (guard/skills.py): the skills extension is declared, with the
    ``resources`` capability it requires (a host lists skills only after seeing it)."""
    caps: dict[str, Any] = {}
    if skills:
        up = {**up, "resources": up.get("resources") or {}}
    if era.advertised(up, "tools"):
        caps["tools"] = {"listChanged": True}
    if era.advertised(up, "prompts"):
        caps["prompts"] = {"listChanged": True}
    if era.advertised(up, "resources"):
        res = up["resources"] if isinstance(up["resources"], dict) else {}
        caps["resources"] = {**res, "listChanged": True}
    for k in ("logging", "completions"):
        if era.advertised(up, k):
            caps[k] = up[k]
    if skills:  # no optional feature: resources/directory/read is not served (docs/protocol.md)
        caps["extensions"] = {SKILLS_EXTENSION: {}}
    return caps


def locked_capabilities(server: ServerEntry) -> dict[str, Any]:
    """The capabilities of what the lock holds (before the upstream is verified)."""
    caps: dict[str, Any] = {}
    if server.items["tool"]:
        caps["tools"] = {}
    if server.items["prompt"]:
        caps["prompts"] = {}
    if server.items["resource-template"] or server.spec.pin_resources:
        caps["resources"] = {}
    return capabilities(caps, skills=bool(server.items["skill"]))


def discover_result(server: ServerEntry) -> dict[str, Any]:
    info = server.server_info or {"name": server.name, "version": "0"}
    out: dict[str, Any] = {
        "resultType": "complete",
        "supportedVersions": [era.MODERN, era.LEGACY],
        "capabilities": locked_capabilities(server),
        "_meta": {era.SERVER_INFO_KEY: info},
        "ttlMs": 0,
        "cacheScope": "private",
    }
    e = server.instructions
    if (
        e is not None
        and isinstance(e.definition, str)
        and decide_item(server.name, "instructions", "instructions", e, e.hash).allowed
    ):
        out["instructions"] = e.definition
    return out


def discover_answer(server: ServerEntry, msg: Request) -> dict[str, Any]:
    """The answer to one ``server/discover``: the lock's, or -32022 for a version it does not speak."""
    version = era.request_version(msg.get("params"))
    if version is not None and not era.is_modern(version):
        return {
            "jsonrpc": "2.0",
            "id": msg["id"],
            "error": {
                "code": era.UNSUPPORTED_VERSION,
                "message": "Unsupported protocol version",
                "data": {"supported": [era.MODERN, era.LEGACY], "requested": version},
            },
        }
    return {"jsonrpc": "2.0", "id": msg["id"], "result": discover_result(server)}


def _no_constant(name: str) -> Any:
    raise ValueError(name)


def answer_early(server: ServerEntry, infd: int = 0, outfd: int = 1) -> tuple[bytes, bool]:
    """(the bytes read of stdin, whether its first line was a ``server/discover`` answered here).

    Reads only what is already there (never waits for the host); anything but a well-formed
    ``server/discover`` first line is left to the host side as it came, answered nothing here."""
    try:
        if not select.select([infd], [], [], 0)[0]:
            return b"", False
        data = os.read(infd, EARLY_READ)
    except (OSError, ValueError):
        return b"", False
    line, nl, _ = data.partition(b"\n")
    if not nl:
        return data, False
    try:
        msg = json.loads(line, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        return data, False
    if shape(msg) != (REQUEST, "") or msg["method"] != "server/discover":
        return data, False
    try:
        out = (json.dumps(discover_answer(server, msg), ensure_ascii=False, separators=(",", ":")) + "\n").encode()
    except UnicodeEncodeError:  # a lone surrogate (in the id): the host side answers that
        return data, False
    try:
        while out:
            out = out[os.write(outfd, out) :]
    except OSError:
        return data, False
    return data, True
