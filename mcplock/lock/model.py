"""The lock in memory: plain mutable dataclasses, no I/O.

A :class:`Lock` maps server names to :class:`ServerEntry`. Each server pins tools,
prompts, resource templates (and resources when opted in) as :class:`Entry` objects,
plus its instructions as a server-level :class:`Entry` of kind ``instructions``.
An entry holds at most one accepted definition and at most one :class:`Pending`
upstream proposal (see docs/lock-format.md for the review states).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from mcplock.lock.hashing import definition_hash
from mcplock.lock.spec import ClientCapabilities, ClientIdentity, ServerSpec

LOCK_VERSION = 1
POLICIES = ("all", "writes", "none")
APPROVALS = ("always", "never")
CHANGES = ("new", "changed", "removed")
# kinds of pinned items; the lock's sub-table name for each. `ui`: an MCP App's `ui://` document,
# `skill`: a skills/list entry, `content`: a pinned resource's or a skill's document (`ui` and
# `content` are what resources/read returned, keyed by URI: mcplock.model.documents)
ITEM_KINDS = ("tool", "prompt", "resource-template", "resource", "ui", "skill", "content")
KINDS = (*ITEM_KINDS, "instructions")


def item_label(kind: str, key: str) -> str:
    """An item as named inside its server: ``TOOL``, ``prompt:NAME``, ``resource:URI``, ``instructions``."""
    if kind == "tool":
        return key
    if kind == "instructions":
        return "instructions"
    return f"{kind}:{key}"


@dataclass
class Pending:
    change: str  # "new" | "changed" | "removed"
    definition: Any = None  # the upstream definition in full (None for "removed")
    hash: str | None = None
    enabled_before: bool | None = None  # a changed tool's `enabled` before quarantine
    approval: str | None = None  # a person's approval for this proposal (`mcplock approval` while pending)


@dataclass
class Entry:
    kind: str
    key: str
    definition: Any = None  # accepted wire definition (dict; a str for instructions)
    hash: str | None = None
    enabled: bool = False
    approval: str = "always"
    pending: Pending | None = None
    rejected_hash: str | None = None  # an upstream definition a person saw and rejected

    @property
    def accepted(self) -> bool:
        return self.definition is not None

    @property
    def state(self) -> str:
        """ "pending new|changed|removed", "rejected" or "accepted"."""
        if self.pending is not None:
            return f"pending {self.pending.change}"
        return "rejected" if self.rejected_hash is not None else "accepted"

    @property
    def label(self) -> str:
        return item_label(self.kind, self.key)

    def compute_hash(self, *, pending: bool = False, server: str = "") -> str:
        value = self.pending.definition if pending and self.pending else self.definition
        return definition_hash(value, what=f"{self.kind} `{server}/{self.label}`" if server else self.kind)

    def tampered(self, *, pending: bool = False) -> bool:
        """Whether the stored definition (or the pending one) no longer matches its stored hash:
        edited by hand or tampered with. Such a definition is never served nor kept by ``refresh``."""
        from mcplock.errors import HashError

        stored = (self.pending.hash if self.pending else None) if pending else self.hash
        if stored is None:
            return False
        try:
            return self.compute_hash(pending=pending) != stored
        except HashError:
            return True


@dataclass(frozen=True)
class Publisher:
    """Who vouched for a server (the lock's ``publisher`` in ``[server.NAME]``, docs/publishers.md): the
    fingerprint of the key, listed in the policy's ``[publishers]``, whose signed statement
    (``mcp-surface.json`` shipped in the pinned package) the live server matched at the last
    ``add``/``refresh``; the statement's digest, and when it was signed. Plain data, outside every
    definition hash."""

    key: str  # sha256-<base64> of the key's SPKI DER
    statement: str  # sha256-<base64> of the statement's canonical form
    signed_at: str

    def stored(self) -> dict[str, str]:
        return {"key": self.key, "statement": self.statement, "signed-at": self.signed_at}


@dataclass(slots=True, init=False)  # slots: setting a field it does not have (`srv.command = …`) is an error
class ServerEntry:
    """One server of the lock: how to reach it (``spec``, a :class:`~mcplock.lock.spec.ServerSpec` as
    locked: its cwd relative to the lock's directory, no secrets) and its review state.

    The server model is the spec: the entry declares no field of its own that the spec has. Its
    ``name``, the ``client`` it is probed as and its ``client_capabilities`` are the spec's (the
    lock's ``client`` keeps a version of None for mcplock's own); the entry reads them there.

    ``as_locked()`` is the spec as the lock stores it; ``as_launched(base)`` the spec that runs
    (cwd resolved, secrets and the locked client identity's version added). Read a connection field
    in the spec (``srv.spec.command``), in the spec's types (tuples, mappings, an ``AuthSpec``);
    change one by replacing the spec. :mod:`mcplock.lock.codec` converts to and from the lock's shape."""

    spec: ServerSpec
    config_hash: str | None
    policy: str
    server_info: dict[str, Any] | None
    protocol_version: str | None
    instructions: Entry | None
    items: dict[str, dict[str, Entry]]
    publisher: Publisher | None  # the key that vouched for it (docs/publishers.md)

    def __init__(
        self,
        name: str,
        spec: ServerSpec,
        config_hash: str | None = None,
        policy: str = "all",
        client: ClientIdentity | None = None,
        client_capabilities: ClientCapabilities | None = None,
        server_info: dict[str, Any] | None = None,
        protocol_version: str | None = None,
        instructions: Entry | None = None,
        items: dict[str, dict[str, Entry]] | None = None,
        publisher: Publisher | None = None,
    ) -> None:
        """``spec`` as the lock's: named ``name``, no secrets, probed as ``client`` with
        ``client_capabilities`` (None: the default identity and capabilities)."""
        if (spec.name, spec.client, spec.client_capabilities) != (name, client, client_capabilities) or spec.secrets:
            spec = replace(spec, name=name, secrets={}, client=client, client_capabilities=client_capabilities)
        self.spec = spec
        self.config_hash = config_hash
        self.policy = policy
        self.server_info = server_info
        self.protocol_version = protocol_version
        self.instructions = instructions
        self.items = {k: {} for k in ITEM_KINDS} if items is None else items
        self.publisher = publisher

    @property
    def name(self) -> str:
        return self.spec.name

    @name.setter
    def name(self, value: str) -> None:
        self.spec = replace(self.spec, name=value)  # the name is the spec's: renaming replaces it

    @property
    def client(self) -> ClientIdentity | None:
        """The client the server is probed as (--client-name), as the lock records it."""
        return self.spec.client

    @client.setter
    def client(self, value: ClientIdentity | None) -> None:
        self.spec = replace(self.spec, client=value)

    @property
    def client_capabilities(self) -> ClientCapabilities | None:
        """The capabilities it is probed with (None: the default)."""
        return self.spec.client_capabilities

    @client_capabilities.setter
    def client_capabilities(self, value: ClientCapabilities | None) -> None:
        self.spec = replace(self.spec, client_capabilities=value)

    @property
    def tools(self) -> dict[str, Entry]:
        return self.items["tool"]

    def entries(self) -> Iterator[Entry]:
        """Every entry of the server, instructions first, then items by kind and key."""
        if self.instructions is not None:
            yield self.instructions
        for kind in ITEM_KINDS:
            for key in sorted(self.items[kind]):
                yield self.items[kind][key]

    def pinned(self, kind: str) -> dict[str, Entry]:
        """Key -> entry of one kind: the server's own table of an item kind; for ``instructions``
        a new one-entry table (keyed ``instructions``), empty when the server has none."""
        if kind == "instructions":
            return {"instructions": self.instructions} if self.instructions is not None else {}
        return self.items[kind]

    def find(self, kind: str, key: str) -> Entry | None:
        if kind == "instructions":
            return self.instructions
        return self.items[kind].get(key)

    def pending_count(self) -> int:
        return sum(1 for e in self.entries() if e.pending is not None)

    def as_locked(self) -> ServerSpec:
        """How to reach the server, as the lock stores it (cwd relative to the lock's directory)."""
        return self.spec

    def as_launched(
        self, base: str, secrets: Mapping[str, str] | None = None, *, use_stored_client: bool = True
    ) -> ServerSpec:
        """The spec to probe or run the server with: a stdio cwd resolved against ``base`` (the
        lock's directory), ``secrets`` for its templates, the client identity and capabilities it
        was locked with (``use_stored_client``: unless the run names another client)."""
        spec = self.spec
        cwd = spec.launch_cwd(base)
        client = None
        if use_stored_client and spec.client:
            from mcplock._version import __version__

            version = spec.client.version if spec.client.version is not None else __version__
            client = ClientIdentity(spec.client.name, version)
        return replace(spec, cwd=cwd, secrets=dict(secrets or {}), client=client)


# the fields of a server that live in its spec (all but its name and the secrets, which the lock never has)
CONNECTION = tuple(f.name for f in fields(ServerSpec) if f.name not in ("name", "secrets"))


@dataclass
class Lock:
    servers: dict[str, ServerEntry] = field(default_factory=dict)
    version: int = LOCK_VERSION
    path: str | None = None  # where it was read from (for messages)
    # table path -> line number of its header, filled lazily by the reader
    lines: dict[tuple[str, ...], int] | None = None
    # what the reader read as something safer than what was written: (table path, message);
    # `check` reports each one (e.g. an unknown `approval`, read as "always")
    notes: list[tuple[tuple[str, ...], str]] = field(default_factory=list)

    def server(self, name: str) -> ServerEntry | None:
        return self.servers.get(name)
