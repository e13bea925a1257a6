"""Which drift `diff` finds is already proposed by an open `update-pr --drift` pull request
(docs/updates.md, "Drift without a version"), and what the policy's ``ci.proposed-drift`` makes of
it: with ``"warn"``, drift that an open pull request proposes *exactly* (every changed item's live
definition is the one pending on the pull request's branch) passes the gate on `main` — the guard
still serves only what the lock accepted, so nothing unreviewed reaches a model meanwhile.

In CI only (``CI`` set: a workstation's `diff` contacts no remote), read-only: ``git ls-remote`` /
``git fetch`` of the drift branch into FETCH_HEAD, and (when ``GITHUB_TOKEN`` and
``GITHUB_REPOSITORY`` are set) one ``GET …/pulls?head=…&state=open``.
Anything that cannot be read is "not proposed": the drift fails as before.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mcplock.errors import McplockError


@dataclass(frozen=True)
class Proposal:
    server: str
    branch: str
    number: int | None  # the open pull request (None: the branch holds it, no pull request is known)
    url: str | None
    exact: bool  # the branch stages exactly the live drift


def _matches(entry: Any, changes: list[Any]) -> bool:
    """Whether ``entry`` (the branch's lock) holds each change as pending with the live hash."""
    for c in changes:
        item = entry.instructions if c.kind == "instructions" else entry.items.get(c.kind, {}).get(c.name)
        pending = getattr(item, "pending", None)
        if pending is None:
            return False
        if c.change == "removed":
            if pending.change != "removed":
                return False
        elif pending.hash != c.live_hash:
            return False
    return True


def proposals(lockfile: str, diffs: list[Any], environ: Mapping[str, str] | None = None) -> list[Proposal]:
    """The drifted servers of ``diffs`` whose `mcplock/drift-SERVER` branch on origin proposes it."""
    from mcplock.core import gitrepo
    from mcplock.core.trust import is_ci
    from mcplock.core.update_pr import DRIFT_PREFIX, branch_for
    from mcplock.lock.read import loads

    drifted = [d for d in diffs if d.changes and not d.pending and d.error is None]
    env = os.environ if environ is None else environ
    if not drifted or not is_ci(env):  # a workstation's diff asks no remote
        return []
    try:
        repo = gitrepo.Repo(
            gitrepo.run_git(
                ["rev-parse", "--show-toplevel"], os.path.dirname(os.path.abspath(lockfile))
            ).stdout.strip(),
            "",
        )
        rel = os.path.relpath(os.path.realpath(lockfile), os.path.realpath(repo.root)).replace(os.sep, "/")
        gh = _github(env, repo)
    except McplockError:
        return []
    out: list[Proposal] = []
    for d in drifted:
        branch = branch_for(d.name, prefix=DRIFT_PREFIX)
        try:
            if gitrepo.remote_branch(repo, branch) is None:
                continue
            text = gitrepo.show(repo, gitrepo.fetch(repo, branch), rel)
            entry = loads(text, rel).servers.get(d.name) if text is not None else None
            prs = gh.pulls(branch, "open") if gh is not None else []
        except McplockError:
            continue
        if entry is None or (gh is not None and not prs):
            continue
        pr = prs[0] if prs else None
        out.append(
            Proposal(d.name, branch, pr.number if pr else None, pr.url if pr else None, _matches(entry, d.changes))
        )
    return out


def _github(env: Mapping[str, str], repo: Any) -> Any:
    """GitHub's API when the job gives a token and the repository (None otherwise)."""
    from mcplock.core.github import GitHub

    if not (env.get("MCPLOCK_GITHUB_TOKEN") or env.get("GITHUB_TOKEN")) or not env.get("GITHUB_REPOSITORY"):
        return None
    return GitHub.from_env(env, need_token=False)


def gate(code: int, diffs: list[Any], found: list[Proposal], mode: str, others: bool) -> tuple[int, list[str]]:
    """The exit code once the policy's ``ci.proposed-drift`` is applied, and the lines to say.
    ``others``: something besides drift fails the run (pending review, a policy violation)."""
    lines = []
    for p in found:
        where = f"pull request #{p.number} ({p.url})" if p.number is not None else f"branch {p.branch}"
        if p.exact:
            lines.append(f"drift of `{p.server}` is proposed by {where}: review it there")
        else:
            lines.append(f"drift of `{p.server}` differs from what {where} proposes: run `mcplock update-pr --drift`")
    drifted = {d.name for d in diffs if d.changes}
    exact = {p.server for p in found if p.exact and p.number is not None}
    if mode == "warn" and code == 1 and drifted and drifted <= exact and not others:
        lines.append('ci.proposed-drift = "warn": drift an open pull request proposes passes (exit 0)')
        return 0, lines
    return code, lines
