"""The cloaking probe (`mcplock diff --cloak`; docs/protocol.md, "Cloaking"): each server probed
again as each well-known host announces itself, and once more listing everything again after a
few requests in one session, all at once. What each identity declares is what that host sends
(read from each host's own source; docs/protocol.md lists them with where they come from).

A server can answer a scanner one way and a host another (by ``clientInfo`` and its title, by
capabilities, by the protocol era a client opens with, by the HTTP ``User-Agent``, or after a
few requests); the guard catches that at run time for hosts that go through it, and this probe
catches it for every other host and every CI gate. Each identity opens as its host does (the
era, ``initialize``'s protocol version, ``clientInfo`` with its title, the capabilities), sends a
``ping`` — a request that lists nothing — and lists everything again; the answer compared is
that last one. An item listed exactly to the identities that declare a capability it needs is
the protocol at work, not cloaking (:func:`mcplock.lint.cloaking.cloaking`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from mcplock.errors import ProbeError
from mcplock.lock.spec import ClientIdentity, ServerSpec
from mcplock.model.documents import APP_MIME_TYPE, UI_EXTENSION
from mcplock.model.snapshot import Snapshot

RELIST = 3  # the repeat identity lists everything this many more times in its session


@dataclass(frozen=True)
class Identity:
    label: str  # how a finding names it
    name: str  # clientInfo.name (and the HTTP User-Agent's product)
    version: str
    capabilities: Mapping[str, Any]
    relist: int = 0
    title: str | None = None  # clientInfo.title, where the host sends one
    era: str = "legacy"  # how it opens: these hosts' released clients send `initialize`, not server/discover
    protocol_version: str = "2025-11-25"  # the version its `initialize` asks for

    def describe(self) -> str:
        if self.relist:
            return f"{self.label} (the same session, after {self.relist} more listings)"
        return f"{self.label} (clientInfo `{self.name}` {self.version})"


_UI = {UI_EXTENSION: {"mimeTypes": [APP_MIME_TYPE]}}

IDENTITIES: tuple[Identity, ...] = (
    # @anthropic-ai/claude-code 2.1.332: Client({name: "claude-code", title: "Claude Code", ...})
    Identity("Claude Code", "claude-code", "2.1.332", {"roots": {}, "elicitation": {}}, title="Claude Code"),
    # Cursor: clientInfo "cursor-vscode", roots without listChanged
    Identity("Cursor", "cursor-vscode", "1.0.0", {"roots": {"listChanged": False}, "elicitation": {}}),
    # Codex (codex-rs, rmcp client): "codex-mcp-client", elicitation
    Identity("Codex", "codex-mcp-client", "0.58.0", {"elicitation": {}}),
    # @google/gemini-cli 0.61.0: new Client({name: "gemini-cli-mcp-client", ...}), roots.listChanged
    Identity("Gemini CLI", "gemini-cli-mcp-client", "0.61.0", {"roots": {"listChanged": True}}),
    # VS Code: its product name, roots, sampling, elicitation and MCP Apps
    Identity(
        "VS Code",
        "Visual Studio Code",
        "1.106.0",
        {"roots": {"listChanged": True}, "sampling": {}, "elicitation": {}, "extensions": _UI},
    ),
)


def repeat_identity() -> Identity:
    """The first probe's client again, listing again after a few requests in its session."""
    return Identity("mcplock, asked again", "", "", {}, relist=RELIST)


def _as(spec: ServerSpec, opts: Any, who: Identity) -> tuple[ServerSpec, Any]:
    if who.relist:  # the same client as the first probe, the same session listed again
        return spec, replace(opts, relist=who.relist)
    return (
        replace(spec, client=ClientIdentity(who.name, who.version), client_capabilities=None),
        replace(
            opts,
            client_name=who.name,
            client_version=who.version,
            client_title=who.title,
            capabilities=dict(who.capabilities),
            era=who.era,
            protocol_version=who.protocol_version,
            relist=1,  # a harmless request (ping) and the lists again, as a host's session goes on
        ),
    )


Answers = list[tuple[Identity, Snapshot | ProbeError]]


def probe_as_hosts(
    specs: list[ServerSpec],
    opts: Any,
    identities: tuple[Identity, ...] | None = None,
) -> dict[str, Answers]:
    """Each spec probed as each identity (and the repeat identity), concurrently (at most
    ``opts.concurrency`` at once): server name -> [(identity, its snapshot or error)], in order."""
    from mcplock.probe import kill_all_live, probe

    who = (*(IDENTITIES if identities is None else identities), repeat_identity())
    jobs = [(s, w) for s in specs for w in who]

    async def main() -> list[Snapshot | ProbeError]:
        asyncio.get_running_loop().set_exception_handler(lambda loop, context: None)
        sem = asyncio.Semaphore(max(1, opts.concurrency))

        async def one(spec: ServerSpec, w: Identity) -> Snapshot | ProbeError:
            async with sem:
                s, o = _as(spec, opts, w)
                try:
                    return await probe(s, o)
                except ProbeError as e:
                    if o.era != "legacy":
                        return e
                try:  # a server that speaks only the modern era: the host's SDK would discover it
                    return await probe(s, replace(o, era="auto"))
                except ProbeError as e:
                    return e
                except Exception as e:  # a bug must not spoil the other probes
                    return ProbeError(
                        "internal",
                        f"server `{spec.name}`: the cloaking probe as {w.label} failed: {type(e).__name__}: {e}",
                    )

        return list(await asyncio.gather(*(one(s, w) for s, w in jobs)))

    try:
        got = asyncio.run(main())
    finally:
        kill_all_live()
    out: dict[str, Answers] = {s.name: [] for s in specs}
    for (s, w), r in zip(jobs, got, strict=True):
        out[s.name].append((w, r))
    return out
