"""`mcplock update-pr`: a pull request per outdated server (docs/updates.md). The decisions,
git and GitHub are :mod:`mcplock.core.update_pr`; this module probes (through `update`'s
:func:`~mcplock.cli.commands.update.move_pins`), renders the bodies and prints."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import typer
from rich.text import Text

from mcplock.cli import context
from mcplock.cli.options import ProbeArgs, probing
from mcplock.cli.progress import report_failure
from mcplock.errors import McplockError
from mcplock.text.untrusted import safe_text

if TYPE_CHECKING:
    from mcplock.core.github import GitHub
    from mcplock.core.update import Row
    from mcplock.core.update_pr import Move, Moved, Outcome, Prepared, Render
    from mcplock.errors import ProbeError
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
    from mcplock.core.github import GitHub

    cli = context.of(ctx)
    cli.report_format("update-pr", fmt, ("text", "json"))
    gh = GitHub.from_env(need_token=not dry_run, origin_url=_origin_url(cli.lock_dir))
    done = _Done()
    try:
        _update_all(cli, gh, done, list(servers or []), group=group, dry_run=dry_run, text=fmt == "text", probe=probe)
    except McplockError as e:
        done.failure = e
    finally:
        if gh is not None:
            gh.close()
    code = done.exit_code(dry_run)
    if fmt == "json":
        cli.write_json(_report_json(cli, done, code, dry_run))
    elif done.failure is not None:
        cli.print_error(done.failure)
    return code


@dataclass
class _Done:
    """What the run got to (it may stop at an error): the servers selected and checked, the
    pull requests dealt with, the error that stopped it."""

    prep: Prepared | None = None
    outcomes: list[Outcome] = field(default_factory=list)
    failure: McplockError | None = None

    @property
    def errors(self) -> dict[str, ProbeError]:
        """The servers whose pin could not be checked against its registry."""
        return dict(self.prep.errors) if self.prep is not None else {}

    def exit_code(self, dry_run: bool) -> int:
        """The error's own code; 3 when a registry or a pull request failed; with --dry-run, 1
        when there is a pull request to open or update; else 0."""
        if self.failure is not None:
            return self.failure.exit_code
        if self.errors or any(o.action == "failed" for o in self.outcomes):
            return 3
        if dry_run and any(o.action.startswith("would-") for o in self.outcomes):
            return 1
        return 0


def _update_all(
    cli: context.Cli,
    gh: GitHub | None,
    done: _Done,
    servers: list[str],
    *,
    group: bool,
    dry_run: bool,
    text: bool,
    probe: ProbeArgs,
) -> None:
    """Check the pins, then open or update a pull request per branch of the plan, each said as
    it is done (``text``); what it got to is recorded in ``done``."""
    from mcplock.cli.commands.update import gate_moves
    from mcplock.core import update_pr as core

    done.prep = prep = core.prepare(cli.lockfile, servers, gh)
    _say_prepared(cli, prep, text)
    plan = core.targets(prep, group)
    if not plan:
        if text:
            cli.say(_nothing_to_open(prep))
        return
    behind = {r.server for r in prep.behind}
    gate_moves(cli, [s for s in prep.selected if s.name in behind])
    for branch, rows in plan:
        o = core.open_one(
            prep, branch, rows, gh, move=_mover(cli, probe), render=_render(prep.lock_path), dry_run=dry_run
        )
        done.outcomes.append(o)
        if text:
            _say_outcome(cli, o)


def _nothing_to_open(prep: Prepared) -> str:
    """Why no pull request was opened: nothing is behind, or no pin could be checked."""
    if prep.errors:
        return "no pin could be checked against its registry: no pull request opened"
    return "nothing outdated: no pull request to open"


def _say_prepared(cli: context.Cli, prep: Prepared, text: bool) -> None:
    """The branch the work starts from (when it is not the checkout's), and (``text``) each pin
    that could not be checked against its registry."""
    if prep.repo.branch != prep.base:
        cli.info(
            f"working from origin's {prep.base} (the default branch), not from {prep.repo.branch}, which stays as it is"
        )
    if text:
        for name, err in prep.errors.items():
            report_failure(cli, name, err)


def _say_outcome(cli: context.Cli, o: Outcome) -> None:
    """The pull request's line, its error, and with --dry-run the body it would have."""
    cli.say(_line(o))
    if o.error is not None:
        report_failure(cli, ", ".join(o.servers), o.error)
    if o.action.startswith("would-"):
        cli.say(Text(f"--- body of {o.branch} ---", style="dim"))
        cli.say(safe_text(o.body))


def _report_json(cli: context.Cli, done: _Done, code: int, dry_run: bool) -> dict[str, object]:
    return {
        "version": 1,
        "command": "update-pr",
        "lockfile": cli.lockfile,
        "exit_code": code,
        "dry_run": dry_run,
        "base": done.prep.base if done.prep is not None else None,
        "pull_requests": [{**o.as_json(), **({"body": o.body} if dry_run and o.body else {})} for o in done.outcomes],
        "errors": {n: e.as_json() for n, e in done.errors.items()},
        "error": done.failure.as_json() if done.failure is not None else None,
    }


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
