"""`mcplock update-pr`: Dependabot for MCP servers (docs/updates.md) — what to propose, and which
branches are left alone.

For each server whose package pin is behind its registry, one branch ``mcplock/update-SERVER``
(``--group``: one ``mcplock/update-all``) holding the moved pin and the lock refreshed as
`mcplock update` leaves it (the new definitions pending review), pushed to ``origin``, and one
pull request against the repository's default branch.

Three steps, in two processes (docs/updates.md, "What a probed release can reach"):

1. here, in the process that holds the API token and launches nothing: check the checkout, read
   the default branch's lock as origin has it, enforce its signing policy, ask the registries
   which servers are behind, and decide per branch whether it is left alone (:func:`decide`);
2. :mod:`mcplock.core.update_pr_build`, in a child process that never receives the token: build
   each remaining branch in a temporary worktree (probe the new release, stage, commit);
3. :mod:`mcplock.core.update_pr_deliver`, back here once every process the probe started is
   gone: push with a lease, open or update the pull request, every known secret scrubbed.

Idempotent: a branch that already holds the newest release with its pull request open is left
alone; one whose upstream moved again is pushed anew and its pull request's title and body
rewritten; never a second pull request for one branch; a person's commit is never overwritten.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from typing import Any

from mcplock.core import gitrepo
from mcplock.core.github import GitHub, PullRequest
from mcplock.core.update import Row, outdated, pinned_at
from mcplock.errors import McplockError, ProbeError, UsageError
from mcplock.lock.model import Lock, ServerEntry

PREFIX = "mcplock/update-"
DRIFT_PREFIX = "mcplock/drift-"  # a server whose surface drifted without a version to move
GROUP_BRANCH = "mcplock/update-all"


@dataclass
class Prepared:
    """What update-pr starts from: the checkout, the default branch as origin has it, the lock
    there, and which of its servers are behind."""

    repo: gitrepo.Repo
    base: str  # the default branch
    base_sha: str
    lock_path: str  # the lock, relative to the repository's root (forward slashes)
    lock: Lock
    selected: list[ServerEntry]
    rows: list[Row]
    min_age: float = 7.0
    # --renovate (mcplock.core.update_pr_renovate): server → [version at the base, on the branch]
    versions: dict[str, list[str | None]] = field(default_factory=dict)

    @property
    def behind(self) -> list[Row]:
        return [r for r in self.rows if r.status in ("behind", "unpinned")]

    @property
    def errors(self) -> dict[str, ProbeError]:
        return {r.server: r.error for r in self.rows if r.status == "error" and r.error is not None}


@dataclass
class Outcome:
    branch: str
    servers: list[str]
    action: str  # opened | updated | unchanged | declined | kept | failed | would-open | would-update | pushed
    pr: PullRequest | None = None
    moves: list[dict[str, Any]] = field(default_factory=list)
    note: str = ""
    title: str = ""
    body: str = ""
    commit: str | None = None
    error: McplockError | None = None

    def as_json(self) -> dict[str, Any]:
        return {
            "branch": self.branch,
            "servers": self.servers,
            "action": self.action,
            "pull_request": None if self.pr is None else {"number": self.pr.number, "url": self.pr.url},
            "commit": self.commit,
            "title": self.title or None,
            "note": self.note or None,
            "moves": [{k: m.get(k) for k in ("server", "registry", "package", "from", "to")} for m in self.moves],
            "error": None if self.error is None else self.error.as_json(),
        }


@dataclass
class Pending:
    """A branch to build: its servers, the pull request open for it (if any) and what origin has
    on it (None: no such branch), for the push's lease."""

    branch: str
    rows: list[Row]
    open_prs: list[PullRequest]
    remote: str | None


_SAFE = re.compile(r"[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*")


