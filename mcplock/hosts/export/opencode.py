"""opencode: ``opencode.json`` / ``opencode.jsonc`` ``permission[ID] = "deny"|"ask"|"allow"``.

opencode named an MCP tool ``<server>_<tool>``, both sanitised ``[^A-Za-z0-9_-]`` → ``_``; since
mid-2026 (anomalyco/opencode PR 33533) it names it ``mcp__<server>__<tool>``, sanitised alike.
mcplock writes both keys, so the rule holds on either version (a key that matches no tool does
nothing). The **last** matching key of ``permission`` wins: mcplock adds its keys after the
user's, so a user's earlier wildcard (``"github_*": "ask"``) does not override the lock.

Default deny: before its per-tool keys, mcplock writes a server-wide ``"S_*": "deny"`` (and
``"mcp__S__*"``), so a tool the server starts offering after the export matches only that key
and is denied; each tool the lock knows has its own key after it, which wins. A new
server-wide key goes just before the first key already in the file that matches a tool of that
server (the user's own or an older export's), so every such key keeps its effect.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from mcplock.hosts.export.interface import DENY, STRICTNESS, Decisions, Exporter, Item, sanitize
from mcplock.model.guard_argv import guard_target


def tool_ids(server: str, tool: str) -> tuple[str, str]:
    """The tool's id in older and in current opencode."""
    return f"{sanitize(server)}_{sanitize(tool)}", f"mcp__{sanitize(server)}__{sanitize(tool)}"


def server_wildcards(server: str) -> tuple[str, str]:
    """The keys that match every tool of the server, in older and in current opencode."""
    return f"{sanitize(server)}_*", f"mcp__{sanitize(server)}__*"


#: a tool name no server offers: what a key matching it would do to a tool the lock does not know
UNKNOWN_TOOL = "mcplock-unknown-tool"


def matches(pattern: str, name: str) -> bool:
    """opencode's wildcard: ``*`` any run of characters, ``?`` one character, the rest literal."""
    if not _wild(pattern):
        return pattern == name
    return _compiled(pattern).fullmatch(name) is not None


def _wild(pattern: str) -> bool:
    return "*" in pattern or "?" in pattern


@functools.lru_cache(maxsize=4096)
def _compiled(pattern: str) -> re.Pattern[str]:
    rx = "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern)
    return re.compile(rx, re.DOTALL)


class Opencode(Exporter):
    host = "opencode"
    files = ("opencode.jsonc", "opencode.json")
    servers_file = None  # the servers are in the same file as the rules
    servers_keys = ("mcp",)
    default_file = "opencode.json"
    guard_keeps = ("enabled", "disabled", "timeout")
    env_key = "environment"

    def tool_ids(self, server: str, tool: str) -> tuple[str, ...]:
        return tool_ids(server, tool)

    def starts(self, name: str, entry: Any, settings: list[Any]) -> bool:
        """``"enabled": false`` (or, in newer releases, ``"disabled": true``) keeps a server off."""
        return not isinstance(entry, dict) or (entry.get("enabled") is not False and entry.get("disabled") is not True)

    def env_ref(self, var: str) -> str:
        return "{env:" + var + "}"

    def rules(self, decisions: Decisions) -> list[Item]:
        wildcards = [Item("key", ("permission", w), DENY) for s in sorted(decisions) for w in server_wildcards(s)]
        return wildcards + [
            Item("key", ("permission", tid), d)
            for s in sorted(decisions)
            for t, d in sorted(decisions[s].items())
            for tid in tool_ids(s, t)
        ]

    def place_before(self, item: Item, siblings: list[str]) -> str | None:
        wild = item.path[-1]
        if item.path[:-1] != ("permission",) or not wild.endswith("*"):
            return None
        return next((k for k in siblings if k != wild and matches(wild, k)), None)

    def contradictions(self, data: dict[str, Any], decisions: Decisions) -> list[str]:
        perm = data.get("permission")
        if not isinstance(perm, dict):
            return []
        out = []
        for s in sorted(decisions):
            loose = _loose_after_wildcard(perm, s)
            if loose is not None:
                out.append(loose)
            out += _overridden(perm, s, decisions[s])
        return out

    def guard_entry(self, name: str, lock_args: list[str], command: str = "mcplock") -> dict[str, object]:
        return {"type": "local", "command": [command, "run", name, *lock_args]}

    def is_guard(self, entry: object) -> bool:
        cmd = entry.get("command") if isinstance(entry, dict) else None
        return isinstance(cmd, list) and bool(cmd) and guard_target(cmd[0], cmd[1:]) is not None


