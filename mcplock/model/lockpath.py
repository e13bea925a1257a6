"""Which lock a command uses when none is named (no ``--lockfile``, no ``$MCPLOCK_LOCKFILE``):
``./mcp.lock``, else the nearest ``mcp.lock`` above the current directory, up to the root of
the git repository it is in — as git finds ``.git``, uv ``pyproject.toml`` and pnpm its
workspace (issue 42.3). Outside a repository only ``./mcp.lock`` counts: a lock above a
project's own root belongs to someone else. No I/O beyond ``lexists``; a leaf."""

from __future__ import annotations

import os

LOCK_NAME = "mcp.lock"


def find_lock(cwd: str | None = None) -> str:
    """The lock's path, relative to ``cwd`` (``mcp.lock`` when it is there, or when none is
    found above: a command that creates one creates it here)."""
    here = os.path.abspath(cwd or os.getcwd())
    if os.path.lexists(os.path.join(here, LOCK_NAME)) or os.path.lexists(os.path.join(here, ".git")):
        return LOCK_NAME
    nearest: str | None = None
    d = here
    while (parent := os.path.dirname(d)) != d:
        d = parent
        if nearest is None and os.path.lexists(os.path.join(d, LOCK_NAME)):
            nearest = os.path.join(d, LOCK_NAME)
        if os.path.lexists(os.path.join(d, ".git")):  # the repository's root: no further
            return os.path.relpath(nearest, here) if nearest else LOCK_NAME
    return LOCK_NAME  # not in a repository: only the current directory


def found_above(path: str) -> bool:
    """Whether :func:`find_lock` went up to find ``path`` (say so: the file is not here)."""
    return path != LOCK_NAME and os.path.basename(path) == LOCK_NAME and path.startswith("..")
