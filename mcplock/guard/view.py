"""What a host may see of one server: the lock's accepted definitions, checked against the
live upstream by hash (the hash the lock stores), decided by :mod:`mcplock.trust.decide`.

A :class:`View` is pure data built from a lock entry and what the upstream listed; the guard
builds a new one after every re-listing and never serves upstream text. Both inputs are fixed
for its life (the lock is read once per session), so each decision is made once per view and
remembered: the hash checks of the policy (the stored definition against its stored hash, the
live hash against the lock's) are not repeated on every call.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field, replace
from typing import Any

from mcplock.errors import HashError
from mcplock.lock.hashing import definition_hash
from mcplock.lock.model import ServerEntry
from mcplock.model.snapshot import KEY_FIELD
from mcplock.trust.decide import Decision, Host, Purpose, decide_item, decide_tool

KINDS = ("tool", "prompt", "resource-template")
# documents served from the lock on resources/read (and skills/list): mcplock.model.documents
DOCUMENT_KINDS = ("ui", "skill", "content")


def live_hashes(kind: str, items: list[dict[str, Any]]) -> dict[str, str]:
    """key -> hash of each live definition (an unhashable one gets a hash that matches nothing)."""
    out: dict[str, str] = {}
    key_field = KEY_FIELD[kind]
    for d in items:
        key = d.get(key_field)
        if not isinstance(key, str):
            continue
        try:
            out[key] = definition_hash(d)
        except HashError:
            out[key] = "unhashable"
    return out


@dataclass
class View:
    server: ServerEntry
    live: dict[str, dict[str, str]]  # kind -> key -> live hash
    live_instructions: str | None = None  # hash of the live instructions (None: none sent)
    offered: dict[str, bool] = field(default_factory=dict)  # kind -> the upstream lists that kind
    org: Any = None  # the organisation's policy (docs/policy.md): a tool it denies is neither listed nor called
    lacks: tuple[str, ...] = ()  # capabilities the lock's client declared and this host does not (policy.Host)
    _decided: dict[tuple[Any, ...], Decision] = field(default_factory=dict, init=False, repr=False, compare=False)

    # --- decisions ------------------------------------------------------------------------

    def tool(self, name: str, host: Host | None = None, *, purpose: Purpose = "call") -> Decision:
        key = ("tool", name, host, purpose)  # the host as asked: what it becomes below is fixed for the view
        d = self._decided.get(key)
        if d is None:
            host = host or Host()
            if self.org is not None and host.org is None:
                host = replace(host, org=self.org)
            if self.lacks and not host.lacks:
                host = replace(host, lacks=self.lacks)
            entry = self.server.tools.get(name)
            d = decide_tool(self.server.name, name, entry, self.live["tool"].get(name), host, purpose=purpose)
            if entry is not None:  # only the lock's own names: a host cannot grow this
                self._decided[key] = d
        return d

    def item(self, kind: str, key: str) -> Decision:
        k = (kind, key)
        d = self._decided.get(k)
        if d is None:
            entry = self.server.items[kind].get(key)
            d = decide_item(self.server.name, kind, key, entry, self.live[kind].get(key), Host(lacks=self.lacks))
            if entry is not None:
                self._decided[k] = d
        return d

    # --- what the host sees ---------------------------------------------------------------

    def definitions(self, kind: str) -> list[dict[str, Any]]:
        """The accepted definitions the host may see, from the lock, in the lock's order."""
        entries = self.server.items[kind]
        if kind == "tool":
            return [entries[k].definition for k in sorted(entries) if self.tool(k, purpose="list").allowed]
        return [entries[k].definition for k in sorted(entries) if self.item(kind, k).allowed]

    def instructions(self) -> str | None:
        e = self.server.instructions
        if e is None or not isinstance(e.definition, str):
            return None
        d = decide_item(self.server.name, "instructions", "instructions", e, self.live_instructions)
        return e.definition if d.allowed else None

    def fingerprint(self, kind: str) -> tuple[str, ...]:
        """What the host sees of ``kind``, to tell whether a re-listing changed it."""
        entries = self.server.items[kind]
        return tuple(entries[d[KEY_FIELD[kind]]].hash or "" for d in self.definitions(kind))

    def hidden(self) -> list[Decision]:
        """Why each item the lock knows or the upstream offers is not shown (for stderr)."""
        out: list[Decision] = []
        for kind in (*KINDS, *DOCUMENT_KINDS):
            keys = sorted(set(self.server.items[kind]) | set(self.live[kind]))
            for k in keys:
                d = self.tool(k, purpose="list") if kind == "tool" else self.item(kind, k)
                if not d.allowed:
                    out.append(d)
        return out

    def hidden_report(self) -> str | None:
        """The stderr lines that say what is not served and why (None: everything is)."""
        hidden = self.hidden()
        if not hidden:
            return None
        name = self.server.name
        lines = [f"mcplock: {name}: {len(hidden)} item(s) not served:"]
        lines += [f"  {d.message()}" for d in hidden[:20]]
        if len(hidden) > 20:
            from mcplock.text.untrusted import shell_word

            lines.append(f"  … and {len(hidden) - 20} more (see `mcplock diff {shell_word(name)}`)")
        return "\n".join(lines)


