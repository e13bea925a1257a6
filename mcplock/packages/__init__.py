"""Pinning what runs: the package a server's command launches (npm, PyPI, OCI), its exact
version and integrity, and launching exactly that artefact (docs/pins.md).

- :mod:`~mcplock.packages.launchers`: which package a command line runs (pure parsing);
- :mod:`~mcplock.packages.registries`: resolving it to an exact pin (network);
- :mod:`~mcplock.packages.cache`: installing and verifying it;
- :mod:`~mcplock.packages.pinned`: the spec that runs it.

Nothing here is imported by offline commands but :mod:`~mcplock.packages.pin` and the parser.
"""

from __future__ import annotations

from mcplock.packages.pin import PackagePin
from mcplock.packages.runnable import Env, S

__all__ = ["PackagePin", "pin_and_prepare", "pin_spec", "prepare"]


def prepare(spec: S, environ: Env = None) -> S:
    """The spec rewritten to run its verified pinned artefact (see :func:`mcplock.packages.pinned.prepare`)."""
    if spec.package is None:
        return spec  # no pin: the guard starts without importing the package cache
    from mcplock.packages.pinned import prepare as _prepare

    return _prepare(spec, environ)


def pin_spec(spec: S, environ: Env = None, *, requested: str | None = None) -> S:
    """``spec`` with its package resolved (exact version + integrity) and installed into the
    cache (which fills ``tree-integrity``); a spec that runs no registry package is returned as is."""
    return pin_and_prepare(spec, environ, requested=requested)[0]


def pin_and_prepare(spec: S, environ: Env = None, *, requested: str | None = None) -> tuple[S, S]:
    """(:func:`pin_spec`'s spec, the spec that runs the verified artefact): the package resolved,
    installed and its tree verified once, for a caller that goes on to launch it (``add``); a spec
    that runs no registry package is both."""
    from dataclasses import replace

    from mcplock.packages.command_line import parse
    from mcplock.packages.launchers import Launch
    from mcplock.packages.registries import resolve

    launch = parse(spec.command, spec.args) if spec.stdio else None
    if not isinstance(launch, Launch):
        return spec, spec
    pinned = replace(spec, package=resolve(launch, environ, requested=requested))
    ready = prepare(pinned, environ)
    return replace(pinned, package=ready.package), ready