def branch_for(server: str, taken: set[str] | None = None, prefix: str = PREFIX) -> str:
    """``mcplock/update-SERVER``: the name itself when it is already a safe ref component (letters,
    digits, ``_``, ``-``, single inner dots, not ending in ``.lock``); otherwise its safe form and
    8 hex digits of the name's hash, so two names never share a branch (``a-b`` and ``a b``), in
    this run or the next, and every branch is a valid ref (``a.lock.lock``)."""
    if _SAFE.fullmatch(server) and not server.endswith(".lock"):
        name = prefix + server
    else:
        slug = re.sub(r"[^A-Za-z0-9_-]+", "-", server).strip("-")[:60] or "server"
        name = f"{prefix}{slug}-{hashlib.sha256(server.encode('utf-8', 'surrogatepass')).hexdigest()[:8]}"
    if taken is not None:
        taken.add(name)
    return name


def prepare(
    lockfile: str,
    names: list[str],
    gh: GitHub | None,
    environ: Any = None,
    *,
    policy: str | None = None,
    min_age: float = 7.0,
) -> Prepared:
    """Check the checkout, ask GitHub for the default branch, fetch it, read the lock there (its
    signing policy enforced on it, as pushed) and ask the registries which of its servers are
    behind. Nothing is written, nothing launched."""
    from mcplock.lock.read import loads
    from mcplock.lock.targets import select

    lock_dir = os.path.dirname(os.path.abspath(lockfile))
    repo = gitrepo.open_repo(lock_dir, secrets=gh.secrets if gh else (), token=gh.secrets[0] if gh else None)
    rel = os.path.relpath(os.path.realpath(os.path.abspath(lockfile)), os.path.realpath(repo.root))
    if rel.startswith(".."):
        raise UsageError(
            f"the lock {lockfile} is outside the git repository at {repo.root}",
            hint="run update-pr in the repository that holds mcp.lock",
        )
    rel = rel.replace(os.sep, "/")
    base = gh.default_branch() if gh is not None else (gitrepo.origin_head(repo) or repo.branch)
    base_sha = gitrepo.fetch(repo, base)
    text = gitrepo.show(repo, base_sha, rel)
    if text is None:
        raise UsageError(
            f"origin's `{base}` branch has no {rel}: the pull requests update the lock that is pushed",
            hint=f"commit {rel} and push it to `{base}`, then run the command again",
        )
    signed_as_pushed(repo, base_sha, rel, text, policy, environ)
    lock = loads(text, rel)
    selected = select(lock, names)
    rows = outdated(selected, environ)
    from mcplock.core.screening import screen_rows

    screen_rows(rows, min_age, environ)  # held (too young) and refused releases are not proposed
    return Prepared(repo, base, base_sha, rel, lock, selected, rows, min_age)


