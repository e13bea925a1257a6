"""Re-listing a modern upstream's tools before a call, when nothing else would tell the guard
they changed (docs/protocol.md, "Upstream changes").

A 2026-07-28 server sends change notifications only on a ``subscriptions/listen`` stream, and
only for the lists it declares ``listChanged`` for. One that declares none for its tools can
change a tool's text without a word: the lock's view of it may be stale. So before relaying a
call the guard lists the tools again — at most once per the ``ttlMs`` the server gave with its
last list (none, or 0: before every call) — and the call is decided on the view that re-list
gives: a tool that drifted is refused like any other. Calls that wait meanwhile share one
re-list. A legacy upstream, or a modern one with ``listChanged``, is not re-listed.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

from mcplock.probe import era

if TYPE_CHECKING:
    from collections.abc import Callable

    from mcplock.guard.upstream_side import UpstreamSide


class Freshness:
    """Whether the guard's view of the upstream's tools may be stale, and the re-list that renews
    it (through the upstream side; ``notify``: a change the host may see)."""

    def __init__(self, upstream: UpstreamSide, notify: Callable[[str], None]) -> None:
        self.upstream = upstream
        self.notify = notify
        self.watch = False  # a modern upstream that declares no tools listChanged
        self.until = 0.0  # time.monotonic() until which the last listing counts as current
        self.task: asyncio.Future[None] | None = None

    def opened(self, protocol_version: str | None, capabilities: dict[str, Any]) -> None:
        tools = capabilities.get("tools")
        self.watch = era.is_modern(protocol_version) and not (isinstance(tools, dict) and tools.get("listChanged"))
        self.until = 0.0  # the opening's list carried no TTL the guard kept: the first call re-lists

    def stale(self) -> bool:
        return self.watch and time.monotonic() >= self.until

    async def relist(self) -> None:
        """List the tools again (or wait for the re-list under way) and rebuild the guard's view."""
        if self.task is None or self.task.done():
            self.task = asyncio.ensure_future(self._relist())
        await asyncio.shield(self.task)

    async def _relist(self) -> None:
        changed = await self.upstream.reverify(["tool"])
        ttl = self.upstream.up.hints.get("tools", {}).get("ttlMs")
        ok = isinstance(ttl, int) and not isinstance(ttl, bool) and ttl > 0
        self.until = time.monotonic() + (min(ttl, 86_400_000) / 1000 if ok and isinstance(ttl, int) else 0.0)
        if changed:
            self.notify("notifications/tools/list_changed")
