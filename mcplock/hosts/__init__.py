"""Import MCP servers from the config files of MCP hosts (pure: no network, no printing).

``load_host_config(path)`` reads one host config and returns a :class:`HostConfig`: the
servers as :class:`ImportedServer` (a :class:`~mcplock.lock.spec.ServerSpec` that holds only what
may be written to a lock, plus notes), and the entries it ``skipped`` with the reason.
``discover(project_dir)`` lists the project-scoped host configs of a project;
``config_hash(spec)`` is the lock's ``config-hash``. Every problem with a file is a
:class:`~mcplock.errors.ConfigError` naming the file (and line), never quoting a value.

Host detection (when ``host`` is None), file name first, then shape:
``*.toml`` → codex; ``claude_desktop_config.json`` → claude-desktop; ``mcp_config.json`` or a
file under ``.codeium``/``windsurf`` → windsurf; ``.cursor/mcp.json`` → cursor;
``.vscode/mcp.json`` (or ``.vscode/settings.json``, ``devcontainer.json``) → vscode;
``.gemini/settings.json`` → gemini; ``.mcp.json`` / ``.claude.json`` → claude-code. Otherwise a
``servers`` key → vscode; ``mcpServers`` with ``httpUrl`` (or Gemini-only keys: ``trust``,
``includeTools``, ``excludeTools``, a top-level ``mcp`` object) → gemini, with ``serverUrl`` →
windsurf, else claude-code. A ``.mcp.json``-style name whose content has only ``servers`` is
read as vscode. Pass ``host`` for a file whose name and shape say nothing (a Cursor file
saved as ``cursor.json`` reads as claude-code, which skips a ``url`` without ``type``).

Transports (one module per host in ``formats/``, behind ``formats/interface.Importer``):
- claude-code: ``type`` missing = stdio (needs ``command``); ``streamable-http`` = ``http``;
  ``url`` without ``type`` is skipped (Claude Code skips it too); ``ws`` skipped.
- claude-desktop: stdio only (``command``/``args``/``env``); an entry with only ``url`` is skipped.
- cursor, windsurf (``serverUrl`` or ``url``), vscode: an explicit ``type`` wins; else
  ``command`` = stdio, ``url`` = remote. vscode with both and no type = stdio (what VS Code does);
  cursor/windsurf with both = skipped as ambiguous.
- gemini: precedence ``httpUrl`` (http) > ``url`` (its ``type``, else remote) > ``command``.
- codex: ``command`` = stdio, ``url`` = http (Codex has no SSE; both = skipped);
  ``bearer_token_env_var`` → ``Authorization: Bearer ${VAR}``; ``env_http_headers`` →
  ``${VAR}`` headers (they win over ``http_headers``, which are literal); ``env_vars`` (names or
  ``{name = …}``) → ``pass-env`` names (an explicit ``env`` value wins); ``cwd`` kept.
- ``cwd`` is imported for vscode, gemini and codex only (the others do not document it).
- **A remote ``url`` without a type** (vscode, gemini ``url``, cursor, windsurf): those hosts try
  Streamable HTTP and fall back to SSE; a lock pins one transport, so mcplock cannot fall back.
  Decision: a URL whose path ends in ``/sse`` (the legacy SSE convention) is imported as ``sse``
  with a warning, any other URL as ``http``. An explicit ``type`` always wins.
- Not supported, skipped with a reason: ``ws``/``wss``, ``unix://`` and ``pipe://`` URLs, other
  schemes, a stdio entry without a command, a remote one without a url.

Variables (see ``interpolate.py``): Claude Code's ``${VAR}``/``${VAR:-default}`` are kept;
Gemini's ``$VAR`` becomes ``${VAR}``; the editors' ``${env:NAME}`` becomes ``${NAME}``,
``${input:id}`` becomes ``${MCP_INPUT_<ID>}`` with a warning naming the variable to set,
``${workspaceFolder}`` becomes ``${MCPLOCK_PROJECT_DIR:-.}`` (the project directory: a probe
sets ``MCPLOCK_PROJECT_DIR`` or runs from the project; the lock stays machine-independent),
``${userHome}`` becomes ``${HOME}``. Editor variables with no meaning outside the editor
(``${command:…}``, ``${file}`` …) skip the server. Codex and Claude Desktop do not interpolate:
their values are literal (a ``${X}`` in a Claude Desktop ``mcp-remote`` argument is left for
the probe to expand from the entry's env, which is what mcp-remote does).

Secrets (see ``secrets.py`` and docs/lock-format.md): every env and header value that
:func:`~mcplock.lock.templates.looks_secret` flags — placeholders such as ``REPLACE_WITH_…`` included —
is stored as a ``${NAME}`` template and its literal goes into ``spec.secrets[NAME]`` (memory
only). Credential-looking arguments and URL parts are templated likewise. ``templated`` says
what moved where; no note, warning, error or ``repr`` contains a secret value.

``~/.claude.json`` (top-level ``mcpServers`` = user scope, ``projects[<abs path>].mcpServers`` =
local scope): decision: the user scope is imported, plus the local scope of the project whose
key is ``project_dir`` (default: the current directory, where mcplock runs), the local entry
replacing a user entry of the same name whole (local > user, never merged, as Claude Code
does). Other projects' scopes are not imported; ``HostConfig.warnings`` says how many there are.
(The project scope, ``.mcp.json``, is a file of its own.)

JSON files are read as JSONC everywhere (comments and trailing commas are blanked out outside
strings, so line numbers stay right): VS Code and Gemini CLI accept them, and a strict host
would have failed on the file already. A server name or a server key given twice is an error
(a bad merge), not "last one wins".
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from mcplock.errors import ConfigError, UsageError, json_type
from mcplock.hosts.formats import BY_NAME, IMPORTERS, Importer
from mcplock.hosts.imported import build
from mcplock.hosts.importers import Skip, check_name
from mcplock.hosts.model import HOSTS, HostConfig, ImportedServer
from mcplock.hosts.parse import Where, parse, read_text
from mcplock.lock.hashing import definition_hash
from mcplock.lock.spec import ServerSpec

__all__ = [
    "HOSTS",
    "PROJECT_CONFIGS",
    "HostConfig",
    "ImportedServer",
    "config_hash",
    "detect_host",
    "discover",
    "load_host_config",
]

#: Project-scoped host configs that hosts really read, in the order ``discover`` returns them.
PROJECT_CONFIGS: tuple[tuple[str, str], ...] = (
    (".mcp.json", "claude-code"),
    (".cursor/mcp.json", "cursor"),
    (".vscode/mcp.json", "vscode"),
    (".codex/config.toml", "codex"),
    (".gemini/settings.json", "gemini"),
    ("opencode.jsonc", "opencode"),
    ("opencode.json", "opencode"),
)

_ALIASES = {
    "claude": "claude-code",
    "claude_code": "claude-code",
    "claudecode": "claude-code",
    "claude_desktop": "claude-desktop",
    "vs-code": "vscode",
    "code": "vscode",
    "copilot": "vscode",
    "gemini-cli": "gemini",
    "codex-cli": "codex",
    "open-code": "opencode",
}


def config_hash(spec: ServerSpec) -> str:
    """``config-hash`` of a server: the hash of the spec as stored (templates, never secret values).

    ``check`` recomputes it offline from the host config: the same config gives the same
    hash, a changed argument a different one, a changed secret value the same one.
    """
    return definition_hash(spec.stored(), what=f"server `{spec.name}` config")


def discover(project_dir: str | os.PathLike[str]) -> list[Path]:
    """The host config files present in a project, in a stable order.

    Only project-scoped locations that hosts read: ``.mcp.json`` (Claude Code),
    ``.cursor/mcp.json`` (Cursor), ``.vscode/mcp.json`` (VS Code), ``.codex/config.toml``
    (Codex, trusted projects) and ``.gemini/settings.json`` (Gemini CLI). Windsurf and Claude
    Desktop have no project file; user-level files (``~/.claude.json``, ``~/.codex/…``) are
    never looked at. Returned paths are ``project_dir / <location>``.
    """
    root = Path(project_dir)
    return [root / rel for rel, _ in PROJECT_CONFIGS if (root / rel).is_file()]


def _canonical_host(host: str) -> str:
    h = host.strip().lower()
    h = _ALIASES.get(h, h)
    if h not in IMPORTERS:
        raise UsageError(f"unknown host {host!r}", hint="use one of: " + ", ".join(IMPORTERS))
    return h


def detect_host(path: str | os.PathLike[str], data: Any) -> str | None:
    """The host a config file belongs to, from its name (each importer's ``by_name``, in
    :data:`~mcplock.hosts.formats.BY_NAME` order), then its shape (None when unknown)."""
    p = Path(path)
    if not isinstance(data, dict):
        return "codex" if p.suffix.lower() == ".toml" else None
    named = next((imp.host for imp in BY_NAME if imp.by_name(p, data)), None)
    return named or _by_shape(data)


def _by_shape(data: dict[str, Any]) -> str | None:
    servers = data.get("mcpServers")
    if isinstance(servers, dict):
        return _by_entries(data, [v for v in servers.values() if isinstance(v, dict)])
    if "servers" in data or (isinstance(data.get("mcp"), dict) and "servers" in data["mcp"]):
        return "vscode"
    return None


def _by_entries(data: dict[str, Any], entries: list[dict[str, Any]]) -> str:
    """The host of an ``mcpServers`` file, by what its entries hold: keys only Gemini CLI's
    have (or its ``mcp`` block), Windsurf's ``serverUrl``, else Claude Code's shape."""
    from mcplock.hosts.formats.gemini import ENTRY_KEYS

    if any(k in v for v in entries for k in ENTRY_KEYS) or isinstance(data.get("mcp"), dict):
        return "gemini"
    if any("serverUrl" in v for v in entries):
        return "windsurf"
    return "claude-code"


def _not_a_config(shown: str, data: dict[str, Any]) -> ConfigError:
    if any(k in data for k in ("permissions", "enabledMcpjsonServers", "disabledMcpjsonServers")):
        return ConfigError(
            f"{shown}: a Claude Code settings file (permissions), not a server list",
            hint="Claude Code's servers are in .mcp.json (project) or ~/.claude.json (user/local)",
        )
    return ConfigError(
        f"{shown}: not a recognised MCP host config (no `mcpServers`, `servers` or `mcp_servers`)",
        hint="pass the host explicitly (" + ", ".join(HOSTS) + ") or give a host's MCP config file",
    )


def load_host_config(
    path: str | os.PathLike[str],
    *,
    host: str | None = None,
    source: str | None = None,
    project_dir: str | os.PathLike[str] | None = None,
) -> HostConfig:
    """Read one host config file and import its servers.

    ``host`` forces the format (see :data:`HOSTS`), else it is detected; ``source`` is what
    each spec records as its ``source`` (default: ``path`` as given); ``project_dir`` picks the
    local scope of a ``~/.claude.json`` (default: the current directory).
    Raises :class:`ConfigError` for an unreadable or invalid file or a wrongly shaped entry,
    :class:`UsageError` for an unknown ``host``.
    """
    shown = os.fspath(path)
    p = Path(shown)
    forced = IMPORTERS[_canonical_host(host)] if host is not None else None
    fmt = _format(p, forced)
    text = read_text(p, shown)
    data = parse(text, shown, fmt)
    where = Where(shown, text, fmt)
    if not isinstance(data, dict):
        raise where.error(
            f"the top level must be an object, not {json_type(data)}", hint="a host config is one JSON object"
        )
    imp = forced or _detected(p, shown, data)
    warnings: list[str] = []
    found = imp.servers(where, data, project_dir, warnings)
    return _imported(shown, imp, found, shown if source is None else source, warnings)


def _format(p: Path, forced: Importer | None) -> str:
    """``toml`` for a ``.toml`` file or one the forced host reads as TOML, else ``json``."""
    return "toml" if p.suffix.lower() == ".toml" or (forced is not None and forced.is_toml(p)) else "json"


def _detected(p: Path, shown: str, data: dict[str, Any]) -> Importer:
    host = detect_host(p, data)
    if host is None:
        raise _not_a_config(shown, data)
    return IMPORTERS[host]


def _imported(
    shown: str, imp: Importer, found: list[tuple[str, Any, list[str]]], src: str, warnings: list[str]
) -> HostConfig:
    servers: dict[str, ImportedServer] = {}
    skipped: dict[str, str] = {}
    for n, e, extra in found:
        if reason := check_name(n):
            skipped[n] = reason
            continue
        try:
            servers[n] = build(e, imp, src, extra)
        except Skip as s:
            skipped[n] = str(s)
    return HostConfig(path=shown, host=imp.host, servers=servers, skipped=skipped, warnings=tuple(warnings))
