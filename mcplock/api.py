"""The library API for hosts that read ``mcp.lock`` (see docs/architecture.md).

    import mcplock
    lock = mcplock.load("mcp.lock")
    for tool in lock.enabled_tools():          # accepted definitions of enabled tools only
        ...
    if mcplock.requires_approval(tool): ask the user
    mcplock.validate_arguments(tool, args)     # raises mcplock.InvalidArguments

Only accepted definitions of enabled tools are visible: a pending proposal, a
rejected, a never-accepted, a tampered (fails its hash) or a quarantined (changed
upstream) tool never reaches a host through this API, whatever its `enabled` flag says.
``requires_approval`` reads the stored flag only; annotations are never trusted.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from mcplock.errors import InvalidArguments, LockfileError
from mcplock.lock.model import Entry, Lock
from mcplock.lock.read import load as _load


@dataclass(frozen=True)
class LockedTool:
    server: str
    name: str
    definition: Mapping[str, Any]  # the accepted wire definition, read-only
    hash: str
    approval: str

    @property
    def description(self) -> str | None:
        d = self.definition.get("description")
        return d if isinstance(d, str) else None

    @property
    def input_schema(self) -> Mapping[str, Any]:
        s = self.definition.get("inputSchema")
        return s if isinstance(s, Mapping) else {"type": "object"}


class LockedServers:
    """A loaded lock, seen as a host should see it."""

    def __init__(self, lock: Lock) -> None:
        self._lock = lock

    @property
    def servers(self) -> list[str]:
        return sorted(self._lock.servers)

    def instructions(self, server: str) -> str | None:
        srv = self._lock.servers.get(server)
        if srv is None or srv.instructions is None:
            return None
        return srv.instructions.definition if isinstance(srv.instructions.definition, str) else None

    def enabled_tools(self, server: str | None = None) -> list[LockedTool]:
        return list(self._iter(server))

    def tool(self, server: str, name: str) -> LockedTool | None:
        for t in self._iter(server):
            if t.name == name:
                return t
        return None

    def _iter(self, only: str | None) -> Iterator[LockedTool]:
        for sname in sorted(self._lock.servers):
            if only is not None and sname != only:
                continue
            srv = self._lock.servers[sname]
            for key in sorted(srv.tools):
                e = srv.tools[key]
                if not servable(e) or e.hash is None:  # (servable() says it has one)
                    continue
                yield LockedTool(sname, key, MappingProxyType(dict(e.definition)), e.hash, e.approval)


def servable(e: Entry) -> bool:
    """Whether a host may serve tool ``e``: enabled, accepted, its definition matching its
    hash, not rejected (its server offers a definition a person refused) and not quarantined
    (its server changed it since it was accepted)."""
    if not e.enabled or e.definition is None or e.hash is None:
        return False
    if e.rejected_hash is not None or (e.pending is not None and e.pending.change == "changed"):
        return False
    return not e.tampered()


def load(path: str | os.PathLike[str] = "mcp.lock", *, verify: bool = True) -> LockedServers:
    """Read a lock (raises :class:`mcplock.LockfileError` with file, line and hint).

    With ``verify`` (the default) every stored definition is checked against its hash and
    a mismatch fails closed: a host never serves a definition someone edited by hand.
    """
    lock = _load(path)
    if verify:
        from mcplock.core.check import integrity

        bad = integrity(lock)
        if bad:
            raise LockfileError(
                "; ".join(f.message for f in bad),
                path=os.fspath(path),
                hint=bad[0].hint,
                code="hash-mismatch",
            )
    return LockedServers(lock)


def requires_approval(tool: LockedTool) -> bool:
    """Whether the host must ask the user before calling ``tool``.

    Only the stored, person-decided flag counts; anything but ``never`` means ask.
    """
    return tool.approval != "never"


def validate_arguments(tool: LockedTool, arguments: Any) -> None:
    """Validate call arguments against the locked input schema (full JSON Schema, $ref/$defs).

    Validating locally first means a later upstream "invalid params" error is evidence
    that the lock and the live server differ: the drift signal.
    """
    import jsonschema
    from jsonschema import validators

    schema = dict(tool.input_schema)
    cls = validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    try:
        cls.check_schema(schema)
    except jsonschema.SchemaError as e:
        raise InvalidArguments(
            f"the locked schema of `{tool.server}/{tool.name}` is not a valid JSON Schema: {e.message}", [e.message]
        ) from None
    from mcplock.guard.calls import Declared

    validator = cls(schema)
    instance = dict(arguments) if isinstance(arguments, Mapping) else arguments
    errors = sorted(validator.iter_errors(instance), key=lambda e: [str(p) for p in e.absolute_path])
    msgs = Declared(schema).undeclared(instance)  # an argument no reviewed definition asked for
    msgs += [f"{'/'.join(str(p) for p in e.absolute_path) or '(root)'}: {e.message}" for e in errors]
    if msgs:
        raise InvalidArguments(
            f"arguments for `{tool.server}/{tool.name}` do not match its locked schema: " + "; ".join(msgs), msgs
        )


def connect(
    name: str,
    lockfile: str | os.PathLike[str] = "mcp.lock",
    *,
    approve: Any = False,
    timeout: float = 30.0,
    client_name: str | None = None,
    client_version: str | None = None,
    on_elicit: Any = None,
    policy: str | None = None,
) -> Any:
    """A guarded client for the locked server ``name``, with the enforcement of ``mcplock run``::

        async with mcplock.connect("docs") as s:
            tools = await s.list_tools()      # accepted definitions of enabled, unchanged tools
            result = await s.call_tool("search_docs", {"query": "x"})

    It connects as ``mcplock diff`` does (spec, ``${VAR}`` secrets, client identity, OAuth
    tokens) and verifies every definition against the lock first. ``approve``: ``True`` to
    approve approval-always tools, or a callable ``(server, tool, arguments) -> bool`` (may be
    async) asked before each such call; without it they are refused. Raises
    ``mcplock.guard.session.Refused`` (nothing sent), :class:`InvalidArguments` (checked
    locally against the locked schema) or ``ProbeError`` (server unreachable).

    ``on_elicit``: a callable ``(server, params) -> answer`` (may be async) asked when the server
    asks the user a question during a call (``elicitation/create``; ``params`` holds its
    ``message`` and ``requestedSchema``). Return ``{"action": "accept", "content": {...}}``,
    ``{"action": "decline"}`` or ``{"action": "cancel"}``; an accepted form gets the defaults
    of the fields it leaves out and is checked against the schema (declined when it does not
    pass): returning ``{"action": "accept", "content": {}}`` accepts every default. Without it every
    question is declined. The time it takes does not count against a call's timeout.

    ``policy``: an organisation's policy file (default ``$MCPLOCK_POLICY``; docs/policy.md): a
    tool it denies is neither listed nor called, whatever the lock says.
    """
    from mcplock.guard.session import open_session

    return open_session(
        name,
        os.fspath(lockfile),
        approve=approve,
        timeout=timeout,
        client_name=client_name,
        client_version=client_version,
        on_elicit=on_elicit,
        policy=policy,
    )
