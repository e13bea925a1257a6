"""Review targets, the one spelling of them: ``SERVER``, ``SERVER/TOOL``,
``SERVER/prompt:NAME``, ``SERVER/resource-template:URI``, ``SERVER/resource:URI``,
``SERVER/ui:URI`` (an App's document), ``SERVER/content:URI`` (a pinned resource's content),
``SERVER/instructions``, and ``SERVER/tool:NAME`` for any tool (the spelling of a tool whose
name reads as something else: ``instructions``, ``prompt:x``).

:func:`parse` reads one, :func:`label` writes one; the CLI, the review commands and the
hints printed after a change all go through these two. :func:`format_target` writes
``tool:`` exactly where the short spelling would be read as another item; a short spelling
that names two items of a server (a tool ``instructions`` and the instructions) is a usage
error naming both spellings.
"""

from __future__ import annotations

from dataclasses import dataclass

from mcplock.errors import UsageError
from mcplock.lock.model import Entry, Lock, ServerEntry, item_label

_PREFIXES = ("prompt", "resource-template", "resource", "ui", "skill", "content", "tool")
SPELLINGS = (
    "SERVER, SERVER/TOOL, SERVER/tool:NAME, SERVER/prompt:NAME, SERVER/resource:URI, "
    "SERVER/resource-template:URI, SERVER/ui:URI, SERVER/skill:URI, SERVER/content:URI, SERVER/instructions"
)


@dataclass(frozen=True)
class Target:
    server: str
    kind: str | None = None  # None: the whole server
    key: str | None = None
    short: str | None = None  # the text after `/` when it did not say `tool:` (it may also name a tool)

    def __str__(self) -> str:
        return format_target(self.server, self.kind, self.key)


def format_target(server: str, kind: str | None = None, key: str | None = None) -> str:
    """The spelling of a target (the inverse of :func:`parse`)."""
    if kind is None:
        return server
    if kind == "tool" and _reads_as_other(key or ""):
        return f"{server}/tool:{key}"
    return f"{server}/{item_label(kind, key or '')}"


def _reads_as_other(key: str) -> bool:
    """Whether ``SERVER/KEY`` would be read as something other than the tool ``KEY``."""
    return key == "instructions" or any(key.startswith(p + ":") for p in _PREFIXES)


def item_target(entry: Entry) -> str:
    """``entry`` as named inside its server (``search``, ``tool:instructions``, ``prompt:intro``)."""
    return format_target("", entry.kind, entry.key)[1:]


def label(server: str | ServerEntry, entry: Entry) -> str:
    """The target naming ``entry`` of ``server`` (e.g. ``docs/search``, ``docs/prompt:intro``)."""
    name = server if isinstance(server, str) else server.name
    return format_target(name, entry.kind, entry.key)


def parse(text: str, *, server_ok: bool = True) -> Target:
    """Read a target. Whether a short spelling (``docs/instructions``) names a tool too is
    for :func:`resolve` to say, with the lock at hand."""
    if "/" not in text:
        if not server_ok:
            raise UsageError(
                f"`{text}` names a server; name a tool as SERVER/TOOL", hint=f"see `mcplock list` for {text}'s tools"
            )
        return Target(text)
    server, rest = text.split("/", 1)
    if not server or not rest:
        raise UsageError(f"`{text}` is not a target", hint=f"use {SPELLINGS}")
    kind, key = _item_of(rest)
    return Target(server, kind, key, None if rest.startswith("tool:") else rest)


def _item_of(rest: str) -> tuple[str, str]:
    """(kind, key) of what the text after ``SERVER/`` names: the instructions, an item of the kind
    its prefix says, else a tool."""
    if rest == "instructions":
        return "instructions", "instructions"
    for prefix in _PREFIXES:
        if rest.startswith(prefix + ":"):
            return prefix, rest[len(prefix) + 1 :]
    return "tool", rest


def server_of(lock: Lock, name: str) -> ServerEntry:
    srv = lock.server(name)
    if srv is None:
        raise unknown_server(lock, name, "the lock")
    return srv


