"""`mcplock update-pr`, the building process (docs/updates.md, "What a probed release can reach"):
started by `update-pr` itself with ``MCPLOCK_UPDATE_PR_PLAN=DIR`` and an environment without the API token,
it builds each branch of the plan (:mod:`mcplock.core.update_pr_build`) — probing the unreviewed
releases — and writes what it built to ``DIR/built.json``. It pushes nothing and opens nothing."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import TYPE_CHECKING

from mcplock.cli import context
from mcplock.cli.commands.update_pr_run import BUILT, PLAN
from mcplock.cli.options import ProbeArgs
from mcplock.errors import McplockError

if TYPE_CHECKING:
    from mcplock.core.update import Row
    from mcplock.core.update_pr_build import Move, Moved, Plan, Render
    from mcplock.lint.compare import ServerDiff


@contextlib.contextmanager
def _lockfile(cli: context.Cli, path: str) -> Iterator[None]:
    """Work on the lock at ``path`` (the worktree's) for a while."""
    old = cli.lockfile
    cli.lockfile = path
    try:
        yield
    finally:
        cli.lockfile = old


def build_from_plan(cli: context.Cli, where: str, probe: ProbeArgs) -> int:
    """Build every branch of the plan in ``where``; each branch's failure is its own, the others go on."""
    from mcplock.core import gitrepo
    from mcplock.core import update_pr_build as core
    from mcplock.lock.read import loads
    from mcplock.lock.targets import select

    plan = core.Plan.read(os.path.join(where, PLAN))
    built: list[core.Built] = []
    failure: McplockError | None = None
    try:
        repo = gitrepo.open_repo(cli.lock_dir, detached=bool(plan.versions))
        lock = loads(gitrepo.show(repo, plan.base_sha, plan.lock_path) or "", plan.lock_path)
        names = list(dict.fromkeys(s for _, servers in plan.branches for s in servers))
        rows = _rows(plan, select(lock, names))
        for branch, servers in plan.branches:
            try:
                built.append(
                    core.build(
                        repo,
                        plan,
                        branch,
                        [rows[s] for s in servers],
                        move=_mover(cli, probe, plan),
                        render=_render(plan),
                    )
                )
            except McplockError as e:
                built.append(core.Built(branch, note="not updated: " + e.message, error=core.error_json(e)))
    except McplockError as e:
        failure = e
    core.write_results(os.path.join(where, BUILT), built, failure)
    return 0 if failure is None else failure.exit_code


def _rows(plan: Plan, selected: list) -> dict[str, Row]:  # type: ignore[type-arg]
    """Each server's row: its pin against its registry (asked again), screened again; a drift
    plan's: the server as it is (refreshed, not moved)."""
    from mcplock.core.screening import screen_rows
    from mcplock.core.update import Row, outdated

    if plan.drift:
        return {s.name: Row(s.name, status="drift") for s in selected}
    if plan.versions:  # --renovate: from the base's version to the one Renovate wrote
        from mcplock.core.update_pr_renovate import rows_of

        rows = rows_of(selected, plan.versions)
        screen_rows(rows, plan.min_age)
        return {r.server: r for r in rows}

    rows = outdated(selected)
    screen_rows(rows, plan.min_age)
    return {r.server: r for r in rows}


def _mover(cli: context.Cli, probe: ProbeArgs, plan: Plan) -> Move:
    def move(lockfile: str, rows: list[Row]) -> Moved:
        from mcplock.core.diff import diff_servers
        from mcplock.core.update_pr_build import Moved
        from mcplock.lock.read import load
        from mcplock.lock.targets import select

        names = [r.server for r in rows]
        with _lockfile(cli, lockfile):
            if plan.drift:
                from mcplock.cli.commands.update_pr_drift import refresh_drift

                moves, staged_names, failed, results = refresh_drift(cli, names, probe)
            else:
                moves, staged_names, failed, results = _move_pins(cli, lockfile, rows, probe)
            diffs: list[ServerDiff] = []
            if staged_names:
                lock = load(lockfile)
                diffs, _ = diff_servers(lock, select(lock, [n for n in names if n in staged_names]), results)
        return Moved(moves, failed, diffs)

    return move


def _move_pins(cli: context.Cli, lockfile: str, rows: list[Row], probe: ProbeArgs) -> tuple:  # type: ignore[type-arg]
    """`update`'s move of the pins of ``rows`` in ``lockfile``: (moves, staged servers, failures, results)."""
    from mcplock.cli.commands.update import move_pins
    from mcplock.lock.read import load
    from mcplock.lock.targets import select
    from mcplock.render.update import moves_of

    selected = select(load(lockfile), [r.server for r in rows])
    _, summary, failed, results, _ = move_pins(cli, selected, rows, probe, again=set())
    staged = dict(summary)
    moves = [m for m in moves_of(rows, staged, failed) if m["status"] == "moved"]
    return moves, set(staged), failed, results


def _render(plan: Plan) -> Render:
    def render(branch: str, moved: Moved) -> tuple[str, str, str]:
        from mcplock.core.gitrepo import TRAILER

        if plan.drift:
            from mcplock.cli.commands.update_pr_drift import render_drift

            return render_drift(branch, moved, plan.lock_path, moved.lock_text)
        from mcplock.render import update_pr as r
        from mcplock.render.screening import markdown

        return (
            r.title(moved.moves),
            r.body(
                moved.moves,
                moved.diffs,
                branch=branch,
                lockfile=plan.lock_path,
                links=moved.links,
                failed=moved.failed,
                screened=markdown(moved.screens, plan.min_age),
            ),
            r.commit_message(moved.moves, TRAILER),
        )

    return render