def signed_as_pushed(
    repo: gitrepo.Repo, sha: str, rel: str, text: str, policy: str | None, environ: Any = None
) -> None:
    """The signing policy over the lock and its signature as committed at ``sha`` (the files the
    bot will launch from, not the checkout's): a SignatureError when it requires a signature they
    do not carry."""
    from mcplock.trust import org_policy

    org = org_policy.resolve(policy, environ)
    if org is None or not org.signing_required:
        return
    from mcplock.core.launch_gate import enforce_signing

    tmp = tempfile.mkdtemp(prefix="mcplock-signed-")
    try:
        path = os.path.join(tmp, os.path.basename(rel))
        with open(path, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        sig = gitrepo.show(repo, sha, rel + ".sig")
        if sig is not None:
            with open(path + ".sig", "w", encoding="utf-8", newline="") as fh:
                fh.write(sig)
        try:
            enforce_signing(path, policy, environ)
        except McplockError as e:
            raise e.evolve(message=e.message.replace(path, f"{rel} on origin's default branch")) from None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def targets(prep: Prepared, group: bool) -> list[tuple[str, list[Row]]]:
    """(branch, rows) of each pull request to make: one per server behind, or one for all."""
    behind = prep.behind
    if not behind:
        return []
    if group:
        return [(GROUP_BRANCH, behind)]
    taken: set[str] = set()
    return [(branch_for(r.server, taken), [r]) for r in behind]


def _holds_newest(prep: Prepared, sha: str, rows: list[Row]) -> bool:
    """Whether the branch's lock at ``sha`` pins every server of ``rows`` at its newest release."""
    from mcplock.lock.read import loads

    text = gitrepo.show(prep.repo, sha, prep.lock_path)
    if text is None:
        return False
    try:
        lock = loads(text, prep.lock_path)
    except McplockError:
        return False  # a branch whose lock does not read: made again
    return all(r.server in lock.servers and pinned_at(lock.servers[r.server]) == r.latest for r in rows)


def decide(prep: Prepared, branch: str, rows: list[Row], gh: GitHub | None) -> Outcome | Pending:
    """Whether the branch is left alone (an Outcome saying why) or built (Pending)."""
    open_prs = gh.pulls(branch, "open") if gh is not None else []
    remote = gitrepo.remote_branch(prep.repo, branch)
    newest = False
    if remote is not None:
        remote = gitrepo.fetch(prep.repo, branch)
        newest = _holds_newest(prep, remote, rows)
    left = _left_alone(prep, branch, gh, open_prs, remote, newest)
    if left is not None:
        out = Outcome(branch, [r.server for r in rows], left[0], left[1], note=left[2])
        return out
    return Pending(branch, rows, open_prs, remote)


def _left_alone(
    prep: Prepared, branch: str, gh: GitHub | None, open_prs: list[PullRequest], remote: str | None, newest: bool
) -> tuple[str, PullRequest | None, str] | None:
    """Why the branch is not touched, as (action, pull request, note): it already proposes the
    newest release (``unchanged``), a person closed that proposal (``declined``), or a person
    committed to it (``kept``). None: the branch is made (again)."""
    if newest and (open_prs or gh is None):
        return "unchanged", open_prs[0] if open_prs else None, "already proposes the newest release"
    declined = _declined(branch, gh) if newest else None
    if declined is not None:
        return declined
    if remote is not None and (open_prs or gh is None):
        return _kept(prep, open_prs[0] if open_prs else None, remote)
    return None


def _declined(branch: str, gh: GitHub | None) -> tuple[str, PullRequest, str] | None:
    """A pull request for the newest release that a person closed without merging, if any."""
    declined = [p for p in gh.pulls(branch, "closed") if not p.merged] if gh is not None else []
    if not declined:
        return None
    return (
        "declined",
        declined[0],
        f"pull request #{declined[0].number} for this release was closed without merging; delete the "
        f"branch `{branch}` on origin to have it proposed again",
    )


def _kept(prep: Prepared, pr: PullRequest | None, remote: str) -> tuple[str, PullRequest | None, str] | None:
    """The branch holds commits a person made (or changed): it is never overwritten."""
    theirs = gitrepo.foreign_commits(prep.repo, prep.base_sha, remote)
    if not theirs:
        return None
    where = f"#{pr.number}" if pr is not None else "the branch"
    return (
        "kept",
        pr,
        f"the branch has {len(theirs)} commit{'s' if len(theirs) != 1 else ''} that mcplock did not make "
        f"({theirs[0][:12]}): a person's commit is never overwritten. Merge or close "
        f"{where}; the next run proposes the newer release",
    )


def decide_built(prep: Prepared, p: Pending, built: Any, gh: GitHub | None) -> Outcome | Pending:
    """A drift branch, once built (its content is known only then): left alone when origin's branch
    holds the same lock (``unchanged``; ``declined`` when its pull request was closed unmerged) or a
    person committed on it (``kept``); else Pending, to push and propose."""
    open_prs = gh.pulls(p.branch, "open") if gh is not None else []
    remote = gitrepo.remote_branch(prep.repo, p.branch)
    servers = [r.server for r in p.rows]
    if remote is None:
        return Pending(p.branch, p.rows, open_prs, None)
    remote = gitrepo.fetch(prep.repo, p.branch)
    same = built.commit is not None and gitrepo.show(prep.repo, remote, prep.lock_path) == gitrepo.show(
        prep.repo, built.commit, prep.lock_path
    )
    left = _left_alone(prep, p.branch, gh, open_prs, remote, same)
    if left is not None:
        return Outcome(p.branch, servers, left[0], left[1], note=left[2].replace("newest release", "same drift"))
    return Pending(p.branch, p.rows, open_prs, remote)
