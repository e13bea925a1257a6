"""The values :mod:`mcplock.hosts` returns: one imported server, one host config file."""

from __future__ import annotations

from dataclasses import dataclass, field

from mcplock.lock.spec import ServerSpec

#: Host names, as accepted by ``load_host_config(host=...)`` and reported in ``HostConfig.host``.
HOSTS: tuple[str, ...] = (
    "claude-code",
    "claude-desktop",
    "cursor",
    "vscode",
    "windsurf",
    "codex",
    "gemini",
    "opencode",
)


@dataclass(frozen=True)
class ImportedServer:
    """One server taken from a host config.

    ``spec.secrets`` holds the literal values that were replaced by ``${VAR}`` templates
    (memory only, never in ``repr``); ``templated`` and ``warnings`` are human notes
    that never contain a secret value.
    """

    spec: ServerSpec
    templated: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class HostConfig:
    """The servers of one host config file, in the file's order."""

    path: str
    host: str
    servers: dict[str, ImportedServer]
    skipped: dict[str, str]  # server name -> reason it was not imported
    # File-level notes (e.g. project scopes of ~/.claude.json that were not imported).
    warnings: tuple[str, ...] = field(default=())
