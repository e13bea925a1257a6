"""Package pins against their registries: which are behind (`outdated`), and moving them to
the newest release (`update`), whose definitions are then staged for review like a refresh."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from mcplock.errors import ProbeError
from mcplock.lock.model import ServerEntry
from mcplock.packages.pin import PackagePin, RegistryRef
from mcplock.text.untrusted import shell_word

if TYPE_CHECKING:
    from mcplock.packages.launchers import Launch
    from mcplock.packages.server_json import Launch as EntryLaunch


@dataclass
class Row:
    """One server's pin against its registry."""

    server: str
    registry: str | None = None
    package: str | None = None
    current: str | None = None  # the pinned version (None: not pinned)
    latest: str | None = None
    # "up-to-date" | "behind" | "unpinned" | "local" | "error" | "repinned" (update NAME) | "held" | "refused"
    status: str = "local"
    error: ProbeError | None = None
    new_pin: PackagePin | None = None  # `update`: the pin it moves to (oci: the tag's current digest)
    # a server added from the MCP Registry: current/latest are the entry's versions; the entry
    # it moves to, and the package version (image tag) that entry names
    new_ref: RegistryRef | None = None
    requested: str | None = None
    new_command: tuple[str, list[str]] | None = None  # the newest entry's command line (stdio)
    screen: Any = None  # what screening found (mcplock.core.screening.Screened); status "held" / "refused"

    def as_json(self) -> dict[str, object]:
        return {
            "server": self.server,
            "registry": self.registry,
            "package": self.package,
            "current": self.current,
            "latest": self.latest,
            "status": self.status,
            "error": self.error.as_json() if self.error is not None else None,
            "screening": self.screen.as_json() if self.screen is not None else None,
        }


def _from_registry(srv: ServerEntry, environ: Mapping[str, str] | None) -> Row:
    """A server added by its MCP Registry name is behind when the registry has a newer version
    of the entry (whatever its package registry says)."""
    from mcplock.core.registry import latest
    from mcplock.packages.errors import RegistryError
    from mcplock.packages.server_json import EntryError, launch_of

    ref = srv.spec.registry
    assert ref is not None
    row = Row(srv.name, "mcp-registry", ref.name, ref.version)
    from mcplock.packages.mcp_registry import MismatchError

    try:
        entry = latest(ref)
        launch = launch_of(entry.server)
    except (RegistryError, MismatchError) as e:  # another server's entry: this row fails, the others go on
        row.status, row.error = "error", ProbeError(e.code, e.message, hint=e.hint)
        return row
    except EntryError as e:
        row.status, row.error = "error", ProbeError("registry", f"{ref.name} {entry.version}: {e}")
        return row
    added = _code_vars_added(srv, launch)
    if added:  # a newer entry that starts loading code outside the pin is not followed (docs/pins.md)
        row.status, row.error = "error", _code_env_refusal(ref, entry.version, added)
        return row
    _follow(row, srv, replace(ref, version=entry.version), launch)
    return row


def _follow(row: Row, srv: ServerEntry, new_ref: RegistryRef, launch: EntryLaunch) -> None:
    """``row`` as the registry's newest version of the entry (``new_ref``) has it: the release
    its package asks for (an image's tag), the new command line, behind unless the pin is at it
    already."""
    from mcplock.packages.server_json import image_ref

    version = new_ref.version
    row.latest = version
    if launch.registry_type == "oci" and launch.identifier:
        launch.version = image_ref(launch.identifier, launch.version)[1]
    row.requested = launch.version
    row.new_ref = new_ref
    if launch.command is not None and srv.spec.stdio:
        row.new_command = (launch.command, list(launch.args))
    row.status = _entry_status(srv, launch, at=version == row.current)


