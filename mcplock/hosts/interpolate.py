"""Each host's variable syntax, rewritten to mcplock's ``${VAR}`` / ``${VAR:-default}``.

- claude-code: ``${VAR}`` and ``${VAR:-default}`` are mcplock's own syntax: kept as is.
- claude-desktop, codex: no interpolation; values are literal and kept as is.
- gemini: ``$VAR`` → ``${VAR}``; ``${VAR}`` and ``${VAR:-default}`` kept.
- cursor, windsurf, vscode (the editors' variable resolver):
  ``${env:NAME}`` → ``${NAME}``; ``${input:id}`` → ``${MCP_INPUT_<ID>}`` (with a warning
  naming the variable to set); ``${workspaceFolder}`` / ``${workspaceRoot}`` →
  ``${MCPLOCK_PROJECT_DIR:-.}``; ``${userHome}`` → ``${HOME}``; ``${pathSeparator}`` /
  ``${/}`` → ``/``; ``${workspaceFolderBasename}`` → ``${MCPLOCK_PROJECT_NAME}`` (warning);
  an upper-case ``${NAME}`` is kept as an environment template; any other editor
  variable (``${command:…}``, ``${config:…}``, ``${file}``, ``${workspaceFolder:name}``…)
  cannot be resolved outside the editor, so the server is skipped with that reason.
"""

from __future__ import annotations

import re

PROJECT_DIR = "${MCPLOCK_PROJECT_DIR:-.}"


class Unsupported(Exception):
    """The value uses a variable mcplock cannot resolve: the server is skipped (``str`` = reason)."""


_EDITOR = re.compile(r"\$\{([^}]*)\}")
_GEMINI = re.compile(r"\$\{[^}]*\}|\$([A-Za-z_][A-Za-z0-9_]*)")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ENV_TEMPLATE = re.compile(r"[A-Z_][A-Z0-9_]*(?::-[^}]*)?")


def input_var(input_id: str) -> str:
    """``${input:github-token}`` → ``MCP_INPUT_GITHUB_TOKEN``."""
    return "MCP_INPUT_" + re.sub(r"[^A-Za-z0-9]", "_", input_id).upper()


def _shown(inner: str) -> str:
    """How an unsupported variable is named in a reason: its kind, never its arguments."""
    head = inner.split(":", 1)[0]
    head = head if _IDENT.fullmatch(head) else "…"
    return "${" + head + (":…}" if ":" in inner else "}")


def _editor(value: str, warnings: list[str], host: str) -> str:
    def sub(m: re.Match[str]) -> str:
        inner = m.group(1)
        if inner.startswith("env:"):
            name = inner[4:]
            if not _IDENT.fullmatch(name):
                raise Unsupported("uses ${env:…} with a name that is not an environment variable name")
            return "${" + name + "}"
        if inner.startswith("input:"):
            var = input_var(inner[6:])
            note = f"${{{inner}}} prompts in {_HOST_NAMES[host]}: set {var} in the environment for mcplock"
            if note not in warnings:
                warnings.append(note)
            return "${" + var + "}"
        if inner in ("workspaceFolder", "workspaceRoot"):
            return PROJECT_DIR
        if inner == "userHome":
            return "${HOME}"
        if inner in ("pathSeparator", "/"):
            return "/"
        if inner == "workspaceFolderBasename":
            note = "${workspaceFolderBasename} → ${MCPLOCK_PROJECT_NAME}: set it in the environment for mcplock"
            if note not in warnings:
                warnings.append(note)
            return "${MCPLOCK_PROJECT_NAME}"
        if _ENV_TEMPLATE.fullmatch(inner):
            return m.group(0)
        raise Unsupported(f"uses {_shown(inner)}, which only {_HOST_NAMES[host]} can resolve")

    return _EDITOR.sub(sub, value)


def _gemini(value: str) -> str:
    return _GEMINI.sub(lambda m: m.group(0) if m.group(1) is None else "${" + m.group(1) + "}", value)


_HOST_NAMES = {
    "opencode": "opencode",
    "claude-code": "Claude Code",
    "claude-desktop": "Claude Desktop",
    "cursor": "Cursor",
    "vscode": "VS Code",
    "windsurf": "Windsurf",
    "codex": "Codex",
    "gemini": "Gemini CLI",
}


def host_name(host: str) -> str:
    return _HOST_NAMES.get(host, host)


def convert(host: str, value: str, warnings: list[str]) -> str:
    """Rewrite one config string to mcplock's template syntax (may raise :class:`Unsupported`)."""
    if host in ("cursor", "windsurf", "vscode"):
        return _editor(value, warnings, host)
    if host == "gemini":
        return _gemini(value)
    if host == "opencode":
        return _opencode(value)
    return value


_OPENCODE = re.compile(r"\{(env|file):([^}]*)\}")


def _opencode(value: str) -> str:
    """opencode's ``{env:VAR}`` → ``${VAR}``; ``{file:path}`` is read by opencode only: the server is skipped."""

    def sub(m: re.Match[str]) -> str:
        if m.group(1) == "env" and _IDENT.fullmatch(m.group(2)):
            return "${" + m.group(2) + "}"
        raise Unsupported("uses {" + m.group(1) + ":…}, which only opencode can resolve")

    return _OPENCODE.sub(sub, value)
