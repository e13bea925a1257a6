"""The one error hierarchy of mcplock.

Every error the user can cause or meet carries a stable ``code``, a message, an
optional ``hint`` (what to do next) and the process exit code (DESIGN §5).
Drift is a result, not an error: nothing here is raised for a finding.
Third-party exceptions are translated into these at the module that meets them.
"""

from __future__ import annotations


class McplockError(Exception):
    """Base class: a clear, expected failure that ends a command."""

    exit_code: int = 2
    code: str = "error"

    def __init__(self, message: str, *, hint: str | None = None, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        if code is not None:
            self.code = code

    def __str__(self) -> str:  # pragma: no cover - trivial
        return self.message

    def as_json(self) -> dict[str, object]:
        return {"code": self.code, "message": self.message, "hint": self.hint}


class UsageError(McplockError):
    """Bad arguments or a request that makes no sense (exit 2)."""

    code = "usage"


class LockfileError(McplockError):
    """The lock cannot be read: unparseable, conflicted, wrong types, too new (exit 2)."""

    code = "lockfile"

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        line: int | None = None,
        hint: str | None = None,
        code: str | None = None,
    ) -> None:
        where = ""
        if path is not None:
            where = f"{path}:{line}: " if line is not None else f"{path}: "
        super().__init__(where + message, hint=hint, code=code)
        self.path = path
        self.line = line


class ConfigError(McplockError):
    """A host config (`.mcp.json`, `config.toml`, …) cannot be read (exit 2)."""

    code = "config"


class HashError(McplockError):
    """A definition holds a value RFC 8785 cannot represent (NaN, huge integers, lone surrogates)."""

    code = "unhashable"


class SecretError(UsageError):
    """A literal secret was given where only a ``${VAR}`` template may go (exit 2)."""

    code = "literal-secret"


class ProbeError(McplockError):
    """A server could not be probed (exit 3). ``kind`` says why, e.g. ``timeout``."""

    exit_code = 3
    code = "probe"

    def __init__(self, kind: str, message: str, *, hint: str | None = None) -> None:
        super().__init__(message, hint=hint, code=kind)
        self.kind = kind

    def as_json(self) -> dict[str, object]:
        return {"kind": self.kind, "message": self.message, "hint": self.hint}


class LockBusyError(McplockError):
    """Another mcplock process holds the lock file's write lock for too long."""

    code = "busy"
