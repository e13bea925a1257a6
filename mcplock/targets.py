"""Review targets, the one spelling of them: ``SERVER``, ``SERVER/TOOL``,
``SERVER/prompt:NAME``, ``SERVER/resource-template:URI``, ``SERVER/resource:URI``,
``SERVER/instructions``.

:func:`parse` reads one, :func:`label` writes one; the CLI, the review commands and the
hints printed after a change all go through these two.
"""

from __future__ import annotations

from dataclasses import dataclass

from mcplock.errors import UsageError
from mcplock.lock.model import Entry, Lock, ServerEntry, item_label

_PREFIXES = ("prompt", "resource-template", "resource", "tool")
SPELLINGS = "SERVER, SERVER/TOOL, SERVER/prompt:NAME, SERVER/instructions"


@dataclass(frozen=True)
class Target:
    server: str
    kind: str | None = None  # None: the whole server
    key: str | None = None

    def __str__(self) -> str:
        return format_target(self.server, self.kind, self.key)


def format_target(server: str, kind: str | None = None, key: str | None = None) -> str:
    """The spelling of a target (the inverse of :func:`parse`)."""
    if kind is None:
        return server
    return f"{server}/{item_label(kind, key or '')}"


def label(server: str | ServerEntry, entry: Entry) -> str:
    """The target naming ``entry`` of ``server`` (e.g. ``docs/search``, ``docs/prompt:intro``)."""
    name = server if isinstance(server, str) else server.name
    return format_target(name, entry.kind, entry.key)


def parse(text: str, *, tool_only: bool = False, server_ok: bool = True) -> Target:
    if "/" not in text:
        if not server_ok:
            raise UsageError(f"`{text}` names a server; name a tool as SERVER/TOOL", hint=f"see `mcplock list` for {text}'s tools")
        return Target(text)
    server, rest = text.split("/", 1)
    if not server or not rest:
        raise UsageError(f"`{text}` is not a target", hint=f"use {SPELLINGS}")
    kind, key = "tool", rest
    if rest == "instructions":
        kind, key = "instructions", "instructions"
    else:
        for prefix in _PREFIXES:
            if rest.startswith(prefix + ":"):
                kind, key = prefix, rest[len(prefix) + 1 :]
                break
    if tool_only and kind != "tool":
        raise UsageError(f"`{text}` is not a tool", hint="only tools have `enabled` and `approval` flags")
    return Target(server, kind, key)


def server_of(lock: Lock, name: str) -> ServerEntry:
    srv = lock.server(name)
    if srv is None:
        known = ", ".join(sorted(lock.servers)) or "none"
        raise UsageError(f"no server `{name}` in the lock (locked: {known})", hint="see `mcplock list`")
    return srv


def select(lock: Lock, names: list[str]) -> list[ServerEntry]:
    """The named servers (every server, sorted, when none is named)."""
    if not names:
        return [lock.servers[n] for n in sorted(lock.servers)]
    return [server_of(lock, n) for n in names]


def resolve(lock: Lock, target: Target) -> tuple[ServerEntry, list[Entry]]:
    srv = server_of(lock, target.server)
    if target.kind is None:
        return srv, list(srv.entries())
    entry = srv.find(target.kind, target.key or "")
    if entry is None:
        what = "tool" if target.kind == "tool" else target.kind
        hint = f"see `mcplock list` for what `{srv.name}` has"
        if target.kind == "tool" and target.key:
            close = [k for k in srv.tools if k.lower() == target.key.lower()]
            if close:
                hint = f"did you mean `{format_target(srv.name, 'tool', close[0])}`?"
        raise UsageError(f"no {what} `{target.key}` on server `{srv.name}`", hint=hint)
    return srv, [entry]
