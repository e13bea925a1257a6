"""`mcplock update-pr`: Dependabot for MCP servers (docs/updates.md).

For each server whose package pin is behind its registry, one branch ``mcplock/update-SERVER``
(``--group``: one ``mcplock/update-all``) holding the moved pin and the lock refreshed as
`mcplock update` leaves it (the new definitions pending review), pushed to ``origin``, and one
pull request against the repository's default branch.

The work happens in a temporary worktree at the default branch as fetched from origin: the
user's branch, index and work tree are never changed, and neither is any branch but the update
branches. Order, so nothing is half done: the commit is complete before the push, the push has a
lease (a commit pushed to the branch meanwhile is never lost), the pull request is opened only
after the push succeeded. Idempotent: a branch that already holds the newest release with its
pull request open is left alone; one whose upstream moved again is pushed anew and its pull
request's title and body rewritten; never a second pull request for one branch.

The probing and the body are the caller's (``move`` and ``render`` callbacks): this module
decides and talks to git and GitHub.
"""

from __future__ import annotations

import copy
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mcplock.core import gitrepo
from mcplock.core.github import GitHub, GitHubError, PullRequest
from mcplock.core.update import Row, outdated, pinned_at
from mcplock.errors import McplockError, ProbeError, UsageError, advice
from mcplock.lock.model import Lock, ServerEntry

PREFIX = "mcplock/update-"
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

    @property
    def behind(self) -> list[Row]:
        return [r for r in self.rows if r.status in ("behind", "unpinned")]

    @property
    def errors(self) -> dict[str, ProbeError]:
        return {r.server: r.error for r in self.rows if r.status == "error" and r.error is not None}


@dataclass
class Moved:
    """What ``move`` did in the worktree: the pins that moved (the update report's rows), the
    servers it could not update, and the body's material."""

    moves: list[dict[str, Any]]
    failed: dict[str, ProbeError]
    diffs: list[Any] = field(default_factory=list)
    links: dict[str, str] = field(default_factory=dict)  # server → the release's page (:func:`release_link`)


@dataclass
class Outcome:
    branch: str
    servers: list[str]
    action: str  # opened | updated | unchanged | declined | kept | failed | would-open | would-update
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


