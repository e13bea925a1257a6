"""`mcplock update-pr`, step 3 (:mod:`mcplock.core.update_pr`): what the building process made,
pushed and proposed by the process that holds the token — after every process the probe started
is gone. Order, so nothing is half done: the commit is complete before the push, the push has a
lease (a commit pushed to the branch meanwhile is never lost), the pull request is opened only
after the push succeeded. Every value mcplock knows to be secret is scrubbed from the title, the
body and every message first (:func:`known_secrets`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from mcplock.core import git_auth, gitrepo
from mcplock.core.github import GitHub, GitHubError, PullRequest
from mcplock.core.update_pr import Outcome, Pending, Prepared
from mcplock.core.update_pr_build import Built
from mcplock.errors import McplockError, advice

# names whose values are secrets wherever they appear (the lint's and the host importers' sense)
_SECRET_NAME = re.compile(r"(?i)(token|secret|passw|pwd|api[-_]?key|private[-_]?key|credential|auth|cookie|session)")
_MIN = 6  # shorter values are too common to blank out of a text


def known_secrets(environ: Mapping[str, str], lock: object = None, also: Iterable[str] = ()) -> tuple[str, ...]:
    """Every value mcplock knows to be secret: ``also`` (the API token), the environment's values
    whose names say secret, and the values of the variables the lock's ``${VAR}`` templates name
    (a server's key). Longest first, so a value that contains another is blanked whole."""
    names: set[str] = {k for k in environ if _SECRET_NAME.search(k)}
    servers = getattr(lock, "servers", {}) or {}
    for srv in servers.values():
        spec = srv.spec
        texts = [*(spec.env or {}).values(), *(spec.headers or {}).values(), *spec.args, spec.url or ""]
        names.update(n for t in texts for n in re.findall(r"\$\{([A-Za-z_][A-Za-z0-9_]*)", str(t)))
        names.update(spec.pass_env or ())
    values = {environ[n] for n in names if n in environ and len(environ[n]) >= _MIN}
    values.update(v for v in also if v and len(v) >= 4)
    return tuple(sorted(values, key=len, reverse=True))


def scrub(text: str, secrets: Iterable[str]) -> str:
    return git_auth.scrub(text, secrets)


def scrub_error(e: McplockError, secrets: tuple[str, ...]) -> McplockError:
    """``e`` with every secret blanked from its message and hint."""
    if not secrets:
        return e
    return e.evolve(
        message=scrub(e.message, secrets),
        action=None if e.action is None else e.action.mapped(lambda t: scrub(t, secrets)),
    )


def deliver(
    prep: Prepared, pending: Pending, built: Built, gh: GitHub | None, *, dry_run: bool, secrets: tuple[str, ...]
) -> Outcome:
    """The built branch pushed (with a lease on what origin had) and its pull request opened or
    updated; with ``dry_run`` only what would be done. ``gh`` None: pushed only (``--push-only``)."""
    out = Outcome(pending.branch, [r.server for r in pending.rows], "failed")
    out.moves = built.moves
    out.title, out.body = scrub(built.title, secrets), scrub(built.body, secrets)
    out.note = scrub(built.note, secrets)
    failure = built.failure()
    if failure is not None:
        out.error = scrub_error(failure, secrets)
        return out
    if dry_run:
        out.action = "would-update" if pending.open_prs else "would-open"
        out.pr = pending.open_prs[0] if pending.open_prs else None
        return out
    assert built.commit is not None
    gitrepo.push(prep.repo, prep.repo.root, built.commit, out.branch, expect=pending.remote)
    out.commit = built.commit
    if gh is None:
        out.action = "pushed"
        return out
    _propose(out, prep, gh, pending.open_prs)
    return out


def _propose(out: Outcome, prep: Prepared, gh: GitHub, open_prs: list[PullRequest]) -> None:
    """The pushed branch's pull request: the open one updated, else a new one. A failure says
    the branch is pushed and that running the command again opens it."""
    try:
        if open_prs:
            out.pr, out.action = gh.update_pull(open_prs[0].number, out.title, out.body), "updated"
        else:
            out.pr, out.action = _open_pull(out, prep, gh)
    except GitHubError as e:
        raise e.evolve(
            message=f"{e.message} — the branch `{out.branch}` is pushed (commit {(out.commit or '')[:12]}), "
            "its pull request is not opened",
            action=advice(
                (e.hint + "; then " if e.hint else "") + "run `mcplock update-pr` again: it "
                "finds the pushed branch and opens its pull request"
            ),
        ) from None


def _open_pull(out: Outcome, prep: Prepared, gh: GitHub) -> tuple[PullRequest, str]:
    """A new pull request for the branch, and the action: ``opened``, or ``updated`` when another
    run opened one meanwhile (GitHub's 422)."""
    pr = gh.create_pull(out.branch, prep.base, out.title, out.body)
    if pr is not None:
        return pr, "opened"
    again = gh.pulls(out.branch, "open")
    if not again:
        raise GitHubError(
            f"POST /repos/{gh.repository}/pulls → 422: a pull request already exists for "
            f"{out.branch}, but none is open",
            exit_code=3,
        )
    return gh.update_pull(again[0].number, out.title, out.body), "updated"