def _decision(value: object) -> bool:
    """A permission value that is a decision (``allow``, ``ask``, ``deny``)."""
    return isinstance(value, str) and value in STRICTNESS


def _loose_after_wildcard(perm: dict[str, Any], s: str) -> str | None:
    """A user's rule after mcplock's deny-by-default wildcard of ``s`` that lets a tool the
    lock does not know run (opencode: the last matching key wins). Only a wildcard, or the
    probe's own id, can match the id of a tool the lock does not know: the rest are skipped
    unmatched."""
    keys = list(perm)
    wilds = server_wildcards(s)
    for wild, probe in zip(wilds, tool_ids(s, UNKNOWN_TOOL), strict=True):
        after = keys[keys.index(wild) + 1 :] if wild in keys else keys
        loose = [k for k in after if (k == probe or _wild(k)) and _lets_unknown_run(perm, k, wilds, probe)]
        if loose:
            return (
                f"`permission.{loose[-1]}` = {perm[loose[-1]]!r} comes after mcplock's `{wild}` "
                f"and lets tools of `{s}` that the lock does not know run"
            )
    return None


def _lets_unknown_run(perm: dict[str, Any], k: str, wilds: tuple[str, str], probe: str) -> bool:
    """Whether the user's rule ``k`` (not one of mcplock's wildcards of the server, ``wilds``)
    lets the tool id ``probe`` of a tool the lock does not know run: a decision other than deny
    that matches it."""
    return perm[k] != DENY and k not in wilds and _decision(perm[k]) and matches(k, probe)


def _overridden(perm: dict[str, Any], s: str, tools: dict[str, str]) -> list[str]:
    """For each tool of ``s``: the rule that comes last and wins for one of its ids when it is
    looser than the lock's decision."""
    out = []
    rules = _Rules(perm)
    for t, d in sorted(tools.items()):
        for tid in tool_ids(s, t):
            rule = rules.winning(tid)
            if rule is not None and STRICTNESS[rule[1]] < STRICTNESS[d]:
                out.append(
                    f"`permission.{rule[0]}` = {rule[1]!r} comes last and wins for `{tid}`, where the lock says {d!r}"
                )
                break
    return out


class _Rules:
    """The decisions of ``permission``, indexed once: a literal key is looked up, only the
    wildcards are matched (a check of thousands of tools against thousands of keys is then
    linear, not their product — issue 42.1)."""

    def __init__(self, perm: dict[str, Any]) -> None:
        self.exact: dict[str, tuple[int, Any]] = {}
        self.wild: list[tuple[int, str, Any]] = []
        for pos, (k, v) in enumerate(perm.items()):
            if not _decision(v):
                continue
            if _wild(k):
                self.wild.append((pos, k, v))
            else:
                self.exact[k] = (pos, v)

    def winning(self, tid: str) -> tuple[str, Any] | None:
        """The rule (key, decision) that decides for the tool id ``tid``: the last that matches it
        (opencode: the last matching key wins); None when none does."""
        found = self.exact.get(tid)
        best = (found[0], tid, found[1]) if found else None
        for pos, k, v in reversed(self.wild):
            if best is not None and pos < best[0]:
                break
            if matches(k, tid):
                best = (pos, k, v)
                break
        return (best[1], best[2]) if best else None
