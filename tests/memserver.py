"""In-process MCP pieces for the guard's fast tests: a server as a handler for
:class:`mcplock.probe.memory.MemoryConnection`, a host as a stand-in for the guard's stdio framing,
and a composed :class:`mcplock.guard.guard.Guard` between them (no process, no pipe, no socket).
The process tests (tests/test_guard*.py) keep the wiring to real servers and real pipes honest."""

from __future__ import annotations

import asyncio
import contextlib
import copy
import inspect
from collections.abc import AsyncIterator, Callable
from typing import Any

from mcplock.guard.guard import Guard
from mcplock.lock.model import ServerEntry
from mcplock.probe import ProbeOptions, era
from mcplock.probe.memory import MemoryConnection

from lockdata import TOOLS, accepted_server

METHOD_NOT_FOUND = -32601


class Server:
    """A small MCP server, answering as the wire would: legacy (``initialize``) or modern
    (``server/discover``). ``tools``: what it lists now (change it to make it drift); ``on_call``:
    a tool call's answer fields (default: the arguments echoed), an awaitable of them (a call that
    talks to the host first), or None for no answer ever; ``page_size``: tools per ``tools/list``
    page (``nextCursor`` past the first); ``delay``: seconds before each answer; ``ttl_ms``: the
    ``ttlMs`` a modern server puts on its lists; ``results``: the answers to other methods
    (``resources/list``: the server then declares resources); ``documents``: what
    ``resources/read`` of each URI answers (its ``contents``; an unknown URI is an error);
    ``listens``: a modern server keeps each ``subscriptions/listen`` open (acknowledged, tagged
    with its id) and :meth:`tools_changed` tells those that asked, as the modern fixture's
    ``--notify-changes`` does."""

    def __init__(
        self,
        tools: list[dict[str, Any]] | None = None,
        *,
        modern: bool = False,
        list_changed: bool = True,
        on_call: Callable[[dict[str, Any]], Any] | None = None,
        page_size: int | None = None,
        delay: float = 0.0,
        ttl_ms: int | None = None,
        results: dict[str, dict[str, Any]] | None = None,
        documents: dict[str, list[dict[str, Any]]] | None = None,
        listens: bool = False,
    ) -> None:
        self.listens = listens
        self.listening: dict[Any, dict[str, Any]] = {}  # open subscriptions/listen: id -> what they agreed to
        self.listened = asyncio.Event()  # set at the first subscriptions/listen
        self.results = results or {}
        self.documents = copy.deepcopy(documents or {})
        self.page_size = page_size
        self.delay = delay
        self.ttl_ms = ttl_ms
        self.tools = copy.deepcopy(TOOLS if tools is None else tools)
        self.modern = modern
        self.list_changed = list_changed
        self.on_call = on_call or (
            lambda msg: {
                "result": {
                    "content": [
                        {
                            "type": "text",
                            "text": f"called {msg['params']['name']} with {msg['params'].get('arguments')}",
                        }
                    ],
                    "isError": False,
                }
            }
        )
        self.calls: list[dict[str, Any]] = []  # the tools/call requests it got
        self.conn: MemoryConnection | None = None  # set by session(): the way to send on its own
        self._asked: dict[Any, asyncio.Future[dict[str, Any]]] = {}

    def caps(self) -> dict[str, Any]:
        caps: dict[str, Any] = {"tools": {"listChanged": self.list_changed}}
        if "resources/list" in self.results:
            caps["resources"] = {}
        return caps

    def __call__(self, msg: dict[str, Any]) -> Any:
        if "id" not in msg:
            return None  # a notification: the connection records it in `sent`
        if "method" not in msg:  # a reply to one of its own requests (ask)
            fut = self._asked.pop(msg["id"], None)
            if fut is not None and not fut.done():
                fut.set_result(msg)
            return None
        out = self.answer(msg)
        if not self.delay:
            return out
        return self._later(out)

    async def _later(self, out: Any) -> Any:
        await asyncio.sleep(self.delay)
        return (await out) if inspect.isawaitable(out) else out

    def answer(self, msg: dict[str, Any]) -> Any:
        method = msg.get("method")
        if method == "server/discover":
            if not self.modern:
                return {"error": {"code": METHOD_NOT_FOUND, "message": "Method not found"}}
            return {
                "result": {
                    "supportedVersions": [era.MODERN],
                    "capabilities": self.caps(),
                    "serverInfo": {"name": "docs", "version": "1.0.0"},
                    "instructions": "Use these tools for the docs.",
                }
            }
        if method == "initialize":
            return {
                "result": {
                    "protocolVersion": msg["params"]["protocolVersion"],
                    "capabilities": self.caps(),
                    "serverInfo": {"name": "docs", "version": "1.0.0"},
                    "instructions": "Use these tools for the docs.",
                }
            }
        if method == "tools/list":
            return {"result": self.tools_page((msg.get("params") or {}).get("cursor"))}
        if method == "tools/call":
            self.calls.append(msg)
            return self.on_call(msg)
        if method == "ping":
            return {"result": {}}
        if method == "resources/read":
            uri = (msg.get("params") or {}).get("uri")
            if uri not in self.documents:
                return {"error": {"code": -32602, "message": f"Unknown resource: {uri}"}}
            return {"result": {"contents": copy.deepcopy(self.documents[uri])}}
        if method == "subscriptions/listen" and self.modern and self.listens:
            return self._listen(msg)
        if method in self.results:
            return {"result": copy.deepcopy(self.results[method])}
        return {"error": {"code": METHOD_NOT_FOUND, "message": "Method not found"}}

    async def _listen(self, msg: dict[str, Any]) -> None:
        """Acknowledge a ``subscriptions/listen`` (tagged with its id) and keep it open: never answered."""
        assert self.conn is not None
        wanted = (msg.get("params") or {}).get("notifications") or {}
        agreed = {k: True for k in ("toolsListChanged", "promptsListChanged", "resourcesListChanged") if wanted.get(k)}
        self.listening[msg["id"]] = agreed
        self.listened.set()
        self.conn.push(
            {
                "jsonrpc": "2.0",
                "method": "notifications/subscriptions/acknowledged",
                "params": {"_meta": {era.SUBSCRIPTION_KEY: msg["id"]}, "notifications": agreed},
            }
        )
        await asyncio.get_running_loop().create_future()  # open until the connection closes

    def tools_changed(self) -> None:
        """Tell each open subscription that asked for it that the tool list changed (tagged)."""
        assert self.conn is not None
        for sid, agreed in self.listening.items():
            if agreed.get("toolsListChanged"):
                self.conn.push(
                    {
                        "jsonrpc": "2.0",
                        "method": "notifications/tools/list_changed",
                        "params": {"_meta": {era.SUBSCRIPTION_KEY: sid}},
                    }
                )

    async def ask(self, rid: Any, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """A request of the server's own (``elicitation/create`` during a call): the reply."""
        assert self.conn is not None
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._asked[rid] = fut
        self.conn.push({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        return await fut

    def tools_page(self, cursor: str | None) -> dict[str, Any]:
        start = int(cursor or 0)
        end = len(self.tools) if self.page_size is None else start + self.page_size
        page: dict[str, Any] = {"tools": copy.deepcopy(self.tools[start:end])}
        if end < len(self.tools):
            page["nextCursor"] = str(end)
        if self.modern and self.ttl_ms is not None:
            page |= {"resultType": "complete", "ttlMs": self.ttl_ms, "cacheScope": "private"}
        return page


async def probed_entry(server: Server, name: str = "docs", *, pin_resources: bool = False) -> ServerEntry:
    """The lock entry `mcplock add --yes --policy none` would make of ``server``: the real probe
    (:func:`mcplock.probe.session.run`) over an in-memory connection, everything staged and
    accepted with approval "never"."""
    from mcplock.lock import review
    from mcplock.lock.spec import ServerSpec
    from mcplock.probe import session as probe_session

    spec = ServerSpec(name, transport="stdio", command="python", args=(f"{name}.py",), pin_resources=pin_resources)
    conn = MemoryConnection(server)
    await conn.start()
    snap = await probe_session.run(conn, spec, ProbeOptions(timeout=5.0))
    entry = ServerEntry(name=name, spec=spec, policy="none")
    review.stage(entry, snap)
    for e in list(entry.entries()):
        review.accept(entry, e)
    return entry


async def live_diff(server: Server, entry: ServerEntry) -> tuple[list[dict[str, Any]], int]:
    """What `mcplock diff --format json` says of ``entry`` against ``server`` now: the real probe
    over an in-memory connection, then :func:`mcplock.core.diff.diff_servers` (the path diff takes):
    the server's changes (as JSON) and the exit code."""
    from mcplock.core.diff import diff_servers
    from mcplock.lock.model import Lock
    from mcplock.probe import session as probe_session

    conn = MemoryConnection(server)
    await conn.start()
    snap = await probe_session.run(conn, entry.spec, ProbeOptions(timeout=5.0))
    (diff,), code = diff_servers(Lock(servers={entry.name: entry}), [entry], {entry.name: snap})
    return diff.as_json()["changes"], code


class Host:
    """The host side of a guard session in memory: :meth:`send` is a line the host writes,
    :attr:`got` what the guard wrote back (the same interface as :class:`mcplock.guard.hostio.HostIO`)."""

    def __init__(self) -> None:
        self.got: list[dict[str, Any]] = []
        self._changed = asyncio.Event()
        self._on_message: Callable[[dict[str, Any]], None] = lambda _m: None
        self._on_end: Callable[[], None] = lambda: None
        self.on_drop: Callable[[str], None] = lambda _why: None
        self.reading = asyncio.Event()  # the guard reads the host from now on

    # --- what the guard calls ------------------------------------------------------------

    async def start(
        self,
        on_message: Callable[[dict[str, Any]], None],
        on_end: Callable[[], None],
        prefix: bytes = b"",
        on_drop: Callable[[str], None] | None = None,
    ) -> None:
        self._on_message, self._on_end = on_message, on_end
        self.reading.set()

    def send(self, msg: dict[str, Any]) -> None:
        self.got.append(msg)
        self._changed.set()

    def close(self) -> None:
        pass

    def abandon(self) -> None:
        pass

    # --- what a test does ----------------------------------------------------------------

    def send_host(self, msg: dict[str, Any]) -> None:
        self._on_message({"jsonrpc": "2.0", **msg})

    def close_stdin(self) -> None:
        self._on_end()

    async def answer(self, rid: Any, timeout: float = 5.0) -> dict[str, Any]:
        """The guard's answer to the host's request ``rid``."""
        return await self.first(
            lambda m: "method" not in m and m.get("id") == rid and type(m.get("id")) is type(rid), timeout
        )

    async def first(self, test: Callable[[dict[str, Any]], bool], timeout: float = 5.0) -> dict[str, Any]:
        async with asyncio.timeout(timeout):
            while True:
                for m in self.got:
                    if test(m):
                        return m
                self._changed.clear()
                await self._changed.wait()

    async def request(self, rid: Any, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        self.send_host({"id": rid, "method": method, **({"params": params} if params is not None else {})})
        return await self.answer(rid)


class Session:
    """A Guard between a :class:`Host` and a :class:`Server`, running in this event loop."""

    def __init__(self, guard: Guard, host: Host, conn: MemoryConnection, server: Server, task: asyncio.Task[int]):
        self.guard, self.host, self.conn, self.server, self.task = guard, host, conn, server, task

    async def initialize(self, caps: dict[str, Any] | None = None) -> dict[str, Any]:
        return await self.host.request(
            0,
            "initialize",
            {
                "protocolVersion": "2025-11-25",
                "capabilities": caps or {},
                "clientInfo": {"name": "host", "version": "1"},
            },
        )

    def upstream_got(self, method: str) -> list[dict[str, Any]]:
        return [m for m in self.conn.sent if m.get("method") == method]


@contextlib.asynccontextmanager
async def session(
    server: Server | None = None,
    *,
    lockfile: str = "mcp.lock",
    strict: bool = False,
    request_timeout: float | None = 5.0,
    immediate: bool = True,
    said: list[str] | None = None,
    entry: ServerEntry | None = None,
) -> AsyncIterator[Session]:
    """A running guard for ``entry`` (default: :func:`lockdata.accepted_server`, "docs" with TOOLS
    accepted, each with approval "always")."""
    server = server or Server()
    entry = entry or accepted_server("docs")
    conn = MemoryConnection(server, immediate=immediate)
    server.conn = conn
    host = Host()
    guard = Guard(
        entry,
        entry.spec,
        ProbeOptions(timeout=5.0),
        lockfile=lockfile,
        strict=strict,
        request_timeout=request_timeout,
        say=(said.append if said is not None else lambda _: None),
        io=host,
        connection=conn,
    )  # type: ignore[arg-type]  # Host: HostIO's interface, in memory
    task = asyncio.create_task(guard.run())
    await host.reading.wait()
    try:
        yield Session(guard, host, conn, server, task)
    finally:
        if not task.done():
            host.close_stdin()
            async with asyncio.timeout(5):
                await task