def _entry_status(srv: ServerEntry, launch: EntryLaunch, *, at: bool) -> str:
    """Up to date when the lock records the entry's newest version (``at``) and a pin of its
    package; a remote entry has nothing to pin, its version alone decides."""
    remote = srv.spec.package is None and launch.registry_type is None
    return "up-to-date" if at and (srv.spec.package is not None or remote) else "behind"


def _code_vars_added(srv: ServerEntry, launch: EntryLaunch) -> list[str]:
    """The variables that load code (``NODE_OPTIONS`` …) a registry entry's launch sets that the
    server's locked launch does not: what a person accepted before stays theirs."""
    from mcplock.packages.envcode import code_variables, of_spec

    return [
        v
        for v in code_variables(launch.env, launch.pass_env, launch.command, launch.args)
        if v not in of_spec(srv.spec)
    ]


def _code_env_refusal(ref: RegistryRef, version: str, added: list[str]) -> ProbeError:
    return ProbeError(
        "registry-code-env",
        f"{ref.name} {version} sets {', '.join(added)}, which loads code outside the "
        "package pin; the pin was not moved",
        hint=f"review it with `mcplock inspect {ref.name}@{version}`; to take it anyway, "
        f"remove the server "
        f"and add it again naming the variable (`--allow-code-env {added[0]}`)",
    )


def pinned_at(srv: ServerEntry) -> str | None:
    """Where ``srv`` stands, in the terms of :attr:`Row.current` and :attr:`Row.latest`: its MCP
    Registry entry's version, an image's tag and digest, or the package's pinned version (None:
    no pin). `update-pr` compares it with a row's ``latest`` to tell whether a branch holds the
    newest release already."""
    if srv.spec.registry is not None:
        return srv.spec.registry.version if srv.spec.package is not None or srv.spec.remote else None
    pin = srv.spec.package
    if pin is None:
        return None
    return f"{pin.version}@{str(pin.integrity)[:19]}" if pin.registry == "oci" else pin.version


def check_one(srv: ServerEntry, environ: Mapping[str, str] | None = None) -> Row:
    """Where ``srv``'s pin stands: its registry's newest release (an OCI tag's current digest)."""
    from mcplock.packages.errors import RegistryError

    if srv.spec.registry is not None:
        return _from_registry(srv, environ)
    launch = _registry_launch(srv)
    if launch is None:
        return Row(srv.name)
    pin = srv.spec.package
    row = Row(srv.name, launch.registry, pin.name if pin else launch.name, pin.version if pin else None)
    try:
        behind = _image_behind if launch.registry == "oci" else _behind
        moved = behind(row, launch, pin, environ)
    except RegistryError as e:
        row.status, row.error = "error", ProbeError(e.code, e.message, hint=e.hint)
        return row
    row.status = _pin_status(pin, moved)
    return row


def _pin_status(pin: PackagePin | None, moved: bool) -> str:
    """A package's row status: no pin yet, or whether its registry ``moved`` past the pin."""
    if pin is None:
        return "unpinned"
    return "behind" if moved else "up-to-date"


def _registry_launch(srv: ServerEntry) -> Launch | None:
    """The package launch ``srv``'s command runs, when its package has a registry of its own
    (a bundle has none; nor does a remote or a plain command)."""
    from mcplock.packages.command_line import parse
    from mcplock.packages.launchers import Launch

    launch = parse(srv.spec.command, srv.spec.args) if srv.spec.stdio else None
    if not isinstance(launch, Launch) or launch.registry == "mcpb":
        return None
    return launch


def _image_behind(row: Row, launch: Launch, pin: PackagePin | None, environ: Mapping[str, str] | None) -> bool:
    """An image: whether its tag's digest moved from the pinned one (``row``'s ``latest`` and
    ``current`` are ``tag@digest``)."""
    from mcplock.packages.registries import resolve

    tag = pin.version if pin else (launch.requested or "latest")
    fresh = resolve(replace(launch, digest=None), environ, requested=tag)
    row.latest = f"{tag}@{str(fresh.integrity)[:19]}"
    if pin:
        row.current = f"{pin.version}@{str(pin.integrity)[:19]}"
    return pin is None or fresh.integrity != pin.integrity


