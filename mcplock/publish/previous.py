"""``surface --against PREVIOUS``: the previous release as a statement — a file (a statement, or a
lock's one server), or a published package (``npm:NAME[@VERSION]``, ``pypi:NAME[==VERSION]``):
its shipped ``mcp-surface.json`` when it ships one, else the release installed into mcplock's
cache for the caller to probe."""

from __future__ import annotations

from typing import Any

from mcplock.errors import UsageError
from mcplock.lock.spec import ServerSpec, Transport
from mcplock.publish.statement import Statement, build


def read_previous(path: str) -> Statement:
    """A statement file as it is; a lock of one server as the statement of what it accepted."""
    from mcplock.publish.offline import lock_snapshot, read_side

    side = read_side(path)
    if side.statement is not None:
        return side.statement
    assert side.lock is not None
    servers = list(side.lock.servers.values())
    if len(servers) != 1:
        raise UsageError(
            f"--against {path}: a lock of {len(servers)} servers; name one release",
            hint="give the previous release's mcp-surface.json, or its package (npm:NAME@VERSION)",
        )
    srv = servers[0]
    return build(lock_snapshot(srv), srv.name)


def package_spec(text: str) -> ServerSpec | None:
    """``npm:NAME[@VERSION]`` / ``pypi:NAME[==VERSION]`` as the launch that runs that release."""
    registry, sep, rest = text.partition(":")
    if not sep or not rest or registry not in ("npm", "pypi"):
        return None
    if registry == "npm":
        return ServerSpec(name="previous", transport=Transport.STDIO, command="npx", args=("-y", rest))
    return ServerSpec(name="previous", transport=Transport.STDIO, command="uvx", args=(rest,))


def shipped_or_none(spec: ServerSpec, environ: Any) -> tuple[Statement | None, ServerSpec]:
    """The release pinned and installed (verified) in mcplock's cache; the statement it ships, if
    any, and the pinned spec (a probe of it runs the verified artefact)."""
    from mcplock.packages import pin_and_prepare
    from mcplock.publish import shipped
    from mcplock.publish.statement import read

    pinned, _ready = pin_and_prepare(spec, environ)
    found = shipped.find(pinned.package, environ)
    return (read(str(found.path)) if found is not None else None), pinned
