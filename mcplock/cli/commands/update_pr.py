"""`mcplock update-pr`: a pull request per outdated server (docs/updates.md). The decisions,
git and GitHub are :mod:`mcplock.core.update_pr`; this module probes (through `update`'s
:func:`~mcplock.cli.commands.update.move_pins`), renders the bodies and prints."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING

import typer
from rich.text import Text

from mcplock.cli import context
from mcplock.cli.options import ProbeArgs, probing
from mcplock.cli.progress import report_failure
from mcplock.errors import McplockError
from mcplock.untrusted import safe_text

if TYPE_CHECKING:
    from mcplock.compare import ServerDiff
    from mcplock.core.update import Row
    from mcplock.core.update_pr import Move, Moved, Outcome, Render


@contextlib.contextmanager
def _lockfile(cli: context.Cli, path: str) -> Iterator[None]:
    """Work on the lock at ``path`` (the worktree's) for a while."""
    old = cli.lockfile
    cli.lockfile = path
    try:
        yield
    finally:
        cli.lockfile = old


def _line(o: Outcome) -> Text:
    names = ", ".join(o.servers)
    what = ", ".join(f"{m['package']} {m['from'] or 'unpinned'} → {m['to']}" for m in o.moves)
    pr = f"#{o.pr.number} {o.pr.url}" if o.pr is not None else ""
    words = {
        "opened": (f"opened {pr} from {o.branch}: {what}", "green"),
        "updated": (f"updated {pr} (pushed {o.branch} anew): {what}", "green"),
        "unchanged": (f"{pr or o.branch} {o.note} (nothing to do)", ""),
        "declined": (o.note, "yellow"),
        "kept": (f"{pr}: {o.note}", "yellow"),
        "would-open": (f"would open a pull request from {o.branch}: {o.title}", "yellow"),
        "would-update": (f"would update {pr} (push {o.branch} anew): {o.title}", "yellow"),
        "failed": (o.note, "red"),
    }
    text, style = words.get(o.action, (o.action, ""))
    return (
        Text()
        .append_text(safe_text(names, keep_newlines=False))
        .append(": ")
        .append_text(safe_text(text, style, keep_newlines=False))
    )


@probing()
def cmd_update_pr(
    ctx: typer.Context,
    servers: list[str] | None = typer.Option(
        None, "--server", metavar="NAME", help="Only this server (repeat for more)."
    ),
    group: bool = typer.Option(False, "--group", help="One pull request (branch mcplock/update-all) for all."),
    dry_run: bool = typer.Option(
        False,
        "--dry-run",
        help="Print the pull requests it would open or update; push and open nothing. "
        "Exit 1 when there is one, 0 when there is nothing to do.",
    ),
    fmt: str = typer.Option("text", "--format", help="text or json."),
    *,
    probe: ProbeArgs,
) -> int:
    """For each server whose package pin is behind its registry: a branch mcplock/update-SERVER
    with the moved pin and the refreshed lock (changes pending review), pushed to origin, and a
    pull request against the default branch (GITHUB_API_URL, GITHUB_REPOSITORY, GITHUB_TOKEN).
    Never a second one for a branch: an open one is updated when the upstream moved again. Exit 0
    when done (nothing outdated included), 2 for a checkout or token that cannot work, 3 when a
    registry, a server, origin or GitHub failed."""
    from mcplock.cli.trust import guarded
    from mcplock.core import trust as core_trust
    from mcplock.core import update_pr as core
    from mcplock.core.github import GitHub

    cli = context.of(ctx)
    cli.report_format("update-pr", fmt, ("text", "json"))
    gh = GitHub.from_env(need_token=not dry_run, origin_url=_origin_url(cli.lock_dir))
    outcomes: list[core.Outcome] = []
    failure: McplockError | None = None
    prep: core.Prepared | None = None
    try:
        prep = core.prepare(cli.lockfile, list(servers or []), gh)
        if prep.repo.branch != prep.base:
            cli.info(
                f"working from origin's {prep.base} (the default branch), not from {prep.repo.branch}, "
                "which stays as it is"
            )
        if fmt == "text":
            for name, err in prep.errors.items():
                report_failure(cli, name, err)
        plan = core.targets(prep, group)
        if not plan:
            if fmt == "text":
                cli.say(
                    "nothing outdated: no pull request to open"
                    if not prep.errors
                    else "no pin could be checked against its registry: no pull request opened"
                )
        else:
            behind = {r.server for r in prep.behind}
            to_move = [s for s in prep.selected if s.name in behind]
            # what moves runs (its newest release is probed, as `update` does): servers trusted in this
            # project as locked on the default branch, or in CI
            guarded(
                cli,
                lambda: core_trust.gate(
                    [s.as_launched(cli.lock_dir) for s in to_move],
                    cli.lock_dir,
                    how=core_trust.trust_command(cli.lockfile),
                    reviewed=core_trust.reviewed(to_move, cli.lock_dir),
                ),
            )
            for branch, rows in plan:
                o = core.open_one(
                    prep, branch, rows, gh, move=_mover(cli, probe), render=_render(prep.lock_path), dry_run=dry_run
                )
                outcomes.append(o)
                if fmt == "text":
                    cli.say(_line(o))
                    if o.error is not None:
                        report_failure(cli, ", ".join(o.servers), o.error)
                    if o.action.startswith("would-"):
                        cli.say(Text(f"--- body of {o.branch} ---", style="dim"))
                        cli.say(safe_text(o.body))
    except McplockError as e:
        failure = e
    finally:
        if gh is not None:
            gh.close()
    errors = dict(prep.errors) if prep is not None else {}
    failed = [o for o in outcomes if o.action == "failed"]
    if failure is not None:
        code = failure.exit_code
    elif errors or failed:
        code = 3
    elif dry_run:
        code = 1 if any(o.action.startswith("would-") for o in outcomes) else 0
    else:
        code = 0
    if fmt == "json":
        doc = {
            "version": 1,
            "command": "update-pr",
            "lockfile": cli.lockfile,
            "exit_code": code,
            "dry_run": dry_run,
            "base": prep.base if prep is not None else None,
            "pull_requests": [{**o.as_json(), **({"body": o.body} if dry_run and o.body else {})} for o in outcomes],
            "errors": {n: e.as_json() for n, e in errors.items()},
            "error": failure.as_json() if failure is not None else None,
        }
        cli.write_json(doc)
    elif failure is not None:
        cli.print_error(failure)
    return code


def _origin_url(where: str) -> str | None:
    """origin's URL, if ``where`` is in a git checkout that has one (the repository's name on
    github.com when GITHUB_REPOSITORY is not set)."""
    import subprocess

    try:
        r = subprocess.run(
            ["git", "remote", "get-url", "origin"],
            cwd=where,
            capture_output=True,
            text=True,
            timeout=30,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return r.stdout.strip() if r.returncode == 0 else None


def _mover(cli: context.Cli, probe: ProbeArgs) -> Move:
    def move(lockfile: str, rows: list[Row]) -> Moved:
        from mcplock.cli.commands.update import move_pins
        from mcplock.core.diff import diff_servers
        from mcplock.core.update_pr import Moved
        from mcplock.lock.read import load
        from mcplock.lock.targets import select
        from mcplock.render.update import moves_of

        names = [r.server for r in rows]
        with _lockfile(cli, lockfile):
            selected = select(load(lockfile), names)
            _, summary, failed, results, _ = move_pins(cli, selected, rows, probe, again=set())
            staged = dict(summary)
            moves = [m for m in moves_of(rows, staged, failed) if m["status"] == "moved"]
            diffs: list[ServerDiff] = []
            if staged:
                lock = load(lockfile)
                diffs, _ = diff_servers(lock, select(lock, [n for n in names if n in staged]), results)
        return Moved(moves, failed, diffs)

    return move


def _render(lock_path: str) -> Render:
    def render(branch: str, moved: Moved) -> tuple[str, str, str]:
        from mcplock.core.gitrepo import TRAILER
        from mcplock.render import update_pr as r

        return (
            r.title(moved.moves),
            r.body(moved.moves, moved.diffs, branch=branch, lockfile=lock_path, links=moved.links, failed=moved.failed),
            r.commit_message(moved.moves, TRAILER),
        )

    return render


def register(app: typer.Typer) -> None:
    app.command("update-pr")(cmd_update_pr)