def branch_for(server: str, taken: set[str]) -> str:
    """``mcplock/update-SERVER``, the name made safe for a git ref (anything but letters, digits,
    ``.``, ``_`` and ``-`` becomes ``-``); a name that collides with another server's gets a suffix."""
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", server).strip(".-") or "server"
    slug = re.sub(r"\.{2,}", ".", slug).removesuffix(".lock")
    name = PREFIX + slug
    if name in taken:
        import hashlib

        name += "-" + hashlib.sha256(server.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    taken.add(name)
    return name


def prepare(lockfile: str, names: list[str], gh: GitHub | None, environ: Any = None) -> Prepared:
    """Check the checkout, ask GitHub for the default branch, fetch it, read the lock there and
    ask the registries which of its servers are behind. Nothing is written."""
    from mcplock.lock.read import loads
    from mcplock.lock.targets import select

    lock_dir = os.path.dirname(os.path.abspath(lockfile))
    repo = gitrepo.open_repo(lock_dir, secrets=gh.secrets if gh else ())
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
    lock = loads(text, rel)
    selected = select(lock, names)
    rows = outdated(selected, environ)
    return Prepared(repo, base, base_sha, rel, lock, selected, rows)


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


Move = Callable[[str, list[Row]], Moved]
Render = Callable[[str, Moved], tuple[str, str, str]]  # (title, body, commit message)


def open_one(
    prep: Prepared, branch: str, rows: list[Row], gh: GitHub | None, *, move: Move, render: Render, dry_run: bool
) -> Outcome:
    """One branch and its pull request (see the module docstring). A failure of git or GitHub
    raises; the error says what was already done (a branch pushed) and how to go on."""
    out = Outcome(branch, [r.server for r in rows], "failed")
    open_prs = gh.pulls(branch, "open") if gh is not None else []
    remote = gitrepo.remote_branch(prep.repo, branch)
    newest = False
    if remote is not None:
        remote = gitrepo.fetch(prep.repo, branch)
        newest = _holds_newest(prep, remote, rows)
    left = _left_alone(prep, branch, gh, open_prs, remote, newest)
    if left is not None:
        out.action, out.pr, out.note = left
        return out
    if not _push_update(out, prep, rows, open_prs, remote, move=move, render=render, dry_run=dry_run):
        return out
    assert gh is not None  # only a dry run goes without GitHub, and it pushes nothing
    _propose(out, prep, gh, open_prs)
    return out


def _left_alone(
    prep: Prepared, branch: str, gh: GitHub | None, open_prs: list[PullRequest], remote: str | None, newest: bool
) -> tuple[str, PullRequest, str] | None:
    """Why the branch is not touched, as (action, pull request, note): it already proposes the
    newest release (``unchanged``), a person closed that proposal (``declined``), or a person
    committed to it (``kept``). None: the branch is made (again)."""
    if newest and open_prs:
        return "unchanged", open_prs[0], "already proposes the newest release"
    declined = _declined(branch, gh) if newest else None
    if declined is not None:
        return declined
    if open_prs and remote is not None:
        return _kept(prep, open_prs[0], remote)
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


def _kept(prep: Prepared, pr: PullRequest, remote: str) -> tuple[str, PullRequest, str] | None:
    """The branch of the open ``pr`` holds commits a person made: it is never overwritten."""
    theirs = gitrepo.foreign_commits(prep.repo, prep.base_sha, remote)
    if not theirs:
        return None
    return (
        "kept",
        pr,
        f"the branch has {len(theirs)} commit{'s' if len(theirs) != 1 else ''} that mcplock did not make "
        f"({theirs[0][:12]}): a person's commit is never overwritten. Merge or close "
        f"#{pr.number}; the next run proposes the newer release",
    )


def _push_update(
    out: Outcome,
    prep: Prepared,
    rows: list[Row],
    open_prs: list[PullRequest],
    remote: str | None,
    *,
    move: Move,
    render: Render,
    dry_run: bool,
) -> bool:
    """In a worktree at the default branch: move the pins, render the proposal into ``out`` and,
    unless ``dry_run``, commit it and push it to the branch (with a lease on ``remote``). True:
    pushed, its pull request is next; False: ``out`` says why not (nothing moved, nothing
    changed, a dry run)."""
    with gitrepo.worktree(prep.repo, prep.base_sha) as tree:
        mine = [copy.copy(r) for r in rows]  # `move` records the new pins on its rows
        moved = move(os.path.join(tree, *prep.lock_path.split("/")), mine)
        moved.links = _release_links(mine)
        out.moves = moved.moves
        if not moved.moves:
            _not_moved(out, moved)
            return False
        out.title, out.body, text = render(out.branch, moved)
        if dry_run:
            out.action = "would-update" if open_prs else "would-open"
            out.pr = open_prs[0] if open_prs else None
            return False
        sha = gitrepo.commit(prep.repo, tree, [prep.lock_path], text)
        if sha is None:
            out.error = ProbeError("update", "the update changed nothing in the lock")
            out.note = "the update changed nothing in the lock"
            return False
        gitrepo.push(prep.repo, tree, sha, out.branch, expect=remote)
        out.commit = sha
    return True


def _release_links(rows: list[Row]) -> dict[str, str]:
    """Server → the page of the release its row moved to, for the rows that have one."""
    links: dict[str, str] = {}
    for r in rows:
        link = release_link(r)
        if link:
            links[r.server] = link
    return links


def _not_moved(out: Outcome, moved: Moved) -> None:
    """``out`` for a branch where no pin moved: the first server's failure, else "no pin moved"."""
    first = next(iter(moved.failed.values()), None)
    out.error = first or ProbeError("update", "no pin moved")
    out.note = "not updated: " + (first.message if first else "no pin moved")


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


def release_link(row: Row, environ: Any = None) -> str | None:
    """Where a person reads about the release the row moves to: npmjs.com or pypi.org (only when
    mcplock asks the public registry), the MCP Registry's record of the entry's version."""
    to = row.new_pin.version if row.new_pin is not None else row.latest
    link = _RELEASE_LINKS.get(row.registry or "")
    if not to or not row.package or link is None:
        return None
    return link(row, to, environ)


def _npm_link(row: Row, to: str, environ: Any) -> str | None:
    """The release on npmjs.com, when mcplock asks the public npm registry."""
    from urllib.parse import quote

    from mcplock.packages import registries

    if registries.npm_registry(environ).rstrip("/") != "https://registry.npmjs.org":
        return None
    return f"https://www.npmjs.com/package/{quote(row.package or '', safe='@/')}/v/{quote(to, safe='')}"


def _pypi_link(row: Row, to: str, environ: Any) -> str | None:
    """The release on pypi.org, when mcplock asks the public index."""
    from urllib.parse import quote

    from mcplock.packages import registries

    if registries.pypi_url(environ).rstrip("/") != "https://pypi.org":
        return None
    return f"https://pypi.org/project/{quote(row.package or '', safe='')}/{quote(to, safe='')}/"


def _mcp_registry_link(row: Row, to: str, environ: Any) -> str | None:
    """The MCP Registry's record of the entry's new version (an http(s) registry only)."""
    from urllib.parse import quote

    ref = row.new_ref
    if ref is None or not re.match(r"https?://", ref.url):
        return None
    return f"{ref.url.rstrip('/')}/v0.1/servers/{quote(ref.name, safe='')}/versions/{quote(ref.version, safe='')}"


_RELEASE_LINKS: dict[str, Callable[[Row, str, Any], str | None]] = {
    "npm": _npm_link,
    "pypi": _pypi_link,
    "mcp-registry": _mcp_registry_link,
}