def _behind(row: Row, launch: Launch, pin: PackagePin | None, environ: Mapping[str, str] | None) -> bool:
    """A package: whether its registry's newest version is not the pinned one."""
    from mcplock.packages.registries import LATEST

    row.latest = LATEST[launch.registry](row.package or launch.name, environ)
    return pin is None or row.latest != pin.version


def outdated(selected: list[ServerEntry], environ: Mapping[str, str] | None = None) -> list[Row]:
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=8) as pool:
        return list(pool.map(lambda s: check_one(s, environ), selected))


def new_pins(
    rows: list[Row],
    selected: list[ServerEntry],
    base: str,
    environ: Mapping[str, str] | None = None,
    *,
    again: Collection[str] = (),
) -> dict[str, Any]:
    """For each row behind (or unpinned), the spec pinned to the newest release and installed
    in the cache; a row whose release cannot be fetched gets its error. A server named in
    ``again`` that is up to date is pinned afresh at its version (its artefact and tree resolved
    again, as ``pnpm update PKG`` does): the way out when its pinned tree cannot be installed any
    more (a file withdrawn from the index, say), which the refusal's hint names."""
    by_name = {s.name: s for s in selected}
    out: dict[str, Any] = {}
    for row in rows:
        if not to_move(row, again):
            continue
        spec = replace(by_name[row.server].as_launched(base), package=None)
        pin = by_name[row.server].spec.package
        if pin is not None and pin.registry == "mcpb":
            row.status, row.error = "error", _bundle_moves_with_its_url(row)
            continue
        pinned = _pin_row(row, spec, environ)
        if pinned is not None:
            out[row.server] = pinned
    return out


def to_move(row: Row, again: Collection[str]) -> bool:
    """Whether ``row``'s pin moves: it is behind or unpinned, or up to date and its server named
    in ``again`` (pinned afresh)."""
    return row.status in ("behind", "unpinned") or (row.status == "up-to-date" and row.server in again)


def _bundle_moves_with_its_url(row: Row) -> ProbeError:
    """An MCPB bundle is not re-pinned here: it moves with its entry's URL."""
    return ProbeError(
        "mcpb",
        f"the MCPB bundle of `{row.server}` moves with its entry's URL",
        hint=f"run `mcplock remove {shell_word(row.server)}`, then "
        f"`mcplock add {row.package} --name {shell_word(row.server)}`",
    )


def _pin_row(row: Row, spec: Any, environ: Mapping[str, str] | None) -> Any:
    """``spec`` pinned to the release ``row`` asks for and installed (its pin recorded on the
    row); None when the release cannot be fetched (the row then holds the error)."""
    from mcplock.packages import pin_spec
    from mcplock.packages.errors import RegistryError

    try:
        if row.status == "up-to-date":
            row.status = "repinned"
        pinned = pin_spec(spec, environ, requested=_requested(row))
    except RegistryError as e:
        row.status, row.error = "error", ProbeError(e.code, e.message, hint=e.hint)
        return None
    row.new_pin = pinned.package
    return pinned


def _requested(row: Row) -> str | None:
    """The release a row's new pin asks for: what its MCP Registry entry names, an image's tag
    (``latest`` for none), else the registry's newest version."""
    if row.registry == "mcp-registry":
        return row.requested
    return row.latest if row.registry != "oci" else (row.latest or "latest").split("@")[0]


