"""The MCP conversation over a :class:`~mcplock.probe.transport.Connection`, whatever carries
it: open it in the server's era (:mod:`mcplock.probe._open`: ``server/discover``, or
``initialize`` + ``notifications/initialized``), then the paginated ``*/list`` calls
(:func:`run`); one list again later (:func:`list_all` of :mod:`mcplock.probe._lists`, re-exported
here: the guard after ``list_changed``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mcplock.lock.spec import ServerSpec
from mcplock.model.snapshot import Snapshot
from mcplock.probe import era
from mcplock.probe._lists import LISTS, list_all
from mcplock.probe._open import open_session

if TYPE_CHECKING:
    from mcplock.probe.options import ProbeOptions
    from mcplock.probe.transport import Connection

__all__ = ["KNOWN_PROTOCOL_VERSIONS", "LISTS", "list_all", "run"]

# the MCP protocol versions mcplock reads (the newest is what it asks for)
KNOWN_PROTOCOL_VERSIONS = era.LEGACY_VERSIONS


async def run(
    t: Connection, spec: ServerSpec, opts: ProbeOptions, capabilities: dict[str, Any] | None = None
) -> Snapshot:
    """Initialize, then list everything; ``capabilities``: the client's (a guard passes its host's)."""
    from mcplock.model import client_capabilities

    snap = Snapshot()
    if capabilities is None and opts.capabilities is not None:  # a well-known host's (probe/cloak.py)
        capabilities = dict(opts.capabilities)
    if capabilities is None:  # the host this probe stands for (a guard passes its real host's)
        names = client_capabilities.chosen(opts.client_capabilities, spec.client_capabilities)
        capabilities = client_capabilities.declare(names)
    snap.client_capabilities = client_capabilities.names(capabilities)
    await open_session(t, spec, opts, capabilities, snap)
    await _list_everything(t, spec, opts, snap)
    for _ in range(opts.relist):  # the same session asked again: the last answer is the one kept
        await _harmless(t)  # a host does more than list: a server may wait for that before it changes
        snap.tools, snap.prompts, snap.resource_templates = [], [], []
        snap.resources, snap.ui, snap.contents, snap.skills = None, [], [], []
        await _list_everything(t, spec, opts, snap)
    t.state.step = "done"
    return snap


async def _harmless(t: Connection) -> None:
    """A request a host sends that lists nothing and changes nothing (``ping``); a server that
    refuses it is not the question here."""
    from mcplock.errors import ProbeError

    try:
        await t.request("ping", {})
    except ProbeError:
        pass


async def _list_everything(t: Connection, spec: ServerSpec, opts: ProbeOptions, snap: Snapshot) -> None:
    caps = snap.capabilities
    if era.advertised(caps, "tools"):
        snap.tools = await list_all(t, opts, "tools")
        t.tools = {tool["name"]: tool for tool in snap.tools}  # for the Mcp-Param-* headers of a call (HTTP)
    if era.advertised(caps, "prompts"):
        snap.prompts = await list_all(t, opts, "prompts")
    if era.advertised(caps, "resources"):
        snap.resource_templates = await list_all(t, opts, "templates")
        if spec.pin_resources:
            snap.resources = await list_all(t, opts, "resources")
    elif spec.pin_resources:
        snap.resources = []
    from mcplock.probe._reads import read_documents

    await read_documents(t, spec, opts, snap)
