"""Which servers an `add` takes: those of one host config (`add --from`), those of every host
config of a project not locked yet (`init`), and the refusal of a name locked already. Then
:func:`mcplock.core.add.add_servers` locks them."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from mcplock.core.specs import runs_guard, source_path
from mcplock.errors import UsageError
from mcplock.lock.spec import ServerSpec
from mcplock.text.untrusted import shell_word

if TYPE_CHECKING:
    from mcplock.hosts.model import HostConfig, ImportedServer

Staged = tuple[ServerSpec, "str | None"]  # a spec as it will be locked, and its host-config hash


@dataclass
class Found:
    """Specs to add, and what the reader should know about them (``notes``)."""

    specs: list[Staged] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    configs: list[tuple[str, str, list[str]]] = field(default_factory=list)  # (path, host, server names)


def locked_names(lockfile: str) -> set[str]:
    from mcplock.lock.read import load

    return set(load(lockfile).servers) if os.path.exists(lockfile) else set()


def from_config(path: str, wanted: list[str], base: str) -> Found:
    """The servers of one host config (those in ``wanted``, or all)."""
    from mcplock.hosts import config_hash, load_host_config

    found = Found()
    cfg = load_host_config(path, source=source_path(path, base), project_dir=base)
    found.notes.extend(f"{path}: {w}" for w in cfg.warnings)
    for skipped, why in sorted(cfg.skipped.items()):
        if _wanted(skipped, wanted):
            found.notes.append(f"skipped `{skipped}`: {why}")
    _refuse_unknown(path, wanted, cfg)
    for sname, imp in sorted(cfg.servers.items()):
        if not _wanted(sname, wanted):
            continue
        if runs_guard(imp):
            found.notes.append(_guard_note(sname, path))
            continue
        found.notes.extend(f"{sname}: {n}" for n in (*imp.templated, *imp.warnings))
        found.specs.append((imp.spec, config_hash(imp.spec)))
    return found


def _wanted(name: str, wanted: list[str]) -> bool:
    """Whether server ``name`` of a host config is asked for (no names given: every one is)."""
    return not wanted or name in wanted


def _refuse_unknown(path: str, wanted: list[str], cfg: HostConfig) -> None:
    """Every server asked for by name is in the host config (imported or skipped)."""
    unknown = [w for w in wanted if w not in cfg.servers and w not in cfg.skipped]
    if unknown:
        from mcplock.text.suggest import did_you_mean

        meant = did_you_mean(unknown[0], [*cfg.servers, *cfg.skipped])
        has = f"it has: {', '.join(sorted(cfg.servers)) or 'none'}"
        raise UsageError(f"{path} has no server named {', '.join(unknown)}", hint=f"{meant} ({has})" if meant else has)


def from_project(base: str, existing: set[str]) -> Found:
    """Every server of every host config found in the project at ``base`` that is not locked
    yet (the first config naming a server wins)."""
    from mcplock.hosts import discover, load_host_config

    paths = discover(base)
    if not paths:
        raise UsageError(
            f"no MCP host config found in {base}",
            hint="looked for .mcp.json, .cursor/mcp.json, .vscode/mcp.json, .codex/config.toml, "
            ".gemini/settings.json, opencode.json(c); "
            "add servers with `mcplock add NAME -- CMD…` or `mcplock add --from FILE`",
        )
    found = Found()
    taken: dict[str, str] = {}
    for path in paths:
        rel = source_path(str(path), base)
        cfg = load_host_config(path, source=rel, project_dir=base)
        found.configs.append((rel, cfg.host, sorted(cfg.servers)))
        found.notes.extend(f"{rel}: {w}" for w in cfg.warnings)
        found.notes.extend(f"skipped `{name}`: {why}" for name, why in sorted(cfg.skipped.items()))
        for name, imp in sorted(cfg.servers.items()):
            _take_project_server(found, name, imp, rel, existing, taken)
    return found


def _take_project_server(
    found: Found, name: str, imp: ImportedServer, rel: str, existing: set[str], taken: dict[str, str]
) -> None:
    """One server of the project's host config ``rel``, into ``found``: its notes, and its spec
    unless it is locked already, launches the guard, or an earlier config named it (``taken``:
    name → that config)."""
    from mcplock.hosts import config_hash

    found.notes.extend(f"{name}: {n}" for n in (*imp.templated, *imp.warnings))
    if name in existing:
        return
    if runs_guard(imp):
        found.notes.append(_guard_note(name, rel))
        return
    if name in taken:
        found.notes.append(f"`{name}` is also in {taken[name]}; keeping that one")
        return
    taken[name] = rel
    found.specs.append((imp.spec, config_hash(imp.spec)))


def _guard_note(name: str, path: str) -> str:
    return (
        f"skipped `{name}` in {path}: it launches the mcplock guard (`mcplock run`), not a server; "
        "`mcplock export --no-guard` puts back the entries `export --guard` replaced"
    )


def new_only(specs: list[Staged], lockfile: str, *, explicit: bool) -> tuple[list[Staged], list[str]]:
    """The specs not locked yet, and the names skipped because they are. A server named on the
    command line (``explicit``) that is locked already is a usage error (exit 2)."""
    existing = locked_names(lockfile)
    clash = [sp.name for sp, _ in specs if sp.name in existing]
    if clash and explicit:
        raise UsageError(
            f"`{clash[0]}` is already locked",
            hint=f"run `mcplock refresh {shell_word(clash[0])}` to re-probe it, or "
            f"`mcplock remove {shell_word(clash[0])}` first",
        )
    return [(sp, h) for sp, h in specs if sp.name not in existing], clash