def requested_pins(
    specs: list[Any],
    environ: Mapping[str, str] | None = None,
) -> tuple[dict[str, Any], dict[str, ProbeError]]:
    """Specs whose command now asks for an exact version other than the pinned one (the team
    bumped it in the host config): re-pinned to that version, as `pnpm install` follows an edited
    package.json. A command with no version, a range or a tag keeps its pin (the pin wins)."""
    from mcplock.packages import pin_spec
    from mcplock.packages.errors import RegistryError

    out: dict[str, Any] = {}
    failed: dict[str, ProbeError] = {}
    for sp in specs:
        requested = _bumped_version(sp)
        if requested is None:
            continue
        try:
            out[sp.name] = pin_spec(replace(sp, package=None), environ, requested=requested)
        except RegistryError as e:
            failed[sp.name] = ProbeError(e.code, e.message, hint=e.hint)
    return out, failed


def _bumped_version(sp: Any) -> str | None:
    """The exact version a pinned spec's command now asks for, when it is not the pinned one
    (an image, a range, a tag, no version or another package: None, the pin wins)."""
    import re

    from mcplock.packages.command_line import parse
    from mcplock.packages.launchers import Launch

    pin = sp.package
    launch = parse(sp.command, sp.args) if pin is not None else None
    if not isinstance(launch, Launch) or launch.registry == "oci" or launch.requested is None:
        return None
    if (
        not re.fullmatch(r"v?\d+(\.\d+)*([-+.]?[0-9A-Za-z.]+)?", launch.requested)
        or launch.requested.lstrip("v") == pin.version
        or launch.name != pin.name
    ):
        return None
    return launch.requested


def record_registry(lockfile: str, rows: list[Row], moved: Collection[str]) -> list[ServerEntry]:
    """The MCP Registry entries the moved servers now run (after their pins were written): the
    entry's version, and its command line, so that the command names the release the pin holds
    (a command left asking for the old exact version would be re-pinned to it by `refresh`)."""
    from mcplock.lock.store import transaction

    rows = [r for r in rows if r.new_ref is not None and r.server in moved]
    if not rows:
        return []
    out: list[ServerEntry] = []
    with transaction(lockfile) as lock:
        for r in rows:
            cur = lock.servers.get(r.server)
            if cur is not None:
                _record_entry(cur, r)
                out.append(cur)
    return out


def _record_entry(cur: ServerEntry, r: Row) -> None:
    """``cur`` runs the registry entry ``r`` moved to: its version, and (stdio) its command line."""
    cur.spec = replace(cur.spec, registry=r.new_ref)
    if r.new_command is not None and cur.spec.stdio:
        cur.spec = replace(cur.spec, command=r.new_command[0], args=tuple(r.new_command[1]))


def record_command_lines(lockfile: str, rows: list[Row], moved: Collection[str]) -> list[ServerEntry]:
    """The locked launch of each moved server naming its new release wherever it named the old one
    (:mod:`mcplock.packages.follow_pin`): a host that runs the command as locked runs what was
    reviewed. A server from the MCP Registry takes its entry's command line (:func:`record_registry`).
    Returns the entries rewritten."""
    from mcplock.lock.store import transaction
    from mcplock.packages.follow_pin import follow

    todo = [r for r in rows if r.server in moved and r.new_pin is not None and r.new_ref is None]
    if not todo:
        return []
    out: list[ServerEntry] = []
    with transaction(lockfile) as lock:
        for r in todo:
            cur = lock.servers.get(r.server)
            pin = r.new_pin
            if cur is None or pin is None or not cur.spec.stdio or not cur.spec.command:
                continue
            digest = str(pin.integrity) if pin.registry == "oci" else None
            old = _named_version(cur) or r.current  # what the command says (a pin edited by a bot: not the same)
            got = follow(cur.spec.command, cur.spec.args, pin.registry, pin.name, old, pin.version, digest)
            if got is not None:
                cur.spec = replace(cur.spec, command=got[0], args=got[1])
                out.append(cur)
    return out


def _named_version(srv: ServerEntry) -> str | None:
    """The exact version (an image: the tag) the locked command line asks for, if any."""
    from mcplock.packages.command_line import parse
    from mcplock.packages.launchers import Launch

    launch = parse(srv.spec.command, srv.spec.args)
    return launch.requested if isinstance(launch, Launch) else None
