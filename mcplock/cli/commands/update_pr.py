"""`mcplock update-pr`: a pull request per outdated server (docs/updates.md). The decisions,
git and GitHub are :mod:`mcplock.core.update_pr`; this module runs them and prints. The probing
happens in a child process that never holds the API token (:mod:`.update_pr_build`); this one,
sealed from its descendants, pushes and opens the pull requests once they are gone."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import typer

from mcplock.cli import context
from mcplock.cli.commands.update_pr_run import Done, How, build_in_child, each, record
from mcplock.cli.options import ALLOW_CODE_ENV, MIN_AGE, ORG_POLICY, ProbeArgs, probing
from mcplock.cli.progress import report_failure
from mcplock.errors import McplockError

if TYPE_CHECKING:
    from mcplock.core.github import GitHub
    from mcplock.core.update_pr import Pending, Prepared


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
    drift: bool = typer.Option(
        False,
        "--drift",
        help="Also one pull request (branch mcplock/drift-SERVER) per server with no version to move "
        "(remote, or a launch that names none) whose surface changed: the refreshed lock, pending review.",
    ),
    push_only: bool = typer.Option(
        False,
        "--push-only",
        help="Push the branches to origin and open no pull request (no GitHub settings needed): "
        "try update-pr against a local bare repository.",
    ),
    renovate: bool = typer.Option(
        False,
        "--renovate",
        help="On Renovate's pull request (the hosted app runs no commands): re-pin, probe and stage what "
        "its commit moved in the lock (mcplock update NAME --min-age 0, screened), push that to its "
        "branch and comment the report. Exit 1 when screening refuses the release it proposes.",
    ),
    pull_request: int | None = typer.Option(
        None, "--pull-request", metavar="N", help="With --renovate: this pull request (default: the event's)."
    ),
    branch_prefix: str = typer.Option(
        "renovate/", "--branch-prefix", help="With --renovate: only a pull request whose branch starts so."
    ),
    fmt: str = typer.Option("text", "--format", help="text or json."),
    policy: str | None = ORG_POLICY,
    allow_code_env: list[str] | None = ALLOW_CODE_ENV,
    min_age: float | None = MIN_AGE,
    *,
    probe: ProbeArgs,
) -> int:
    """For each server whose package pin is behind its registry: a branch mcplock/update-SERVER
    with the moved pin and the refreshed lock (changes pending review), pushed to origin, and a
    pull request against the default branch (GITHUB_API_URL, GITHUB_REPOSITORY, GITHUB_TOKEN).
    Never a second one for a branch: an open one is updated when the upstream moved again. Exit 0
    when done (nothing outdated included), 2 for a checkout or token that cannot work, 3 when a
    registry, a server, origin or GitHub failed."""
    from mcplock.cli.commands.update_pr_run import PLAN_VARIABLE
    from mcplock.core.github import GitHub
    from mcplock.core.update_pr_deliver import known_secrets, scrub_error
    from mcplock.model import sealed

    cli = context.of(ctx)
    if os.environ.get(PLAN_VARIABLE):  # the building process update-pr started (below), never a person
        from mcplock.cli.commands.update_pr_build import build_from_plan

        return build_from_plan(cli, os.environ[PLAN_VARIABLE], probe)
    cli.report_format("update-pr", fmt, ("text", "json"))
    if renovate:
        _renovate_alone(servers, group, drift, push_only)
    sealed.seal()  # this process holds the token: nothing it starts may read it
    sealed.adopt_orphans()  # what a probed server leaves behind is killed before the push
    need_token = renovate or not dry_run  # --renovate reads the pull request, even for a dry run
    gh = None if push_only else GitHub.from_env(need_token=need_token, origin_url=_origin_url(cli.lock_dir))
    done = Done(secrets=known_secrets(os.environ, None, gh.secrets if gh is not None else ()))
    how = How(list(servers or []), group, dry_run, fmt == "text", policy, tuple(allow_code_env or ()), min_age, drift)
    try:
        if renovate and gh is not None:
            from mcplock.cli.commands.update_pr_renovate import renovate as refresh_renovate

            refresh_renovate(cli, gh, done, how, pull_request, branch_prefix)
        else:
            _update_all(cli, gh, done, how)
    except McplockError as e:
        done.failure = scrub_error(e, done.secrets)
    finally:
        if gh is not None:
            gh.close()
    code = done.exit_code(dry_run)
    if fmt == "json":
        cli.write_json(_report_json(cli, done, code, dry_run))
    elif done.failure is not None and not any(o.error is done.failure for o in done.outcomes):
        cli.print_error(done.failure)
    return code


def _renovate_alone(servers: list[str] | None, group: bool, drift: bool, push_only: bool) -> None:
    """--renovate works on the pull request's own servers, through GitHub: no other choice goes with it."""
    from mcplock.errors import UsageError

    other = [
        o for o, on in (("--server", servers), ("--group", group), ("--drift", drift), ("--push-only", push_only)) if on
    ]
    if other:
        raise UsageError(
            f"--renovate does not go with {', '.join(other)}: it refreshes the servers Renovate's commit moved, "
            "and comments through GitHub's API",
            hint="run `mcplock update-pr --renovate` alone on Renovate's pull request",
        )


