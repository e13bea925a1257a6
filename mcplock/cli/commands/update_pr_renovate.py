"""`mcplock update-pr --renovate` (docs/updates.md, "Renovate"): on the pull request Renovate
opened, re-pin, probe and stage what its commit moved in the lock, push that to its branch and
comment the report. The decisions and git are :mod:`mcplock.core.update_pr_renovate`; the probe
runs in update-pr's building process, which never holds the token (:func:`.update_pr_run.build_in_child`)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from mcplock.cli import context
from mcplock.cli.commands.update_pr_run import Done, How, build_in_child, each, record

if TYPE_CHECKING:
    from mcplock.core.github import GitHub
    from mcplock.core.github_pr import PullHead
    from mcplock.core.update import Row


def renovate(cli: context.Cli, gh: GitHub, done: Done, how: How, number: int | None, prefix: str) -> None:
    """Refresh pull request ``number`` (the event's when None) when its branch is Renovate's."""
    from mcplock.core import github_pr
    from mcplock.core import update_pr_renovate as core
    from mcplock.core.update_pr_deliver import known_secrets
    from mcplock.errors import UsageError

    number = number if number is not None else github_pr.event_pull_request()
    if number is None:
        raise UsageError(
            "--renovate works on a pull request, and this is not a pull request's event (GITHUB_EVENT_PATH)",
            hint="run it on the `pull_request` event, or pass --pull-request NUMBER",
        )
    pr = github_pr.pull_request(gh, number)
    why = _not_ours(pr, gh, prefix)
    if why is not None:
        cli.say(why)
        return
    got = core.prepare(cli.lockfile, gh, pr, policy=how.policy)
    if isinstance(got, str):
        cli.say(f"#{pr.number} {got}")
        return
    done.prep, pending = got
    done.secrets = known_secrets(os.environ, done.prep.lock, gh.secrets)
    _refresh(cli, gh, done, how, pr, pending)


def _not_ours(pr: PullHead, gh: GitHub, prefix: str) -> str | None:
    """Why the pull request is left alone: closed, not on a Renovate branch, or from a fork."""
    if pr.state != "open":
        return f"#{pr.number} is {pr.state}: nothing to do"
    if not pr.head.startswith(prefix):
        return f"#{pr.number}'s branch `{pr.head}` is not Renovate's (`{prefix}…`): nothing to do"
    if pr.head_repo != gh.repository:
        return f"#{pr.number} comes from a fork ({pr.head_repo}): mcplock cannot push to it, nothing done"
    return None


def _refresh(cli: context.Cli, gh: GitHub, done: Done, how: How, pr: PullHead, pending: Any) -> None:
    """Build the moved pins in the building process, push them, comment the report."""
    from mcplock.cli.commands.update import gate_moves
    from mcplock.core import github_pr, gitrepo
    from mcplock.core import update_pr_renovate as core
    from mcplock.core.github import PullRequest
    from mcplock.core.update_pr import Outcome
    from mcplock.core.update_pr_deliver import scrub, scrub_error
    from mcplock.model import sealed

    prep = done.prep
    assert prep is not None
    refused = [r for r in prep.rows if r.status == "refused"]
    built = None
    if pending.rows:
        names = {r.server for r in pending.rows}
        gate_moves(cli, [s for s in prep.selected if s.name in names], how.allow_code_env, command="update-pr")
        built = build_in_child(cli, gh, done, prep, [pending], how.dry_run)[pending.branch]
        sealed.reap_leftovers()  # nothing the probe started is alive when the token is used
    body = scrub(comment_body(pr, built, refused, prep.min_age), done.secrets)
    servers = [r.server for r in prep.rows]
    out = Outcome(pr.head, servers, "failed", body=body, title=f"#{pr.number}")
    if built is not None:
        out.moves, out.note = built.moves, scrub(built.note, done.secrets)
        failure = built.failure()
        out.error = None if failure is None else scrub_error(failure, done.secrets)
    if how.dry_run:
        out.action = "would-refresh"
        record(cli, done, how, out)
        return

    def deliver() -> Outcome:
        if built is not None and built.commit:
            gitrepo.push(prep.repo, prep.repo.root, built.commit, pr.head, expect=pending.remote)
            out.commit = built.commit
        url, _ = github_pr.comment(gh, pr.number, body, core.MARKER)
        out.pr = PullRequest(pr.number, pr.url, pr.head, pr.state, False, "", "")
        out.action = "failed" if out.error is not None else "refreshed" if out.commit else "commented"
        out.note = url
        return out

    o = each(cli, done, how, pr.head, servers, deliver)
    if o is not None and (o.action != "commented" or not refused):
        record(cli, done, how, o)
    for r in refused:
        record(cli, done, how, Outcome(pr.head, [r.server], "refused", note=_refusal(r)))


def _why(r: Row) -> str:
    return (r.screen.refused if r.screen is not None else None) or "refused by screening"


def _refusal(r: Row) -> str:
    return f"{r.package} {r.latest} is refused: {_why(r)}; not pinned (do not merge this pull request)"


def comment_body(pr: PullHead, built: Any, refused: list[Row], min_age: float) -> str:
    """mcplock's comment: the report of the refreshed servers (update-pr's body), and each release
    screening refused, with why (escaped: registry and OSV words are untrusted)."""
    from mcplock.core.update_pr_renovate import MARKER
    from mcplock.render.formats.markdown import md_code, md_text
    from mcplock.render.screening import markdown

    out = [MARKER]
    if built is not None and built.error is None and built.body:
        done = f"(commit {built.commit[:12]})" if built.commit else "(--dry-run: not committed)"
        out += [
            f"mcplock re-pinned, probed and staged the release on {md_code(pr.head)} {done}; "
            "its new definitions are pending review.",
            "",
            built.body.split("\n---\n<sub>Opened by")[0].rstrip(),  # update-pr's footer: this is Renovate's
        ]
    elif built is not None:
        out.append(f":x: mcplock could not refresh {md_code(pr.head)}: {md_text(built.note)}")
    for r in refused:
        out += [
            "",
            f"## :no_entry: {md_code(r.server)}: {md_code(r.package or '')} {md_text(r.latest or '')} is refused",
            "",
            md_text(_why(r)) + ". mcplock did not pin it: do not merge this pull request (close it; Renovate "
            "proposes the next release).",
        ]
    if refused:
        out += markdown({r.server: r.screen.as_json() for r in refused if r.screen is not None}, min_age)
    out += [
        "",
        "---",
        "<sub>Posted by <code>mcplock update-pr --renovate</code> (the mcplock Action's <code>command: "
        "renovate</code>); edited in place when Renovate pushes this branch again.</sub>",
    ]
    return "\n".join(out).rstrip() + "\n"
