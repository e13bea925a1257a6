"""What one host exporter provides: where its settings live and which rules the lock's
decisions become there. The merge, the record of what mcplock wrote, the guard and the
writes are host-independent (``mcplock.core.export``); a new host is one module here.

A rule is an :class:`Item`: ``member`` — the string ``value`` is in the list at ``path``
(Claude Code's ``permissions.deny``), ``key`` — the key at ``path`` holds ``value``
(opencode's ``permission["S_T"] = "deny"``), or ``list`` — a list exists at ``path``, empty if
nothing else is in it (an allowlist such as Codex's ``enabled_tools``: absent, the host allows
every tool; present and empty, none).

The lock is an allowlist, so an export is one where the host can say it (``default_deny``): a
tool the lock does not know — one the server started offering after the export — is not usable
through the exported settings alone. docs/export.md has the table per host.
"""

from __future__ import annotations

import functools
import re
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any

from mcplock.model.guard_argv import guard_target

DENY, ASK, ALLOW = "deny", "ask", "allow"
Decisions = dict[str, dict[str, str]]  # server -> tool -> deny|ask|allow


@dataclass(frozen=True, order=True)
class Item:
    kind: str  # "member" | "key"
    path: tuple[str, ...]
    value: str

    def as_json(self) -> list[Any]:
        return [self.kind, list(self.path), self.value]

    @classmethod
    def from_json(cls, raw: Any) -> Item:
        kind, path, value = raw
        return cls(str(kind), tuple(str(p) for p in path), str(value))


STRICTNESS = {ALLOW: 0, ASK: 1, DENY: 2}


@functools.lru_cache(maxsize=65536)
def sanitize(name: str) -> str:
    """The usual host rule for names in tool ids: anything but ``[A-Za-z0-9_-]`` becomes ``_``."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", name)


class Exporter(ABC):
    #: the host's name on the command line
    host: str
    #: settings files the rules go to, relative to the project; the first existing one is used
    files: tuple[str, ...]
    fmt: str = "json"  # "json" | "toml"
    #: where the host's MCP servers are defined (file, key path to the servers object), for --guard;
    #: None: in the settings file itself
    servers_file: str | None = None
    servers_keys: tuple[str, ...] = ("mcpServers",)
    #: where to read which servers the host launches when that is not ``servers_file`` (Cursor's
    #: allowlist: ``.cursor/mcp.json``; never edited through this exporter)
    launches_file: str | None = None
    #: whether a per-server rule needs the server to be defined in ``files[0]`` (Codex, Gemini:
    #: a table with only rules would be a broken server entry)
    per_server_in_file: bool = False
    #: keys of a server entry that stay when --guard replaces it (tool filters the host applies)
    guard_keeps: tuple[str, ...] = ()
    #: the settings file written when none of ``files`` exists yet
    default_file: str = ""
    #: more settings files of the same host, each with an exporter of its own
    also: tuple[Exporter, ...] = ()
    #: whether the rules deny what the lock does not know (a tool added upstream after the
    #: export); where False, ``unknown_tools`` says what the host does with such a tool
    default_deny: bool = True
    unknown_tools: str = ""

    @abstractmethod
    def rules(self, decisions: Decisions) -> list[Item]:
        """The rules that make the host do what the lock says, in a stable order."""

    def tool_ids(self, server: str, tool: str) -> tuple[str, ...]:
        """The ids the host knows the tool by: two tools that share one are one tool to it
        (:mod:`mcplock.hosts.export.safety`). Default: the raw names, which never collide."""
        return (f"{server}\0{tool}",)

    @property
    def new_file(self) -> str:
        return self.default_file or self.files[0]

    def detect(self, exists: Any) -> bool:
        """Whether the project uses this host (``exists(relpath)``): its settings or its server list exist."""
        return any(exists(f) for f in self.files) or (self.servers_file is not None and exists(self.servers_file))

    #: more of the host's own settings files that can turn a server off (read, never written)
    switch_files: tuple[str, ...] = ()

    def starts(self, name: str, entry: Any, settings: list[Any]) -> bool:
        """Whether the host starts the server ``name`` its project config defines (``entry``),
        given its settings (the settings file's data, then each of ``switch_files``'; ``{}``
        where absent). Default: every server it defines."""
        return True

    def place_before(self, item: Item, siblings: list[str]) -> str | None:
        """Where a new key goes among the keys already in its object: before the sibling named
        (opencode: the last matching key wins), or at the end (None)."""
        return None

    def contradictions(self, data: dict[str, Any], decisions: Decisions) -> list[str]:
        """The user's own settings in ``data`` that make the host looser than the lock, even
        with mcplock's rules in place (mcplock never changes them; ``check`` reports them)."""
        return []

    #: the key of a server entry holding its environment
    env_key: str = "env"

    def env_ref(self, var: str) -> str:
        """How this host's config refers to an environment variable (passed on to the guard)."""
        return "${" + var + "}"

    def lock_arg(self, rel_lock: str) -> str | None:
        """The ``--lockfile`` the guard gets (None: the default ``mcp.lock`` in the directory the
        host starts servers in, the project)."""
        return None if rel_lock == "mcp.lock" else rel_lock

    def guard_entry(self, name: str, lock_args: list[str], command: str = "mcplock") -> dict[str, Any]:
        """The entry that launches the guard for ``name`` (``command``: ``mcplock``, or its path)."""
        return {"command": command, "args": ["run", name, *lock_args]}

    def is_guard(self, entry: Any) -> bool:
        return isinstance(entry, dict) and guard_target(entry.get("command"), entry.get("args")) is not None
