"""A locked server's spec made to run exactly its pinned artefact (:func:`prepare`): the pin checked
against what the command line launches, then the package installed and verified in the cache
(:mod:`mcplock.packages.cache`) by its registry's installer (:mod:`mcplock.packages.npm`,
:mod:`mcplock.packages.pypi`, :mod:`mcplock.packages.mcpb`); an OCI image run by its digest."""

from __future__ import annotations

from dataclasses import replace

from mcplock.packages.cache import _mismatch
from mcplock.packages.command_line import parse
from mcplock.packages.errors import IntegrityError
from mcplock.packages.launchers import Launch, NoPin
from mcplock.packages.pin import PackagePin
from mcplock.packages.runnable import Env, Runnable, S
from mcplock.text.untrusted import shell_word


def prepare(spec: S, environ: Env = None) -> S:
    """``spec`` rewritten to run the verified pinned artefact (its ``package`` completed with the
    ``tree-integrity`` found on a first install). A spec without a pin is returned as it is.

    Raises :class:`IntegrityError` (exit 2) when what would run is not what the lock pins,
    :class:`RegistryError` (exit 3) when a cold cache cannot be filled."""
    pin = spec.package
    if pin is None:
        return spec
    problem = pin.problem()
    if problem is not None:
        raise IntegrityError(
            f"server `{spec.name}`: the lock's {pin.registry} pin names no one exact release: {problem}; "
            "nothing was started",
            hint=f"restore mcp.lock from git, or run `mcplock update {shell_word(spec.name)}` to pin an exact release",
        )
    launch = _launch_of_pin(spec, pin)
    if pin.registry == "oci":
        return _oci(spec, pin, launch)
    if not pin.integrities():
        raise IntegrityError(
            f"server `{spec.name}`: the pin of {pin.label} has no integrity; nothing was started",
            hint=f"run `mcplock update {shell_word(spec.name)}` to resolve it again",
        )
    if pin.registry == "mcpb":
        from mcplock.packages import mcpb

        return mcpb.prepare(spec, pin, launch, environ)
    from mcplock.packages import npm, pypi

    installer = npm.install if pin.registry == "npm" else pypi.install_pin
    argv, done = installer(spec.name, pin, launch, environ)
    return replace(spec, command=argv[0], args=(*argv[1:], *launch.args), package=done)


def _launch_of_pin(spec: Runnable, pin: PackagePin) -> Launch:
    """What the command line launches, refused unless it is the package the lock pins."""
    launch = parse(spec.command, spec.args)
    if (
        isinstance(launch, NoPin)
        or launch.registry != pin.registry
        or _norm(launch.name, pin.registry) != _norm(pin.name, pin.registry)
    ):
        runs = launch.reason if isinstance(launch, NoPin) else f"{launch.registry} package {launch.name}"
        raise IntegrityError(
            f"server `{spec.name}`: the lock pins {pin.registry} package {pin.name}, but its command runs {runs}",
            hint=f"run `mcplock remove {shell_word(spec.name)}` and add the server again, or restore its command",
        )
    return launch


def _norm(name: str, registry: str) -> str:
    import re

    return re.sub(r"[-_.]+", "-", name).lower() if registry == "pypi" else name


def _oci(spec: S, pin: PackagePin, launch: Launch) -> S:
    digest = pin.integrity if isinstance(pin.integrity, str) else None
    if digest is None:
        raise IntegrityError(
            f"server `{spec.name}`: the pin of image {pin.name} has no digest; nothing was started",
            hint=f"run `mcplock update {shell_word(spec.name)}`",
        )
    if launch.digest is not None and launch.digest != digest:
        raise _mismatch(f"server `{spec.name}`: image {pin.name}", digest, launch.digest, spec.name)
    _, i = _image_index(spec.args)
    args = list(spec.args)
    args[i] = f"{pin.name}@{digest}"
    return replace(spec, args=tuple(args))


def _image_index(args: tuple[str, ...]) -> tuple[Launch, int]:
    """The position of the image in ``docker … run … IMAGE args``: the first argument whose
    tail parses to the same image and arguments."""
    full = parse("docker", args)
    assert isinstance(full, Launch)
    for i in range(len(args)):
        if len(args) - i - 1 == len(full.args) and args[i].startswith(full.name):
            return full, i
    raise IntegrityError("cannot find the image in the docker command")  # pragma: no cover - parse found it
