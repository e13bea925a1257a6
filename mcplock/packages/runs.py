"""What a server's command runs, decided by what is pinned (docs/policy.md, "What a server runs").
No I/O.

Three answers, and nothing is read as harmless because its name was not recognised:

- **pinned** — the server has a package pin, and its command line is that package's launcher run
  directly (``npx -y pkg``, ``uvx pkg``, ``docker run image``): what runs is the pinned artefact;
- **local** — the command provably runs the project's own code (:mod:`mcplock.packages.local`);
- **unpinned** — everything else: a launcher without a pin, a launch behind a wrapper
  (:mod:`mcplock.packages.wrappers`), a command line a pin does not govern (``uvx --from
  git+https://…``), and any command mcplock cannot read (``volta run npx …``, ``node -e …``,
  ``nix run …``, ``NPX``): an unpinned launch of an unknown package.

:func:`runs` gives the answer with the identity `servers.allow` matches (``npm:NAME``, ``local``,
``unknown``), the registry `packages.allow-registries` checks, and the reason to show.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Sequence

    from mcplock.packages.launchers import Launch
    from mcplock.packages.pin import PackagePin

UNKNOWN_REGISTRY = "an unknown registry"


@dataclass(frozen=True)
class Runs:
    kind: str  # "pinned" | "local" | "unpinned" | "remote"
    identity: str | None  # "npm:NAME", "local", "unknown"; None for a remote server
    registry: str | None = None  # where the package comes from (None: local or remote)
    via: str | None = None  # the wrappers it runs through ("env", "sh -c" …), None when none
    reason: str = ""  # why it is unpinned
    launch: Launch | None = None  # the launch read from the command line (direct or inside a wrapper)

    @property
    def pinned(self) -> bool:
        return self.kind == "pinned"

    @property
    def direct(self) -> bool:
        """A launcher mcplock pins, run directly (``add``/``update`` can pin it)."""
        return self.launch is not None and self.via is None


def runs(command: str | None, args: Sequence[str], package: PackagePin | None = None, *, stdio: bool = True) -> Runs:
    """What a server's ``command args`` (with its ``package`` pin) runs (see the module's docstring)."""
    from mcplock.packages.command_line import parse
    from mcplock.packages.launchers import Launch
    from mcplock.packages.local import interpreter, is_local, name_of
    from mcplock.packages.wrappers import unwrap

    if not stdio or not command:
        return Runs("remote", None)
    wrapped = unwrap(command, args)
    if wrapped is not None:
        inner = wrapped.launch if isinstance(wrapped.launch, Launch) else None
        registry = inner.registry if inner is not None else UNKNOWN_REGISTRY if wrapped.opaque else None
        return Runs("unpinned", wrapped.identity, registry or UNKNOWN_REGISTRY, wrapped.via, wrapped.reason, inner)
    got = parse(command, args)
    if isinstance(got, Launch):
        if package is not None and _governs(package, got):
            return Runs("pinned", f"{package.registry}:{package.name}", package.registry, launch=got)
        why = (
            f"its pin names {package.registry} package {package.name}, but the command runs "
            f"{got.registry} package {got.name}"
            if package is not None
            else f"{got.launcher} {got.name} has no package pin"
        )
        return Runs("unpinned", f"{got.registry}:{got.name}", got.registry, reason=why, launch=got)
    if is_local(command, args):
        return Runs("local", "local")
    name = name_of(command)
    if not got.reason.endswith("(local command)"):
        why = got.reason.removeprefix("no registry pin (").removesuffix(")")
    elif interpreter(command):
        shown = " ".join([name, *args[:1]])
        why = (
            f"`{shown} …` is not a script file of the project run by its interpreter (inline code, a "
            "module, a preload or an option mcplock does not know)"
        )
    else:
        why = (
            f"`{name}` is not a command mcplock can read, so nothing shows it runs a pinned package or "
            "the project's own code"
        )
    return Runs("unpinned", "unknown", UNKNOWN_REGISTRY, reason=why)


def _governs(pin: PackagePin, launch: Launch) -> bool:
    """Whether the pin is what the launch runs: the same registry and package (PyPI names
    normalised, PEP 503); mcplock then runs the pinned artefact in its place."""
    if pin.registry != launch.registry:
        return False
    if pin.registry == "pypi":
        norm = re.compile(r"[-_.]+")
        return norm.sub("-", pin.name).lower() == norm.sub("-", launch.name).lower()
    return pin.name == launch.name


def describe(pin: PackagePin | None, command: str | None, args: list[str] | tuple[str, ...]) -> str:
    """One line for ``list``/``show``: the pin, or why the server has none."""
    if pin is not None:
        integ = pin.integrities()
        shown = (
            (integ[0][:23] + "…" + (f" (+{len(integ) - 1} files)" if len(integ) > 1 else ""))
            if integ
            else "NO INTEGRITY (run `mcplock update`)"
        )
        return f"{pin.registry} {pin.label}  {shown}"
    from mcplock.packages.command_line import parse
    from mcplock.packages.launchers import Launch

    got = parse(command, args)
    if isinstance(got, Launch):
        return f"not pinned: runs {got.registry} package {got.name} unpinned (run `mcplock update` to pin it)"
    if got.reason.endswith("(local command)") and command:
        ran = runs(command, args)
        if ran.kind == "unpinned":  # not a launcher mcplock knows, nor provably the project's own code
            return f"not pinned: {ran.reason}"
    return got.reason
