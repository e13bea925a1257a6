"""Adding servers to the lock: from a host config, from every config of a project, or from
one spec; staging what they offer, the acceptance rule, and the write.

The rule: critical lint findings are never accepted wholesale — an item with one stays
pending even under ``add --yes`` or "accept all" at the prompt, for a person to review.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from mcplock import severity
from mcplock.core.probing import result_of, unpinnable
from mcplock.core.specs import entry_from_spec, runs_guard, source_path
from mcplock.errors import HashError, ProbeError, UsageError
from mcplock.lock.model import ServerEntry
from mcplock.lock.targets import label
from mcplock.spec import ServerSpec

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
        if not wanted or skipped in wanted:
            found.notes.append(f"skipped `{skipped}`: {why}")
    unknown = [w for w in wanted if w not in cfg.servers and w not in cfg.skipped]
    if unknown:
        raise UsageError(f"{path} has no server named {', '.join(unknown)}",
                         hint=f"it has: {', '.join(sorted(cfg.servers)) or 'none'}")
    for sname, imp in sorted(cfg.servers.items()):
        if wanted and sname not in wanted:
            continue
        if runs_guard(imp):
            found.notes.append(_guard_note(sname, path))
            continue
        found.notes.extend(f"{sname}: {n}" for n in (*imp.templated, *imp.warnings))
        found.specs.append((imp.spec, config_hash(imp.spec)))
    return found


def from_project(base: str, existing: set[str]) -> Found:
    """Every server of every host config found in the project at ``base`` that is not locked
    yet (the first config naming a server wins)."""
    from mcplock.hosts import config_hash, discover, load_host_config

    paths = discover(base)
    if not paths:
        raise UsageError(f"no MCP host config found in {base}",
                         hint="looked for .mcp.json, .cursor/mcp.json, .vscode/mcp.json, .codex/config.toml, "
                         ".gemini/settings.json, opencode.json(c); "
                         "add servers with `mcplock add NAME -- CMD…` or `mcplock add --from FILE`")
    found = Found()
    taken: dict[str, str] = {}
    for path in paths:
        rel = source_path(str(path), base)
        cfg = load_host_config(path, source=rel, project_dir=base)
        found.configs.append((rel, cfg.host, sorted(cfg.servers)))
        found.notes.extend(f"{rel}: {w}" for w in cfg.warnings)
        found.notes.extend(f"skipped `{name}`: {why}" for name, why in sorted(cfg.skipped.items()))
        for name, imp in sorted(cfg.servers.items()):
            found.notes.extend(f"{name}: {n}" for n in (*imp.templated, *imp.warnings))
            if name in existing:
                continue
            if runs_guard(imp):
                found.notes.append(_guard_note(name, rel))
                continue
            if name in taken:
                found.notes.append(f"`{name}` is also in {taken[name]}; keeping that one")
                continue
            taken[name] = rel
            found.specs.append((imp.spec, config_hash(imp.spec)))
    return found


def _guard_note(name: str, path: str) -> str:
    return (f"skipped `{name}` in {path}: it launches the mcplock guard (`mcplock run`), not a server; "
            "`mcplock export --no-guard` puts back the entries `export --guard` replaced")


def pin_packages(specs: list[Staged], environ: Any = None,
                 on_pin: Any = None) -> tuple[list[Staged], dict[str, ProbeError]]:
    """Each spec whose command runs a registry package (npx, uvx, docker run…) with its exact
    version and integrity resolved and the artefact installed in the cache; the servers whose
    package could not be resolved (unknown, unreachable registry: not to be probed nor added, exit 3)."""
    from mcplock.packages import pin_spec
    from mcplock.packages.errors import RegistryError
    from mcplock.packages.launchers import Launch, parse

    out: list[Staged] = []
    failed: dict[str, ProbeError] = {}
    for sp, chash in specs:
        if sp.transport != "stdio" or sp.package is not None or not isinstance(parse(sp.command, sp.args), Launch):
            out.append((sp, chash))
            continue
        if on_pin is not None:
            on_pin(sp)
        try:
            out.append((pin_spec(sp, environ), chash))
        except RegistryError as e:
            failed[sp.name] = ProbeError(e.code, e.message, hint=e.hint)
            out.append((sp, chash))  # staged as failed: not probed, not added
    return out, failed


def stage_new(specs: list[Staged], results: dict[str, Any], policy: str,
              client: dict[str, str] | None) -> tuple[list[ServerEntry], dict[str, ProbeError]]:
    """New lock entries, everything they offer pending; and the servers that failed."""
    from mcplock.lock import review

    staged: list[ServerEntry] = []
    failed: dict[str, ProbeError] = {}
    for sp, chash in specs:
        r = result_of(results, sp.name)
        if isinstance(r, ProbeError):
            failed[sp.name] = r
            continue
        entry = entry_from_spec(sp, policy, chash)
        entry.client = client
        try:
            review.stage(entry, r)
        except HashError as e:  # this server fails alone; the others are still added
            failed[sp.name] = unpinnable(e)
            continue
        staged.append(entry)
    return staged, failed


def is_critical(server: str, e: Any, findings: dict) -> bool:
    """The rule: an item with a critical lint finding is never accepted wholesale (``add --yes``,
    ``accept --all``, ``accept SERVER``, "accept the rest" in the walk); a person names it."""
    return any(f.severity == severity.CRITICAL for f in findings.get((server, e.kind, e.key), []))


def has_critical(entry: ServerEntry, findings: dict) -> bool:
    return any(is_critical(entry.name, e, findings) for e in entry.entries())


def accept_all_but_critical(entry: ServerEntry, findings: dict) -> list[str]:
    """Accept every pending item of a new ``entry`` except those with a critical lint
    finding, which stay pending. Returns the targets held back."""
    from mcplock.lock import review

    held: list[str] = []
    for e in list(entry.entries()):
        if is_critical(entry.name, e, findings):
            held.append(label(entry, e))
            continue
        review.accept(entry, e)
    return held


def write_new(lockfile: str, staged: list[ServerEntry]) -> dict[str, ProbeError]:
    """Add ``staged`` to the lock in one transaction; a name some other process locked
    meanwhile is left alone and returned as failed."""
    from mcplock.lock.store import transaction

    clashes: dict[str, ProbeError] = {}
    if not staged:
        return clashes
    with transaction(lockfile, create=True) as lock:
        for entry in staged:
            if entry.name in lock.servers:
                clashes[entry.name] = ProbeError("exists", "was added to the lock meanwhile by another process")
                continue
            lock.servers[entry.name] = entry
    return clashes
