"""How a probe opens a conversation, in the server's own era (docs/protocol.md).

``server/discover`` first, at 2026-07-28, with the per-request ``_meta`` envelope; a
``DiscoverResult`` naming a modern version makes the conversation modern. A recognised modern
error (-32022 with the versions the server speaks) is answered with a retry at a mutual
version, never with a fallback. Anything else — another error code, an HTTP 4xx whose body is
no modern error, or, on stdio, no answer within ``DISCOVER_WAIT`` — reads as a legacy server:
``initialize`` + ``notifications/initialized`` at 2025-11-25, as before. On stdio the
``initialize`` sent after the short wait races the discover answer still on its way (a
slow-starting server), and whichever answers first decides; nothing is keyed to one error code.
Legacy HTTP+SSE servers (a deprecated transport) only ever get ``initialize``.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING, Any

from mcplock.errors import ProbeError, json_type
from mcplock.lock.spec import Transport
from mcplock.probe import era
from mcplock.probe._common import RpcError, response_result
from mcplock.text.untrusted import sanitize

if TYPE_CHECKING:
    from mcplock.lock.spec import ServerSpec
    from mcplock.model.snapshot import Snapshot
    from mcplock.probe.options import ProbeOptions
    from mcplock.probe.transport import Connection

DISCOVER_WAIT = 1.0  # stdio: seconds without an answer to server/discover before initialize is sent too
# HTTP failures of server/discover that read as "not a modern server" (a legacy one answers a
# request without a session with 400, 404, 405, 406 or 415 and no modern JSON-RPC error)
_LEGACY_KINDS = ("http", "not-found", "legacy-sse", "protocol")


class _Legacy(Exception):
    """The server is not a modern one: fall back to ``initialize``."""


def client_info(spec: ServerSpec, opts: ProbeOptions) -> dict[str, Any]:
    info: dict[str, Any] = (
        spec.client.info(opts.client_version)
        if spec.client is not None
        else {"name": opts.client_name, "version": opts.client_version}
    )
    if opts.client_title:  # a well-known host's, as it sends it (the cloaking probe)
        info["title"] = opts.client_title
    return info


async def open_session(
    t: Connection, spec: ServerSpec, opts: ProbeOptions, capabilities: dict[str, Any], snap: Snapshot
) -> None:
    """Open the conversation; fill ``snap``'s server info, version, capabilities, instructions."""
    info = client_info(spec, opts)
    if opts.era != "legacy" and spec.transport is not Transport.SSE:
        try:
            await _modern(t, opts, capabilities, info, snap)
            return
        except _Legacy:
            pass
        if opts.era == "modern":
            raise ProbeError(
                "protocol",
                "server/discover failed: the server does not speak MCP 2026-07-28",
                hint="drop the modern-only choice to let mcplock fall back to initialize",
            )
    await _initialize(t, opts, capabilities, info, snap)


# --- modern ---------------------------------------------------------------------------------


async def _modern(
    t: Connection, opts: ProbeOptions, caps: dict[str, Any], info: dict[str, Any], snap: Snapshot
) -> None:
    t.state.step = "the answer to server/discover"
    version = era.MODERN
    for attempt in range(2):
        params = {"_meta": era.envelope(version, caps, info)}
        resp = await _discover(t, opts, params, caps, info, snap)
        if resp is None:  # the initialize that raced it answered first: a legacy server, opened
            return
        if "error" in resp:
            version = _version_to_retry(resp, attempt)
            continue
        _discovered(t, resp, caps, info, snap)
        return
    raise _Legacy()


def _version_to_retry(resp: dict[str, Any], attempt: int) -> str:
    """After an error answer to server/discover: the version to ask again at (once, the mutual
    modern version the server names as supported). Else _Legacy (fall back to initialize), or a
    ProbeError when the server speaks only versions mcplock does not know."""
    try:
        response_result(resp, "server/discover")
    except RpcError as e:
        if e.code == era.UNSUPPORTED_VERSION:
            supported = era.supported_of(e.data)
            mutual = era.mutual_modern(supported)
            if mutual is not None and attempt == 0:  # once, at the version it names
                return mutual
            if supported and not any(v in era.LEGACY_VERSIONS for v in supported):
                raise ProbeError(
                    "protocol",
                    "server/discover: the server speaks only protocol versions mcplock does not know "
                    f"({sanitize(', '.join(supported), 120)})",
                    hint="a newer protocol may need a newer mcplock (upgrade it)",
                ) from None
    raise _Legacy()


