"""`mcplock update-pr --drift`: a pull request per server whose surface drifted without a version
to move (docs/updates.md, "Drift without a version"). The building process refreshes each such
server in its worktree (:func:`refresh_drift`); the process that holds the token then decides per
branch — the same proposal already pushed, a person's commit on it — and pushes
(:func:`drift_all`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mcplock.cli import context, progress
from mcplock.cli.options import ProbeArgs

if TYPE_CHECKING:
    from mcplock.cli.commands.update_pr_run import Done, How
    from mcplock.core.github import GitHub
    from mcplock.core.update_pr import Prepared
    from mcplock.core.update_pr_build import Moved


def refresh_drift(
    cli: context.Cli, names: list[str], probe: ProbeArgs
) -> tuple[list[dict[str, Any]], set[str], dict, Any]:  # type: ignore[type-arg]
    """In the building process: refresh ``names`` in ``cli.lockfile`` (probe, stage as pending);
    (moves, servers with something staged, failures, probe results). A move per drifted server:
    what it staged, and whether the change touches no word."""
    from mcplock.core import refresh as core_refresh
    from mcplock.lock.no_word import touches_no_word
    from mcplock.lock.read import load
    from mcplock.lock.targets import select

    selected = select(load(cli.lockfile), names)
    plan = core_refresh.plan(selected, cli.lock_dir)
    results = progress.probe(cli, plan.specs, probe.options(cli), login=probe.login) if plan.specs else {}
    summary, failed = core_refresh.apply(cli.lockfile, cli.lock_dir, selected, results, plan, None)
    staged = {n: res for n, res in summary if res.proposals}
    lock = load(cli.lockfile)
    moves = [
        {
            "server": n,
            "registry": None,
            "package": None,
            "from": None,
            "to": "drift",
            "status": "moved",
            "new": list(res.new),
            "changed": list(res.changed),
            "removed": list(res.removed),
            "no_word": touches_no_word(lock.servers[n]),
        }
        for n, res in staged.items()
    ]
    return moves, set(staged), failed, results


def render_drift(branch: str, moved: Moved, lock_path: str, lockfile_text: str) -> tuple[str, str, str]:
    """Title, body and commit message of a drift branch (one server)."""
    import hashlib

    from mcplock.core.gitrepo import TRAILER
    from mcplock.render import drift_pr

    move = moved.moves[0]
    diff = next((d for d in moved.diffs if d.name == move["server"]), None)
    digest = hashlib.sha256(lockfile_text.encode()).hexdigest()[:12]
    return (
        drift_pr.title(move["server"]),
        drift_pr.body(move["server"], move, diff, branch=branch, lockfile=lock_path),
        drift_pr.commit_message(move["server"], TRAILER, digest),
    )


def drift_all(cli: context.Cli, gh: GitHub | None, done: Done, how: How, prep: Prepared) -> None:
    """Refresh every selected server without a version to move, in the building process; then per
    drifted server: nothing when its branch proposes exactly this already, kept when a person
    committed on it, else pushed and its pull request opened or updated."""
    from mcplock.cli.commands.update import gate_moves
    from mcplock.cli.commands.update_pr_run import build_in_child, each, record
    from mcplock.core import update_pr as core
    from mcplock.core.update import Row
    from mcplock.core.update_pr_deliver import deliver
    from mcplock.model import sealed

    names = [r.server for r in prep.rows if r.status == "local"]
    if not names:
        return
    gate_moves(cli, [s for s in prep.selected if s.name in names], how.allow_code_env, command="update-pr")
    taken: set[str] = set()
    pending = [
        core.Pending(core.branch_for(n, taken, core.DRIFT_PREFIX), [Row(n, status="drift")], [], None) for n in names
    ]
    built = build_in_child(cli, gh, done, prep, pending, how.dry_run, drift=True)
    sealed.reap_leftovers()
    for p in pending:
        b = built[p.branch]
        if b.commit is None and b.error is None and not (how.dry_run and b.moves):
            continue  # no drift: nothing to propose
        decided = each(cli, done, how, p.branch, [p.rows[0].server], lambda p=p, b=b: core.decide_built(prep, p, b, gh))
        if isinstance(decided, core.Pending):
            o = each(
                cli,
                done,
                how,
                p.branch,
                [p.rows[0].server],
                lambda d=decided, b=b: deliver(prep, d, b, gh, dry_run=how.dry_run, secrets=done.secrets),
            )
            if o is not None:
                record(cli, done, how, o)
        elif decided is not None:
            record(cli, done, how, decided)
