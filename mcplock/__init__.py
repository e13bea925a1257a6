"""mcplock: a lockfile for MCP servers.

The library API for hosts::

    import mcplock
    lock = mcplock.load("mcp.lock")
    tools = lock.enabled_tools()
    mcplock.requires_approval(tools[0])
    mcplock.validate_arguments(tools[0], {"query": "x"})

    async with mcplock.connect("docs") as s:   # a guarded client: verified against the lock
        await s.list_tools()
        await s.call_tool("search_docs", {"query": "x"})

Importing ``mcplock`` stays light: jsonschema loads on the first validation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mcplock._version import __version__  # the one version source (mcplock/_version.py)

__all__ = [
    "InvalidArguments",
    "LockedServers",
    "LockedTool",
    "LockfileError",
    "McplockError",
    "__version__",
    "connect",
    "load",
    "requires_approval",
    "validate_arguments",
]

if TYPE_CHECKING:  # pragma: no cover
    from mcplock.api import (
        LockedServers,
        LockedTool,
        connect,
        load,
        requires_approval,
        validate_arguments,
    )
    from mcplock.errors import InvalidArguments, LockfileError, McplockError


def __getattr__(name: str) -> Any:
    if name in ("load", "requires_approval", "validate_arguments", "LockedServers", "LockedTool"):
        from mcplock import api

        return getattr(api, name)
    if name in ("McplockError", "LockfileError", "InvalidArguments"):
        from mcplock import errors

        return getattr(errors, name)
    if name == "connect":
        from mcplock.api import connect

        return connect
    raise AttributeError(name)