def _discovered(
    t: Connection, resp: dict[str, Any], caps: dict[str, Any], info: dict[str, Any], snap: Snapshot
) -> None:
    """A server/discover result: the session opened at the mutual modern version it advertises
    (``snap`` filled), or _Legacy when it advertises none."""
    result = resp.get("result")
    if not isinstance(result, dict):
        raise ProbeError("protocol", f"server/discover: the result is {json_type(result)}, not an object")
    versions = result.get("supportedVersions")
    mutual = era.mutual_modern([v for v in versions if isinstance(v, str)] if isinstance(versions, list) else [])
    if mutual is None:  # it answers discover but advertises no modern version: a legacy advertisement
        raise _Legacy()
    _adopt(result, mutual, snap)
    t.envelope = era.envelope(mutual, caps, info)
    t.set_protocol_version(mutual)


async def _discover(
    t: Connection,
    opts: ProbeOptions,
    params: dict[str, Any],
    caps: dict[str, Any],
    info: dict[str, Any],
    snap: Snapshot,
) -> dict[str, Any] | None:
    """The answer to server/discover; None when, on stdio, the ``initialize`` sent after
    ``DISCOVER_WAIT`` answered first (``snap`` then holds the legacy session, opened)."""
    if not t.shares_one_channel:  # HTTP: every request has its own answer, at once
        try:
            return await t.request("server/discover", params)
        except ProbeError as e:
            if e.kind in _LEGACY_KINDS:
                raise _Legacy() from None
            raise
    discover: asyncio.Future[dict[str, Any]] = asyncio.ensure_future(t.request("server/discover", params))
    done, _ = await asyncio.wait([discover], timeout=min(DISCOVER_WAIT, opts.timeout / 4))
    if done:
        return discover.result()
    return await _discover_or_initialize(t, opts, discover, caps, info, snap)


async def _discover_or_initialize(
    t: Connection,
    opts: ProbeOptions,
    discover: asyncio.Future[dict[str, Any]],
    caps: dict[str, Any],
    info: dict[str, Any],
    snap: Snapshot,
) -> dict[str, Any] | None:
    """A stdio server that has not answered ``server/discover`` in time: ``initialize`` races it.
    Discover's answer when it has a result (a modern server) or when initialize failed first;
    None when initialize opened the session."""
    init: asyncio.Future[None] = asyncio.ensure_future(_initialize(t, opts, caps, info, snap))
    pending: set[asyncio.Future[Any]] = {discover, init}
    answer: dict[str, Any] | None = None
    try:
        while pending:
            finished, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
            if discover in finished:
                answer = discover.result()
                if isinstance(answer.get("result"), dict):
                    return answer  # a modern server: it refuses (or ignores) the initialize that raced
            if init in finished:
                failed = init.exception()
                if failed is None:
                    return None
                if discover not in pending:
                    raise failed
                # initialize refused while discover is on its way (-32022: a modern server): wait for it
        assert answer is not None
        return answer
    finally:
        for f in (discover, init):
            if not f.done():
                f.cancel()
                with contextlib.suppress(BaseException):
                    await f


def _adopt(result: dict[str, Any], version: str, snap: Snapshot) -> None:
    caps = result.get("capabilities")
    if not isinstance(caps, dict):
        got = "missing" if "capabilities" not in result else json_type(caps)
        raise ProbeError(
            "protocol",
            f"server/discover: `capabilities` is {got}, not an object: mcplock cannot tell "
            "which lists (tools, prompts, resources) the server offers",
            hint="report it to the server's maintainers",
        )
    meta = result["_meta"] if isinstance(result.get("_meta"), dict) else {}
    server_info = meta.get(era.SERVER_INFO_KEY, result.get("serverInfo"))
    if server_info is not None and not isinstance(server_info, dict):
        raise ProbeError("protocol", f"server/discover: `serverInfo` is {json_type(server_info)}, not an object")
    _identify(snap, "server/discover", server_info, version, caps, result.get("instructions"))


