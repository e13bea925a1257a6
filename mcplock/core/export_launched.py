"""Which locked servers a host launches from the project, as its own config says (docs/export.md,
"Which servers"): the entries of its project server list that it starts (opencode's
``"enabled": false``, Codex's ``enabled = false``, Claude Code's ``disabledMcpjsonServers``,
Gemini CLI's ``mcp.excluded``/``mcp.allowed`` keep a server off), and the note for a host whose
settings cannot deny what the lock does not know, naming only the servers ``--guard`` can route.
The export is a function of the lock and the project: a person's own home directory is never read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mcplock.core.export_files import HostFiles, read_entries, settings_data
from mcplock.core.export_policy import policy_hint

if TYPE_CHECKING:
    from mcplock.hosts.export import Exporter
    from mcplock.hosts.export.interface import Decisions
    from mcplock.lock.model import Lock


def entries(exp: Exporter, files: HostFiles, srel: str) -> Any:
    """The host's server entries in ``srel`` (the object at ``servers_keys``), None when the file
    or the object is absent."""
    if srel in files.docs:
        found = files.docs[srel][0].get(exp.servers_keys)
    else:  # read, not opened for editing: an export without --guard leaves the servers' file alone
        found = read_entries(exp, files.base, srel)
    found = _nested_servers(exp, found)
    return found if isinstance(found, dict) else None


def _nested_servers(exp: Exporter, found: Any) -> Any:
    """OpenCode may nest its server entries one level down, under ``servers``."""
    if isinstance(found, dict) and exp.host == "opencode" and isinstance(found.get("servers"), dict):
        return found["servers"]
    return found


def launched(exp: Exporter, found: Any, files: HostFiles, rel: str) -> set[str] | None:
    """The names of the servers the host's project config launches and starts (an entry routed
    through the guard keeps its name; ``rel``: the host's settings file, which may turn a server
    off). None: the project has no server list for this host (it may launch servers from the
    user's own config, which mcplock does not read), so every locked server gets rules. Codex and
    Gemini rules need the server in the same file: there, only the servers it defines."""
    if found is None:
        return set() if exp.per_server_in_file else None
    settings = [_settings(files, rel)] + [_settings(files, f) for f in exp.switch_files]
    return {name for name, entry in found.items() if exp.starts(name, entry, settings)}


def _settings(files: HostFiles, rel: str) -> Any:
    """What one of the host's settings files holds (``{}``: no file): the copy being edited when
    the export opened it, else read."""
    if rel in files.docs:
        return files.docs[rel][0].get(()) or {}
    return settings_data(files.base, rel)


def launched_decisions(decisions: Decisions, names: set[str] | None) -> Decisions:
    """The lock's decisions for the servers the host launches."""
    return {s: d for s, d in decisions.items() if names is None or s in names}


def no_default_deny(exp: Exporter, lock: Lock, found: Any, names: set[str] | None, policy: str | None) -> str | None:
    """For a host whose settings cannot deny what the lock does not know: which locked servers
    its project config starts directly (not through ``mcplock run``), the ones ``--guard`` can
    route, and the fix. None when there is none: a host without a project server list launches
    nothing ``--guard`` could route (its user's own config is not the project's)."""
    if found is None or not names:
        return None
    direct = sorted(s for s in lock.servers if s in names and not exp.is_guard(found.get(s)))
    if not direct:
        return None
    return (
        f"{exp.host} cannot deny a tool the lock does not know (one a server starts offering after this "
        f"export): it {exp.unknown_tools}. Route {', '.join(direct)} through the guard "
        f"(`mcplock export --guard{policy_hint(policy)}`), which serves only what the lock accepted"
    )
