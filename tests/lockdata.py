"""Build small locks for tests through the real model and writer."""

from __future__ import annotations

from pathlib import Path

from mcplock.lock import review, store
from mcplock.lock.model import Lock, ServerEntry
from mcplock.lock.spec import ServerSpec
from mcplock.model.snapshot import Snapshot

TOOLS = [
    {
        "name": "search_docs",
        "description": "Search the docs.",
        "annotations": {"readOnlyHint": True},
        "inputSchema": {
            "type": "object",
            "properties": {"query": {"type": "string", "maxLength": 100}},
            "required": ["query"],
        },
    },
    {
        "name": "delete_page",
        "description": "Delete a page.",
        "inputSchema": {
            "type": "object",
            "properties": {"id": {"$ref": "#/$defs/id"}},
            "required": ["id"],
            "$defs": {"id": {"type": "string", "pattern": "^[a-z0-9-]+$"}},
        },
    },
]


def snapshot(tools=None, instructions="Use these tools for the docs.", prompts=None) -> Snapshot:
    return Snapshot(
        server_info={"name": "docs", "version": "1.0.0"},
        protocol_version="2025-11-25",
        instructions=instructions,
        tools=list(TOOLS if tools is None else tools),
        prompts=list(prompts or []),
    )


def accepted_server(name: str, tools: list | None = None) -> ServerEntry:
    """A stdio server `python NAME.py` with ``tools`` (default TOOLS) locked and all accepted."""
    srv = ServerEntry(name=name, spec=ServerSpec(name, transport="stdio", command="python", args=(f"{name}.py",)))
    review.stage(srv, snapshot(tools))
    for e in list(srv.entries()):
        review.accept(srv, e)
    return srv


def make_lock(
    path: Path | str = "mcp.lock", *, policy: str = "all", accept: bool = True, snap: Snapshot | None = None
) -> Path:
    spec = ServerSpec("docs", transport="stdio", command="python", args=("server.py",))
    srv = ServerEntry(name="docs", spec=spec, policy=policy)
    review.stage(srv, snap or snapshot())
    if accept:
        for e in list(srv.entries()):
            review.accept(srv, e)
    store.save(Lock(servers={"docs": srv}), str(path))
    return Path(path)


def diff_all(pairs: list[tuple[ServerEntry, Snapshot]], lock: Lock | None = None) -> list:
    """The ServerDiffs of each (server, live snapshot) with the cross-server findings, through
    the path `mcplock diff` takes (:func:`mcplock.core.diff.diff_servers`). Servers of ``lock``
    not in ``pairs`` count with their accepted tools."""
    from mcplock.core.diff import diff_servers

    view = lock if lock is not None else Lock(servers={srv.name: srv for srv, _ in pairs})
    diffs, _ = diff_servers(view, [srv for srv, _ in pairs], {srv.name: snap for srv, snap in pairs})
    return diffs