def unknown_server(lock: Lock, name: str, where: str, hint: str = "see `mcplock list`") -> UsageError:
    """No server ``name`` in ``lock`` (read from ``where``): the names it has, and the one meant
    when ``name`` is a mistyping of it (every command that takes a server's name says it so)."""
    from mcplock.text.suggest import did_you_mean

    known = ", ".join(sorted(lock.servers)) or "none"
    meant = did_you_mean(name, lock.servers)
    return UsageError(f"no server `{name}` in {where} (locked: {known})", hint=f"{meant} ({hint})" if meant else hint)


def select(lock: Lock, names: list[str]) -> list[ServerEntry]:
    """The named servers (every server, sorted, when none is named)."""
    if not names:
        return [lock.servers[n] for n in sorted(lock.servers)]
    return [server_of(lock, n) for n in names]


def _short_as_tool(srv: ServerEntry, target: Target, kind: str, entry: Entry | None) -> Entry | None:
    """``docs/instructions``, ``docs/prompt:x``: a tool may carry that very name. The tool when
    only a tool does; a usage error when the item exists too (the name is ambiguous)."""
    tool = srv.tools.get(target.short) if target.short is not None else None
    if tool is not None and entry is not None:
        other = format_target(srv.name, kind, target.key)
        as_tool = format_target(srv.name, "tool", target.short)
        raise UsageError(
            f"`{target.server}/{target.short}` names two things of `{srv.name}`: the {_what(kind)} "
            f"(`{other}`) and a tool (`{as_tool}`)",
            hint=f"write `{as_tool}` for the tool, `{other}` for the {_what(kind)}",
        )
    return tool


def _not_found(srv: ServerEntry, target: Target) -> UsageError:
    """No such item: the one of that kind meant, when the name is a mistyping of it."""
    from mcplock.text.suggest import did_you_mean

    kind = target.kind or "tool"
    hint = f"see `mcplock list` for what `{srv.name}` has"
    keys = [e.key for e in srv.entries() if e.kind == kind]
    meant = did_you_mean(target.key or "", keys, lambda k: format_target(srv.name, kind, k))
    return UsageError(f"no {kind} `{target.key}` on server `{srv.name}`", hint=meant or hint)


def refuse_mistyped(lock: Lock, target: Target) -> None:
    """Before anything runs (`call`): an item ``target`` names that the lock lacks while it has one
    named almost so is a typo, refused with the name meant. An item the lock lacks with no name
    near it is left for the guard to judge (a tool the server started offering)."""
    from mcplock.text.suggest import closest

    srv = lock.server(target.server)
    if srv is None or target.kind is None or srv.find(target.kind, target.key or "") is not None:
        return
    if closest(target.key or "", [e.key for e in srv.entries() if e.kind == target.kind]) is not None:
        raise _not_found(srv, target)


def resolve(lock: Lock, target: Target, *, tool_only: bool = False) -> tuple[ServerEntry, list[Entry]]:
    """The server and entries ``target`` names. ``tool_only``: it must name tools (a server
    names all of them)."""
    srv = server_of(lock, target.server)
    if target.kind is None:
        return srv, list(srv.entries())
    entry = _named_entry(srv, target, target.kind)
    if entry is None:
        raise _not_found(srv, target)
    if tool_only and entry.kind != "tool":
        raise UsageError(
            f"`{format_target(srv.name, entry.kind, entry.key)}` is not a tool",
            hint="only tools have `enabled` and `approval` flags",
        )
    return srv, [entry]


def _named_entry(srv: ServerEntry, target: Target, kind: str) -> Entry | None:
    """The entry ``target`` names on ``srv``: a short spelling (``docs/instructions``) may name a
    tool instead (:func:`_short_as_tool`)."""
    entry = srv.find(kind, target.key or "")
    if kind == "tool":
        return entry
    tool = _short_as_tool(srv, target, kind, entry)
    return tool if tool is not None else entry


def _what(kind: str) -> str:
    return "server's instructions" if kind == "instructions" else kind