class Current:
    """The guard's view, the one it decides on: set once the upstream is verified, replaced by
    each re-verification (:meth:`rebuilding`), while which a decision waits (:meth:`get`)."""

    __slots__ = ("_fresh", "_rebuilding", "_view")

    def __init__(self) -> None:
        self._view: View | None = None
        self._fresh = asyncio.Event()  # set while the view is current (cleared while it is rebuilt)
        self._fresh.set()
        self._rebuilding = asyncio.Lock()

    def set(self, view: View) -> None:
        self._view = view

    @property
    def view(self) -> View | None:
        """The latest view, current or not (None before verification)."""
        return self._view

    def now(self) -> View | None:
        """The view when it is current (a decision now is the one a wait would give), else None."""
        return self._view if self._fresh.is_set() else None

    async def get(self) -> View:
        """The current view, once any rebuild under way is done."""
        await self._fresh.wait()
        assert self._view is not None
        return self._view

    @contextlib.asynccontextmanager
    async def rebuilding(self) -> AsyncIterator[View]:
        """One re-verification at a time; decisions wait until it ends. Yields the view it replaces."""
        async with self._rebuilding:
            self._fresh.clear()
            try:
                assert self._view is not None
                yield self._view
            finally:
                self._fresh.set()


def build(
    server: ServerEntry,
    tools: list[dict[str, Any]],
    prompts: list[dict[str, Any]],
    templates: list[dict[str, Any]],
    instructions: str | None,
    offered: dict[str, bool],
    documents: dict[str, list[dict[str, Any]]] | None = None,
    org: Any = None,
    lacks: tuple[str, ...] = (),
) -> View:
    live = {
        "tool": live_hashes("tool", tools),
        "prompt": live_hashes("prompt", prompts),
        "resource-template": live_hashes("resource-template", templates),
    }
    for kind in ("resource", *DOCUMENT_KINDS):  # a pinned resource listing, the pinned documents
        live[kind] = live_hashes(kind, (documents or {}).get(kind, []))
    ins = None
    if instructions is not None:
        try:
            ins = definition_hash(instructions)
        except HashError:
            ins = "unhashable"
    return View(server, live, ins, offered, org, lacks)


def from_snapshot(server: ServerEntry, snap: Any, org: Any = None, lacks: tuple[str, ...] = ()) -> View:
    caps = snap.capabilities or {}
    offered = {
        kind: caps.get(cap) not in (None, False)
        for kind, cap in (("tool", "tools"), ("prompt", "prompts"), ("resource-template", "resources"))
    }
    return build(
        server,
        snap.tools,
        snap.prompts,
        snap.resource_templates,
        snap.instructions,
        offered,
        {"resource": snap.resources or [], "ui": snap.ui, "skill": snap.skills, "content": snap.contents},
        org,
        lacks,
    )
