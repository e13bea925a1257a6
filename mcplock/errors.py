"""The one error hierarchy of mcplock.

Every error the user can cause or meet carries a stable ``code``, a message, an
optional next step and the process exit code (docs/architecture.md, "Errors").
The next step is an :class:`Action`: data that says what kind of step it is and which
command to run, so code can act on it (log in, then probe again) or swap in a more
precise command without parsing text; :attr:`McplockError.hint` is its text for people.
Drift is a result, not an error: nothing here is raised for a finding.
Third-party exceptions are translated into these at the module that meets them.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Self

COMMAND = "{command}"  # where an Action's text shows its command


@dataclass(frozen=True)
class Action:
    """The next step an error suggests.

    ``kind``: ``"advice"`` (text only) or ``"login"`` (an OAuth login would fix it;
    ``command`` is the ``mcplock auth login …`` that does it, ``scopes`` what it must ask for).
    ``text`` shows the command where it holds ``{command}``, in backticks as written.
    ``offers_retry``: the text already says that the same command with ``--login`` works.
    ``again``: a login just made does not settle it by itself (the server moved to another
    authorization server); a run that logs in may log in once more, like a scope step-up.
    """

    kind: str
    text: str
    command: str | None = None
    scopes: str | None = None
    offers_retry: bool = False
    again: bool = False

    def full_command(self) -> str | None:
        if self.command is None:
            return None
        return self.command + (f" --oauth-scopes '{self.scopes}'" if self.scopes else "")

    def render(self) -> str:
        cmd = self.full_command()
        return self.text if cmd is None else self.text.replace(COMMAND, cmd, 1)

    def with_command(self, command: str) -> Action:
        return dataclasses.replace(self, command=command)

    def with_retry(self, flag: str = "--login") -> Action:
        """The same step, adding that running the failed command again with ``flag`` works too."""
        if self.offers_retry:
            return self
        text = (self.text.rstrip(".") + "; " if self.text else "") + f"or run this command again with {flag}"
        return dataclasses.replace(self, text=text, offers_retry=True)

    def mapped(self, f: Any) -> Action:
        """The action with ``f`` applied to its texts (secret scrubbing)."""
        return dataclasses.replace(
            self,
            text=f(self.text),
            command=None if self.command is None else f(self.command),
            scopes=None if self.scopes is None else f(self.scopes),
        )


def advice(text: str | None) -> Action | None:
    return None if text is None else Action("advice", text)


class McplockError(Exception):
    """Base class: a clear, expected failure that ends a command."""

    exit_code: int = 2
    code: str = "error"

    def __init__(
        self, message: str, *, hint: str | None = None, code: str | None = None, action: Action | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.action = action if action is not None else advice(hint)
        if code is not None:
            self.code = code

    @property
    def hint(self) -> str | None:
        """The next step as text (what renderers print)."""
        return None if self.action is None else self.action.render()

    @hint.setter
    def hint(self, text: str | None) -> None:
        self.action = advice(text)

    def __str__(self) -> str:  # pragma: no cover - trivial
        return self.message

    def as_json(self) -> dict[str, object]:
        return {"code": self.code, "message": self.message, "hint": self.hint}

    def evolve(self, **changes: Any) -> Self:
        """A copy with some attributes changed (``message``, ``action``); the rest is kept."""
        new = type(self).__new__(type(self))
        new.__dict__.update(self.__dict__)
        new.__dict__.update(changes)
        new.args = (new.message,)
        return new


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


class UntrustedError(UsageError):
    """A server from a file (host config, pulled lock) would run before anyone trusted it on
    this machine (exit 2). ``specs``: what would run."""

    code = "untrusted"

    def __init__(self, message: str, *, specs: list[Any], hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.specs = specs


#: a stdio server whose command, script or working directory is not on this machine: an input
#: error (exit 2), the typo a CI that tolerates outages (exit 3) must not pass (issue 42.11)
LOCAL_NOT_FOUND = frozenset({"command-not-found", "script-not-found", "cwd-not-found"})


class ProbeError(McplockError):
    """A server could not be probed (exit 3; 2 when what it runs is not on this machine,
    :data:`LOCAL_NOT_FOUND`). ``kind`` says why, e.g. ``timeout``."""

    exit_code = 3
    code = "probe"

    def __init__(self, kind: str, message: str, *, hint: str | None = None, action: Action | None = None) -> None:
        super().__init__(message, hint=hint, code=kind, action=action)
        self.kind = kind
        if kind in LOCAL_NOT_FOUND:
            self.exit_code = 2
        self.stderr_tail = ""  # a probe's error: the server's last stderr lines, and stdout it skipped
        self.skipped_lines: list[str] = []

    def as_json(self) -> dict[str, object]:
        return {"kind": self.kind, "message": self.message, "hint": self.hint}


class InvalidArguments(McplockError):
    """Arguments do not match the tool's locked input schema."""

    code = "invalid-arguments"
    exit_code = 1

    def __init__(self, message: str, errors: list[str]) -> None:
        super().__init__(message)
        self.errors = errors


class LockBusyError(McplockError):
    """Another mcplock process holds the lock file's write lock for too long."""

    code = "busy"


def json_type(v: object) -> str:
    """How an error message names the JSON type of ``v`` ("a string", "an object", "null")."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, (int, float)):
        return "a number"
    if isinstance(v, str):
        return "a string"
    if isinstance(v, list):
        return "an array"
    if isinstance(v, dict):
        return "an object"
    return "a " + type(v).__name__


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP (CI cancellation, ``timeout``, a closed terminal), raised in the main
    thread like Ctrl-C's KeyboardInterrupt so the same cleanup runs (servers' process groups
    killed, lock writes abandoned); the process then exits 128 + the signal number."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def trap_termination(received: list[int]) -> dict[int, Any]:
    """SIGTERM and SIGHUP raise :class:`Terminated` in the main thread (each signal number is
    also appended to ``received``); a signal ignored at start (nohup) stays ignored. Returns the
    handlers to restore. Every command does this, and the guard too: a host that stops it with
    SIGTERM (as MCP's stdio shutdown says to) must not leave its server's process group behind."""
    import signal
    import threading

    def terminated(signum: int, frame: object) -> None:
        received.append(signum)
        raise Terminated(signum)

    previous: dict[int, Any] = {}
    if threading.current_thread() is not threading.main_thread():
        return previous
    for sig in (signal.SIGTERM, getattr(signal, "SIGHUP", None)):
        if sig is None or signal.getsignal(sig) is signal.SIG_IGN:
            continue
        previous[sig] = signal.signal(sig, terminated)
    return previous
