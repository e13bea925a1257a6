"""Errors of package pinning: the registry could not answer (exit 3), or what would run is not
what the lock pins (exit 2: the lock and the artefact disagree; nothing is started)."""

from __future__ import annotations

from mcplock.errors import McplockError


class RegistryError(McplockError):
    """A package or image could not be resolved or fetched: unknown package or version, registry
    unreachable, docker not running (exit 3; the lock is left untouched)."""

    exit_code = 3
    code = "registry"

    def __init__(self, kind: str, message: str, *, hint: str | None = None) -> None:
        super().__init__(message, hint=hint, code=kind)
        self.kind = kind


class IntegrityError(McplockError):
    """What would run does not match the pin (exit 2): refused before anything starts."""

    exit_code = 2
    code = "integrity"
