"""`mcplock update-pr`, step 2 (:mod:`mcplock.core.update_pr`): build each branch in a temporary
worktree at the default branch — move the pins, render the proposal, commit — in the process that
probes the unreviewed releases, which never holds the API token and pushes nothing. What it
built crosses back to the process that pushes as JSON (:class:`Built`).

The probing and the body are the caller's (``move`` and ``render`` callbacks).
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from mcplock.core import gitrepo
from mcplock.core.update import Row
from mcplock.errors import McplockError, ProbeError


@dataclass
class Moved:
    """What ``move`` did in the worktree: the pins that moved (the update report's rows), the
    servers it could not update, and the body's material."""

    moves: list[dict[str, Any]]
    failed: dict[str, ProbeError]
    diffs: list[Any] = field(default_factory=list)
    links: dict[str, str] = field(default_factory=dict)  # server → the release's page
    screens: dict[str, dict[str, Any]] = field(default_factory=dict)  # server → what screening found
    lock_text: str = ""  # the lock as moved (a drift commit's trailer names its digest)


Move = Callable[[str, list[Row]], Moved]
Render = Callable[[str, Moved], tuple[str, str, str]]  # (title, body, commit message)


@dataclass
class Plan:
    """What the building process is asked to build (written by the pushing process)."""

    base: str
    base_sha: str
    lock_path: str
    branches: list[tuple[str, list[str]]]  # (branch, its servers)
    dry_run: bool
    min_age: float = 7.0  # the minimum release age in days (screening, as the pushing process read it)
    drift: bool = False  # the branches propose drift without a version (refreshed, not moved)
    # --renovate: server → [version at the base, version the branch names]; base_sha is the branch's head
    versions: dict[str, list[str | None]] = field(default_factory=dict)

    def dump(self, path: str) -> None:
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(asdict(self), fh)

    @classmethod
    def read(cls, path: str) -> Plan:
        with open(path, encoding="utf-8") as fh:
            doc = json.load(fh)
        doc["branches"] = [(b, list(s)) for b, s in doc["branches"]]
        return cls(**doc)


@dataclass
class Built:
    """One branch as built: its moves, title, body and commit (None: nothing committed — a dry
    run, or nothing moved: ``error`` and ``note`` say why)."""

    branch: str
    moves: list[dict[str, Any]] = field(default_factory=list)
    title: str = ""
    body: str = ""
    commit: str | None = None
    note: str = ""
    error: dict[str, Any] | None = None  # {"code", "message", "hint", "exit_code"}

    def failure(self) -> McplockError | None:
        return error_of(self.error)


def error_json(e: McplockError) -> dict[str, Any]:
    return {"code": e.code, "message": e.message, "hint": e.hint, "exit_code": e.exit_code}


def error_of(doc: dict[str, Any] | None) -> McplockError | None:
    """The error a child described (its code, message, hint and exit code kept)."""
    if doc is None:
        return None
    e = ProbeError(str(doc.get("code") or "error"), str(doc.get("message") or ""), hint=doc.get("hint"))
    e.exit_code = int(doc.get("exit_code") or 3)
    return e


def build(repo: gitrepo.Repo, plan: Plan, branch: str, rows: list[Row], *, move: Move, render: Render) -> Built:
    """In a worktree at the default branch: move the pins, render the proposal and, unless a dry
    run, commit it (never pushed here)."""
    out = Built(branch)
    with gitrepo.worktree(repo, plan.base_sha) as tree:
        mine = [copy.copy(r) for r in rows]  # `move` records the new pins on its rows
        path = os.path.join(tree, *plan.lock_path.split("/"))
        moved = move(path, mine)
        with open(path, encoding="utf-8") as fh:
            moved.lock_text = fh.read()
        from mcplock.core.release_links import release_links

        moved.links = release_links(mine)
        moved.screens = {r.server: r.screen.as_json() for r in mine if r.screen is not None}
        out.moves = moved.moves
        if not moved.moves and plan.drift and not moved.failed:
            out.note = "no drift"
            return out
        if not moved.moves:
            first = next(iter(moved.failed.values()), None)
            out.error = error_json(first or ProbeError("update", "no pin moved"))
            out.note = "not updated: " + (first.message if first else "no pin moved")
            return out
        out.title, out.body, text = render(branch, moved)
        if plan.dry_run:
            return out
        sha = gitrepo.commit(repo, tree, [plan.lock_path], text)
        if sha is None:
            out.error = error_json(ProbeError("update", "the update changed nothing in the lock"))
            out.note = "the update changed nothing in the lock"
            return out
        out.commit = sha
    return out


def write_results(path: str, built: list[Built], failure: McplockError | None) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(
            {"built": [asdict(b) for b in built], "failure": None if failure is None else error_json(failure)}, fh
        )


def read_results(path: str) -> tuple[list[Built], McplockError | None]:
    try:
        with open(path, encoding="utf-8") as fh:
            doc = json.load(fh)
    except (OSError, ValueError):
        return [], None
    return [Built(**b) for b in doc.get("built") or []], error_of(doc.get("failure"))
