"""Servers by their MCP Registry name: the entry resolved to a launch spec (`add`), its newest
version (`outdated`/`update`), search and one entry's versions (`search`, `inspect`).

The rules (docs/pins.md, "The MCP Registry"): an entry whose status is ``deleted`` is refused
before anything is fetched from a package registry; ``deprecated`` is a warning; the package
must claim the registry name (:mod:`mcplock.packages.claims`), checked before it is installed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from mcplock.errors import UsageError
from mcplock.lock.spec import ServerSpec, Transport
from mcplock.packages import mcp_registry, server_json
from mcplock.packages.pin import PackagePin, RegistryRef

if TYPE_CHECKING:
    from mcplock.packages.launchers import Launch

Env = Mapping[str, str] | None


@dataclass
class Resolved:
    entry: mcp_registry.Entry
    launch: server_json.Launch
    spec: ServerSpec
    warnings: list[str] = field(default_factory=list)


def default_name(registry_name: str) -> str:
    """A server name from a registry name: ``io.github.o/server-memory`` -> ``memory``."""
    tail = registry_name.rsplit("/", 1)[-1]
    short = re.sub(r"^(mcp-server-|server-|mcp-)|(-mcp-server|-mcp|-server)$", "", tail)
    return short or tail


def split_ref(ref: str) -> tuple[str, str | None]:
    name, _, version = ref.partition("@")
    return name, (version or None)


def resolve(
    ref: str, *, name: str | None, registry: str, environ: Env = None, allow_code_env: tuple[str, ...] = ()
) -> Resolved:
    """The entry ``ref`` (``NAME[@VERSION]``) names, as the spec to add; refused when deleted,
    when it describes nothing mcplock can pin, or when it sets a variable that loads code
    (:mod:`mcplock.packages.envcode`) the user did not name in ``allow_code_env``."""
    rname, version = split_ref(ref)
    entry = mcp_registry.get(rname, version, registry)
    warnings = _status_warnings(entry)
    try:
        launch = server_json.launch_of(entry.server)
    except server_json.EntryError as e:
        raise UsageError(
            f"cannot add {entry.name} {entry.version}: {e}",
            hint="add it by its command instead: `mcplock add NAME -- CMD…`",
        ) from None
    server = name or default_name(entry.name)
    if "/" in server or not server.strip():
        raise UsageError(f"`{server}` cannot be a server name (no `/`, not empty)")
    spec = _spec_of(entry, launch, server, registry)
    _refuse_code_env(ref, entry, spec, allow_code_env)
    return Resolved(entry, launch, spec, warnings)


def _status_warnings(entry: mcp_registry.Entry) -> list[str]:
    """What the entry's status says: deleted is refused, deprecated or unknown is warned of."""
    if entry.status == "deleted":
        raise UsageError(
            f"the MCP Registry marks {entry.name} {entry.version} as deleted; nothing was fetched",
            hint=f"see its other versions with `mcplock inspect {entry.name}`",
            code="registry-deleted",
        )
    if entry.status == "deprecated":
        return [f"the MCP Registry marks {entry.name} {entry.version} as deprecated"]
    if entry.status not in mcp_registry.STATUSES:
        return [f"the MCP Registry gives {entry.name} {entry.version} the unknown status {entry.status!r}"]
    return []


def _spec_of(entry: mcp_registry.Entry, launch: server_json.Launch, server: str, registry: str) -> ServerSpec:
    """The spec the entry's launch makes, named ``server``, with the entry it came from."""
    ref_ = RegistryRef(entry.name, entry.version, registry, server_json.repository(entry.server))
    # an MCPB bundle is pinned by the entry itself (its fileSha256); the others by their registries
    pin = (
        PackagePin("mcpb", str(launch.identifier), entry.version, f"sha256:{launch.file_sha256}")
        if launch.registry_type == "mcpb"
        else None
    )
    return ServerSpec(
        name=server,
        transport=Transport(launch.transport),
        command=launch.command,
        args=tuple(launch.args),
        env=dict(launch.env),
        pass_env=tuple(launch.pass_env),
        url=launch.url,
        headers=dict(launch.headers),
        registry=ref_,
        package=pin,
    )


def _refuse_code_env(ref: str, entry: mcp_registry.Entry, spec: ServerSpec, allow_code_env: tuple[str, ...]) -> None:
    """A spec that sets a variable that loads code the user did not name is refused."""
    from mcplock.packages.envcode import of_spec

    code = [v for v in of_spec(spec) if v not in allow_code_env]
    if code:
        flags = " ".join(f"--allow-code-env {v}" for v in code)
        raise UsageError(
            f"the MCP Registry entry {entry.name} {entry.version} sets {', '.join(code)}, which "
            f"make{'s' if len(code) == 1 else ''} the launcher load other code, outside the package "
            "pin; refused, nothing was fetched",
            hint=f"see what it sets with `mcplock inspect {entry.name}`; to add it anyway, name "
            f"{'it' if len(code) == 1 else 'them'}: `mcplock add {ref} {flags}`",
            code="registry-code-env",
        )


def check_claims(specs: list[ServerSpec], environ: Env = None) -> None:
    """Every spec added from the MCP Registry runs a package that claims the entry's name
    (OwnershipError, exit 2, before anything is installed). A remote has no package: the
    registry vouches for it by the name's namespace."""
    from mcplock.packages import claims
    from mcplock.packages.command_line import parse
    from mcplock.packages.launchers import Launch

    for sp in specs:
        if sp.registry is None or sp.remote:
            continue
        launch = parse(sp.command, sp.args)
        if not isinstance(launch, Launch):  # what the entry names cannot be pinned: not run unpinned
            raise UsageError(
                f"cannot add {sp.registry.name} {sp.registry.version}: its package cannot be pinned ({launch.reason})",
                hint="ask its publisher to fix the entry",
            )
        if launch.registry == "mcpb":  # the entry pins the bundle's sha256; the registry checked its source
            continue
        claims.check(sp.registry.name, launch.registry, _claimed_as(launch), launch.requested, environ)


def _claimed_as(launch: Launch) -> str:
    """The package as its claim of a registry name is looked up: an image by ``name:tag``
    (``latest`` for none), any other package by its name."""
    if launch.registry == "oci":
        return f"{launch.name}:{launch.requested or 'latest'}"
    return launch.name


def latest(ref: RegistryRef) -> mcp_registry.Entry:
    return mcp_registry.get(ref.name, None, ref.url)
