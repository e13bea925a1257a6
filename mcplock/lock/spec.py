"""How to reach one MCP server: the part of a lock entry that a probe needs.

A ``ServerSpec`` holds only what may be written to the lock: header and env values
are literal non-secret strings or ``${VAR}`` / ``${VAR:-default}`` templates
(:mod:`mcplock.lock.templates`); its ``auth`` is an :class:`~mcplock.lock.auth_spec.AuthSpec`.
Secret values taken from a host config live in ``secrets`` (memory only, never
written, never printed) and are used as the first source when templates expand.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mcplock.lock.auth_spec import AuthSpec
from mcplock.lock.templates import TEMPLATE
from mcplock.lock.templates import looks_secret as looks_secret  # re-exported for core/export_guard

# re-exported: the spec's transport is this type (a leaf, so that packages/ can use it too)
from mcplock.model.transports import TRANSPORTS as TRANSPORTS
from mcplock.model.transports import Transport as Transport

if TYPE_CHECKING:
    from mcplock.packages.pin import PackagePin, RegistryRef


@dataclass(frozen=True, slots=True)
class ClientIdentity:
    """The client a server is probed and run as (its ``clientInfo``): the lock's ``client``
    table (``{name = "…", version = "…"}``, the version optional) and a launched spec's."""

    name: str
    version: str | None = None  # None: mcplock's own version, when the server is launched

    def stored(self) -> dict[str, str]:
        """The lock's ``client`` table."""
        return {"name": self.name, **({"version": self.version} if self.version is not None else {})}

    def info(self, default_version: str) -> dict[str, str]:
        """The ``clientInfo`` announced: ``default_version`` where none is recorded."""
        return {"name": self.name, "version": self.version if self.version is not None else default_version}


# The client capabilities a server is probed with, by name (mcplock.model.client_capabilities): the
# lock's `client-capabilities` and a launched spec's
ClientCapabilities = tuple[str, ...]


@dataclass(frozen=True)
class ServerSpec:
    name: str
    transport: Transport
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None
    # Names of variables passed through from mcplock's environment as they are (opt-in, beyond
    # the minimal environment of mcplock.probe.launch); names only, never values.
    pass_env: tuple[str, ...] = ()
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    source: str | None = None  # host config path, relative to the lock's directory
    pin_resources: bool = False
    # Values for ${VAR} templates taken from a host config: memory only.
    secrets: Mapping[str, str] = field(default_factory=dict, compare=False, repr=False)
    auth: AuthSpec | None = None  # OAuth (mcplock.auth); None: headers only, or none
    # The client to announce (clientInfo); None: ProbeOptions' (mcplock by default). A locked
    # spec's (ServerEntry.spec) is the lock's `client`, its version None for mcplock's own (filled
    # in by ServerEntry.as_launched). Not part of stored(): it is not the host config's.
    client: ClientIdentity | None = None
    # The exact artefact the command runs (mcplock.packages.PackagePin), or None: part of the
    # launch (a changed pin is a changed launch). A host config never has one, so config-hash
    # (taken over an imported spec) is unaffected.
    package: PackagePin | None = None
    # The MCP Registry entry the server was added from (mcplock.packages.pin.RegistryRef), or None.
    # Not part of stored() nor of the launch: what runs is the command and its package pin.
    registry: RegistryRef | None = None
    # The client capabilities it is probed with: the lock's `client-capabilities` (None: not
    # recorded, the default is declared). Not part of stored() either.
    client_capabilities: ClientCapabilities | None = None

    def __post_init__(self) -> None:
        if type(self.transport) is not Transport:  # a name from a file or the command line
            object.__setattr__(self, "transport", Transport(self.transport))

    @property
    def stdio(self) -> bool:
        """Launched here as a child process (a command, its environment and directory)."""
        return self.transport is Transport.STDIO

    @property
    def remote(self) -> bool:
        """Reached at a URL (headers, OAuth)."""
        return self.transport is not Transport.STDIO

    def launch_cwd(self, base: str) -> str | None:
        """Where the server runs: a stdio server in its ``cwd`` resolved against ``base`` (the
        lock's directory), or in ``base`` itself; a remote one has no directory of its own."""
        if not self.stdio:
            return self.cwd
        return os.path.join(base, self.cwd) if self.cwd else base

    def stored(self) -> dict[str, object]:
        """The spec as written to the lock and hashed for ``config-hash`` (no secrets, no client)."""
        out: dict[str, object] = {"transport": str(self.transport)}
        for key, attr, shape in _STORED_FIELDS:
            value = getattr(self, attr)
            if isinstance(value, str) or value:  # a string even empty, a non-empty collection, a true flag
                out[key] = shape(value)
        return out


def _as_is(value: Any) -> Any:
    return value


def _sorted_map(value: Mapping[str, str]) -> dict[str, str]:
    return dict(sorted(value.items()))


def _sorted_names(value: tuple[str, ...]) -> list[str]:
    return sorted(set(value))


def _stored_part(value: Any) -> Any:
    """A part of the spec with its own stored shape (its auth, its package pin)."""
    return value.stored()


# what ServerSpec.stored writes, in its order: (key, ServerSpec attribute, the stored shape)
_STORED_FIELDS: tuple[tuple[str, str, Callable[[Any], Any]], ...] = (
    ("command", "command", _as_is),
    ("args", "args", list),
    ("env", "env", _sorted_map),
    ("pass-env", "pass_env", _sorted_names),
    ("cwd", "cwd", _as_is),
    ("url", "url", _as_is),
    ("headers", "headers", _sorted_map),
    ("pin-resources", "pin_resources", bool),
    ("auth", "auth", _stored_part),
    ("package", "package", _stored_part),
)


def missing_variables(spec: ServerSpec, environ: Mapping[str, str] | None = None) -> list[str]:
    """Template variables the spec uses that have no value and no default."""
    env = os.environ if environ is None else environ
    missing: list[str] = []
    for v in _templated(spec):
        for m in TEMPLATE.finditer(v):
            name, default = m.group(1), m.group(2)
            if default is None and name not in spec.secrets and name not in env and name not in missing:
                missing.append(name)
    return missing


def _templated(spec: ServerSpec) -> list[str]:
    """The values of a spec whose templates a launch expands: args, env, headers, URL, command, cwd."""
    values = [*spec.args, *spec.env.values(), *spec.headers.values()]
    if spec.url:
        values.append(spec.url)
    if spec.command:
        values.append(spec.command)
    if spec.cwd:
        values.append(spec.cwd)
    return values
