"""What a server's command line runs from a registry (:func:`parse`): the launcher it names
(:data:`mcplock.packages.launchers.LAUNCHERS`), else a launcher behind a wrapper (``env X=1 npx …``,
``sh -c …``: :mod:`mcplock.packages.wrappers`), which pins nothing; anything else is a local command."""

from __future__ import annotations

from collections.abc import Sequence

from mcplock.packages.launchers import LAUNCHERS, LOCAL, Launch, NoPin, launcher_name


def parse(command: str | None, args: Sequence[str]) -> Launch | NoPin:
    """What ``command args`` runs from a registry; :data:`LOCAL` for anything else."""
    if not command:
        return NoPin("no registry pin (remote server)")
    fn = LAUNCHERS.get(launcher_name(command))
    got = LOCAL if fn is None else fn(list(args))
    if got is LOCAL:  # a launcher behind a wrapper (`env X=1 npx …`, `sh -c …`) is no local command
        from mcplock.packages.wrappers import unwrap  # only then: most commands need no wrapper rules

        wrapped = unwrap(command, args)
        if wrapped is not None:
            return NoPin(wrapped.reason)
    return got
