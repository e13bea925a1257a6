"""Errors of package pinning: the registry could not answer (exit 3), or what would run is not
what the lock pins (exit 2: the lock and the artefact disagree; nothing is started)."""

from __future__ import annotations

from mcplock.errors import McplockError

#: the registry answered, and what was asked for does not exist: an input error (exit 2), never
#: an outage (exit 3), so a CI job that tolerates outages does not pass a typo
NOT_FOUND = frozenset({"unknown-package", "unknown-version", "unknown-server"})


class RegistryError(McplockError):
    """A package or image could not be resolved or fetched: registry unreachable, docker not
    running (exit 3), or an unknown package, version or server name (exit 2: the registry
    answered that it has none); the lock is left untouched."""

    exit_code = 3
    code = "registry"

    def __init__(self, kind: str, message: str, *, hint: str | None = None) -> None:
        super().__init__(message, hint=hint, code=kind)
        self.kind = kind
        if kind in NOT_FOUND:
            self.exit_code = 2


def did_you_mean(name: str, candidates: list[str]) -> str | None:
    """The candidate closest to ``name`` (a typo's likely target), or None."""
    import difflib

    close = difflib.get_close_matches(name, [c for c in candidates if c != name], n=1, cutoff=0.75)
    return close[0] if close else None


class IntegrityError(McplockError):
    """What would run does not match the pin (exit 2): refused before anything starts."""

    exit_code = 2
    code = "integrity"