def _update_all(cli: context.Cli, gh: GitHub | None, done: Done, how: How) -> None:
    """Check the pins, decide per branch, build the branches in a process without the token, then
    push and open or update each pull request, each said as it is done (``how.text``); what it got
    to is recorded in ``done``. One branch's failure is its own: the others go on (a token or rights
    GitHub refused stops the run, as every later call would fail alike)."""
    from mcplock.core import update_pr as core
    from mcplock.core.update_policy import min_age
    from mcplock.core.update_pr_deliver import known_secrets
    from mcplock.trust import org_policy

    days = min_age(org_policy.resolve(how.policy), how.min_age)
    done.prep = prep = core.prepare(cli.lockfile, how.servers, gh, policy=how.policy, min_age=days)
    done.secrets = known_secrets(os.environ, prep.lock, gh.secrets if gh is not None else ())
    _say_prepared(cli, prep, how.text)
    plan = core.targets(prep, how.group)
    if not plan and how.text and not how.drift:
        cli.say(_nothing_to_open(prep))
    if plan:
        _pins(cli, gh, done, how, prep, plan)
    if how.drift:
        from mcplock.cli.commands.update_pr_drift import drift_all

        drift_all(cli, gh, done, how, prep)


def _pins(cli: context.Cli, gh: GitHub | None, done: Done, how: How, prep: Prepared, plan: list) -> None:  # type: ignore[type-arg]
    """A branch per server behind (or one for all): decided, built, pushed and proposed."""
    from mcplock.cli.commands.update import gate_moves
    from mcplock.core import update_pr as core

    behind = {r.server for r in prep.behind}
    gate_moves(cli, [s for s in prep.selected if s.name in behind], how.allow_code_env, command="update-pr")
    pending: list[Pending] = []
    for branch, rows in plan:
        decided = each(
            cli, done, how, branch, [r.server for r in rows], lambda b=branch, rs=rows: core.decide(prep, b, rs, gh)
        )
        if isinstance(decided, core.Pending):
            pending.append(decided)
        elif decided is not None:
            record(cli, done, how, decided)
    if pending:
        _deliver_all(cli, gh, done, how, prep, pending)


def _deliver_all(
    cli: context.Cli, gh: GitHub | None, done: Done, how: How, prep: Prepared, pending: list[Pending]
) -> None:
    """Build the pending branches in the child process, end whatever it left running, then push
    and propose each."""
    from mcplock.core.update_pr_deliver import deliver
    from mcplock.model import sealed

    built = build_in_child(cli, gh, done, prep, pending, how.dry_run)
    sealed.reap_leftovers()  # nothing the probe started is alive when the token is used
    for p in pending:
        b = built[p.branch]
        o = each(
            cli,
            done,
            how,
            p.branch,
            [r.server for r in p.rows],
            lambda p=p, b=b: deliver(prep, p, b, gh, dry_run=how.dry_run, secrets=done.secrets),
        )
        if o is not None:
            record(cli, done, how, o)


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
        from mcplock.cli.commands.update import say_screening

        for name, err in prep.errors.items():
            report_failure(cli, name, err)
        say_screening(cli, prep.rows)


def _report_json(cli: context.Cli, done: Done, code: int, dry_run: bool) -> dict[str, object]:
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


def register(app: typer.Typer) -> None:
    app.command("update-pr")(cmd_update_pr)