def _identify(
    snap: Snapshot, method: str, server_info: Any, version: str, caps: dict[str, Any], instructions: Any
) -> None:
    """The server's identity and instructions into ``snap``, whichever era's answer gave them."""
    if instructions is not None and not isinstance(instructions, str):
        raise ProbeError("protocol", f"{method}: `instructions` is {json_type(instructions)}, not a string")
    snap.server_info = server_info
    snap.protocol_version = version
    snap.capabilities = caps
    snap.instructions = instructions


# --- legacy ---------------------------------------------------------------------------------


def _check_version(version: str, requested: str) -> None:
    """The server must answer the protocol version mcplock asked for, or another one it knows
    (an older one is normal negotiation); anything else is refused, naming it."""
    if version == requested or version in era.LEGACY_VERSIONS:
        return
    raise ProbeError(
        "protocol",
        f"initialize: the server answered with protocol version `{sanitize(version, 60)}`, which mcplock did not "
        f"ask for ({requested}) and does not know ({', '.join(era.LEGACY_VERSIONS)})",
        hint="a newer protocol may need a newer mcplock (upgrade it); otherwise report it to the server's maintainers",
    )


def rpc_error(method: str, e: RpcError) -> ProbeError:
    msg = f"{method} failed: the server answered with error {e.code}"
    if e.message:
        msg += f": {sanitize(e.message, 300)}"
    return ProbeError("rpc", msg)


async def _initialize(
    t: Connection, opts: ProbeOptions, capabilities: dict[str, Any], info: dict[str, Any], snap: Snapshot
) -> None:
    t.state.step = "the answer to initialize"
    init = await _initialize_result(t, opts, capabilities, info)
    server_info, version, caps = _legacy_identity(init, opts.protocol_version)
    _identify(snap, "initialize", server_info, version, caps, init.get("instructions"))
    t.set_protocol_version(version)
    t.state.step = "notifications/initialized to be accepted"
    await t.notify("notifications/initialized", None)


async def _initialize_result(
    t: Connection, opts: ProbeOptions, capabilities: dict[str, Any], info: dict[str, Any]
) -> Any:
    """The result ``initialize`` got; a ProbeError when the server refused it (saying so when it
    speaks only protocol versions mcplock does not know)."""
    try:
        resp = await t.request(
            "initialize", {"protocolVersion": opts.protocol_version, "capabilities": capabilities, "clientInfo": info}
        )
        t.state.valid_messages += 1
        return response_result(resp, "initialize")
    except RpcError as e:
        if (
            e.code == era.UNSUPPORTED_VERSION
            and era.mutual_modern(era.supported_of(e.data)) is None
            and era.supported_of(e.data)
        ):
            raise ProbeError(
                "protocol",
                "initialize failed: the server speaks only protocol versions mcplock does "
                f"not know ({sanitize(', '.join(era.supported_of(e.data)), 120)})",
                hint="a newer protocol may need a newer mcplock (upgrade it)",
            ) from None
        raise rpc_error("initialize", e) from None


def _legacy_identity(init: Any, requested: str) -> tuple[Any, str, dict[str, Any]]:
    """The server info, protocol version and capabilities of an ``initialize`` result, each
    checked (a ProbeError names what is wrong)."""
    if not isinstance(init, dict):
        raise ProbeError("protocol", f"initialize: the result is {json_type(init)}, not an object")
    server_info = init.get("serverInfo")
    if server_info is not None and not isinstance(server_info, dict):
        raise ProbeError("protocol", f"initialize: `serverInfo` is {json_type(server_info)}, not an object")
    version = init.get("protocolVersion")
    if not isinstance(version, str):
        raise ProbeError("protocol", f"initialize: `protocolVersion` is {json_type(version)}, not a string")
    _check_version(version, requested)
    caps = init.get("capabilities")
    if not isinstance(caps, dict):
        # "no capabilities" would read as "no tools": a lock that pins nothing, silently
        got = "missing" if "capabilities" not in init else json_type(caps)
        raise ProbeError(
            "protocol",
            f"initialize: `capabilities` is {got}, not an object: mcplock cannot tell "
            "which lists (tools, prompts, resources) the server offers",
            hint="report it to the server's maintainers (an MCP server answers initialize with "
            "its capabilities, `{}` when it offers nothing)",
        )
    return server_info, version, caps
