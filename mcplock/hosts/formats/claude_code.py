"""Claude Code: ``.mcp.json`` (project scope) and ``~/.claude.json`` (user scope, and each
project's local scope under ``projects``). ``type`` missing = stdio; ``url`` without a type is
skipped (Claude Code skips it too)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from mcplock.errors import json_type
from mcplock.hosts.formats.interface import Found, Importer
from mcplock.hosts.importers import Entry, Skip, explicit_type, same_path, servers_map
from mcplock.hosts.parse import Where
from mcplock.lock.spec import Transport


class ClaudeCode(Importer):
    host = "claude-code"

    def by_name(self, path: Path, data: dict[str, Any]) -> bool:
        vscode_shape = "servers" in data and "mcpServers" not in data
        return path.name.lower() in (".mcp.json", ".claude.json") and not vscode_shape

    def servers(
        self, where: Where, data: dict[str, Any], project_dir: str | os.PathLike[str] | None, warnings: list[str]
    ) -> list[Found]:
        """The user scope, then the local scope of ``project_dir`` (default: the cwd), a local
        entry replacing a user entry of the same name whole (local > user, never merged)."""
        found = super().servers(where, data, project_dir, [] if "projects" in data else warnings)
        local, match, disabled = _projects(where, data, project_dir, warnings)
        _put_local(found, local, match)
        for n, _, extra in found:
            if n in disabled:
                extra.append("disabled for this project in this file (disabledMcpServers)")
        return found

    def transport(self, e: Entry, warnings: list[str]) -> tuple[Transport, str | None]:
        t = explicit_type(e)
        if t is not None:
            return t, e.string("url")
        if e.string("command") is not None:
            return Transport.STDIO, None
        if e.string("url") is not None:
            raise Skip('url without type: Claude Code skips it too; add "type": "http" or "sse"')
        raise Skip("neither command nor url")


def _put_local(found: list[Found], local: list[tuple[str, Entry]], match: str | None) -> None:
    """The local scope's entries put in ``found``: one replaces the user entry of its name in
    place (whole, never merged), the others follow."""
    index = {n: i for i, (n, _, _) in enumerate(found)}
    for n, e in local:
        notes = [f"local scope (projects[{match!r}]) of this file"]
        if n in index:
            notes.append("the local-scope entry replaces the user-scope entry of the same name")
            found[index[n]] = (n, e, notes)
        else:
            index[n] = len(found)
            found.append((n, e, notes))


def _projects(
    where: Where, data: dict[str, Any], project_dir: str | os.PathLike[str] | None, warnings: list[str]
) -> tuple[list[tuple[str, Entry]], str | None, list[str]]:
    """Local-scope entries of ``~/.claude.json`` for ``project_dir`` (default: the cwd)."""
    projects = _project_scopes(where, data)
    if projects is None:
        return [], None, []
    match = _project_of(projects, project_dir)
    _warn_other_scopes(projects, match, warnings)
    if match is None or not isinstance(projects[match], dict):
        return [], None, []
    return list(servers_map(where, data, ("projects", match, "mcpServers"))), match, _disabled(projects[match])


def _project_of(projects: dict[str, Any], project_dir: str | os.PathLike[str] | None) -> str | None:
    """The key of ``projects`` that names ``project_dir`` (default: the cwd), None for none."""
    here = os.getcwd() if project_dir is None else project_dir
    return next((k for k in projects if same_path(k, here)), None)


def _project_scopes(where: Where, data: dict[str, Any]) -> dict[str, Any] | None:
    """``~/.claude.json``'s ``projects`` (None: it has none); anything but an object is refused."""
    projects = data.get("projects")
    if projects is not None and not isinstance(projects, dict):
        raise where.error(
            f"`projects` must be an object, not {json_type(projects)}",
            ("projects",),
            hint="this file is written by Claude Code; restore it or pass the project's .mcp.json",
        )
    return projects


def _warn_other_scopes(projects: dict[str, Any], match: str | None, warnings: list[str]) -> None:
    """A warning when other projects' scopes define servers (not imported: they apply elsewhere)."""
    others = [k for k, v in projects.items() if k != match and _has_servers(v)]
    if others:
        warnings.append(
            f"{len(others)} other project scope(s) in this file not imported: "
            "their servers apply only in those directories"
        )


def _has_servers(project: object) -> bool:
    """Whether a project scope of ``~/.claude.json`` defines any server."""
    return isinstance(project, dict) and isinstance(project.get("mcpServers"), dict) and bool(project["mcpServers"])


def _disabled(project: dict[str, Any]) -> list[str]:
    """The servers a project scope disables (``disabledMcpServers``)."""
    disabled = project.get("disabledMcpServers")
    return [d for d in disabled if isinstance(d, str)] if isinstance(disabled, list) else []
