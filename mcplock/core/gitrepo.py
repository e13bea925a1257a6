"""The git that `mcplock update-pr` needs, through the `git` command: the state of the user's
checkout (refused when it has no `origin`, uncommitted changes or a detached HEAD), the remote's
branches, a temporary worktree to work in, one commit, one push with a lease.

Nothing here touches the user's branch, index or work tree: the base is fetched into
``FETCH_HEAD`` only, and every change is made in a detached worktree under a temporary
directory that is removed afterwards (docs/updates.md).

Every failure is a :class:`GitError` naming the git command and what git said (credentials in
a remote URL, and the values of ``secrets``, blanked out).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from mcplock.core.git_auth import GitError, credentials_refused, scrub, token_config

TRAILER = "Mcplock-Update"  # the commit trailer that marks a commit update-pr made
TREE_TRAILER = "Mcplock-Tree"  # the tree update-pr committed: a person's amend changes it
BOT_NAME = "github-actions[bot]"  # the identity a commit gets where git has none configured (CI)
BOT_EMAIL = "41898282+github-actions[bot]@users.noreply.github.com"


@dataclass
class Repo:
    root: str  # the work tree's top directory
    branch: str  # the branch checked out (refs/heads/… without the prefix)
    secrets: tuple[str, ...] = field(default=(), repr=False)  # never shown in an error (the API token)
    token: str | None = field(default=None, repr=False)  # authenticates fetch and push to an https origin

    def git(
        self,
        *args: str,
        cwd: str | None = None,
        check: bool = True,
        env: dict[str, str] | None = None,
        remote: bool = False,
    ) -> subprocess.CompletedProcess[str]:
        if remote and self.token:
            env = {**(env or {}), **token_config(self.token)}
        return run_git(
            args, cwd or self.root, check=check, env=env, remote=remote, secrets=self.secrets, token=bool(self.token)
        )


def _git_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env.update({"GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C", "GIT_OPTIONAL_LOCKS": "0"})
    env.pop("GIT_DIR", None)
    env.pop("GIT_WORK_TREE", None)
    env.pop("GIT_INDEX_FILE", None)
    if extra:
        env.update(extra)
    return env


def run_git(
    args: Iterable[str],
    cwd: str,
    *,
    check: bool = True,
    env: dict[str, str] | None = None,
    remote: bool = False,
    secrets: Iterable[str] = (),
    token: bool = False,
) -> subprocess.CompletedProcess[str]:
    """``git ARGS`` in ``cwd``; a failure (with ``check``) is a GitError quoting git's own words.
    ``remote``: the command talks to the remote (a failure is exit 3, the remote's fault, except
    credentials it refused: exit 2); ``token``: mcplock gave git the token for it."""
    argv = ["git", *args]
    try:
        r = subprocess.run(
            argv, cwd=cwd, capture_output=True, text=True, env=_git_env(env), timeout=600, stdin=subprocess.DEVNULL
        )
    except FileNotFoundError:
        raise GitError(
            "git is not installed (or not on PATH)", hint="install git, then run the command again"
        ) from None
    except subprocess.TimeoutExpired:
        raise GitError(f"`{scrub(' '.join(argv), secrets)}` did not finish in 10 minutes", exit_code=3) from None
    if check and r.returncode != 0:
        raise _failed(argv, r, secrets, remote=remote, token=token)
    return r


def _failed(
    argv: list[str], r: subprocess.CompletedProcess[str], secrets: Iterable[str], *, remote: bool, token: bool
) -> GitError:
    """A git command that failed, in git's own words (secrets scrubbed); talking to the remote,
    the remote's fault (exit 3), unless it refused the credentials (:func:`credentials_refused`)."""
    said = scrub((r.stderr or r.stdout).strip(), secrets) or f"exit status {r.returncode}"
    refused = credentials_refused(f"`{scrub(' '.join(argv), secrets)}`", said, token=token) if remote else None
    if refused is not None:
        return refused
    return GitError(
        f"`{scrub(' '.join(argv), secrets)}` failed: {said}",
        exit_code=3 if remote else 2,
        hint="check the remote `origin`: its URL, the network and your access to it" if remote else None,
    )


def open_repo(path: str, *, secrets: Iterable[str] = (), token: str | None = None, detached: bool = False) -> Repo:
    """The git checkout that holds ``path``, if it is fit to open pull requests from: an
    ``origin`` remote, a branch checked out (not a detached HEAD, unless ``detached``: a pull
    request's checkout, whose branch is fetched from origin), no uncommitted change to a tracked
    file. Anything else is a GitError (exit 2) naming the fix."""
    secrets = tuple(secrets)
    r = run_git(["rev-parse", "--show-toplevel"], path, check=False, secrets=secrets)
    if r.returncode != 0:
        raise GitError(
            f"{path} is not in a git repository",
            code="not-a-repository",
            hint="run `mcplock update-pr` in a clone of the repository the pull requests go to",
        )
    root = r.stdout.strip()
    if run_git(["remote", "get-url", "origin"], root, check=False, secrets=secrets).returncode != 0:
        raise GitError(
            "this repository has no remote named `origin`: the update branches are pushed there",
            code="no-origin",
            hint="add it with `git remote add origin URL`, then run the command again",
        )
    head = run_git(["symbolic-ref", "-q", "HEAD"], root, check=False, secrets=secrets)
    if head.returncode != 0 and not detached:
        raise GitError(
            "HEAD is detached: update-pr works from a branch (it never changes it)",
            code="detached-head",
            hint="check out the default branch (`git switch main`), then run the command again",
        )
    branch = head.stdout.strip().removeprefix("refs/heads/")
    if run_git(["rev-parse", "-q", "--verify", "HEAD"], root, check=False, secrets=secrets).returncode != 0:
        raise GitError(
            f"branch `{branch}` has no commit yet", code="no-commit", hint="commit mcp.lock and push it to origin first"
        )
    _refuse_uncommitted(root, secrets)
    return Repo(root, branch, secrets, token if token and _needs_token(root, secrets) else None)


def _needs_token(root: str, secrets: tuple[str, ...]) -> bool:
    """Whether fetch and push need the token given: origin is https and the checkout carries no
    HTTP authorization of its own (actions/checkout's ``extraheader``: a second one would be refused)."""
    url = run_git(["remote", "get-url", "origin"], root, check=False, secrets=secrets).stdout.strip()
    if not url.lower().startswith("https://"):
        return False
    own = run_git(["config", "--get-regexp", r"^http\..*extraheader$"], root, check=False, secrets=secrets)
    return not own.stdout.strip()


def _refuse_uncommitted(root: str, secrets: tuple[str, ...]) -> None:
    """An uncommitted change to a tracked file is refused: the pull requests are made from what is pushed."""
    dirty = run_git(["status", "--porcelain", "--untracked-files=no"], root, secrets=secrets).stdout
    if dirty.strip():
        files = [line[3:] for line in dirty.splitlines() if line.strip()]
        shown = ", ".join(files[:5]) + (f" and {len(files) - 5} more" if len(files) > 5 else "")
        raise GitError(
            f"the work tree has uncommitted changes ({shown}): the pull requests are made from what is "
            "pushed, and what is uncommitted here would be left out",
            code="dirty",
            hint="commit and push them, or stash them (`git stash`), then run the command again",
        )


def origin_head(repo: Repo) -> str | None:
    """The remote's default branch as this clone knows it (``origin/HEAD``), if set."""
    r = repo.git("symbolic-ref", "-q", "--short", "refs/remotes/origin/HEAD", check=False)
    return r.stdout.strip().removeprefix("origin/") or None if r.returncode == 0 else None


def fetch(repo: Repo, branch: str) -> str:
    """Fetch ``branch`` from origin and return its commit (only FETCH_HEAD is written, as by any
    `git fetch`: no branch or remote-tracking ref moves)."""
    repo.git("fetch", "--quiet", "--no-tags", "origin", f"refs/heads/{branch}", remote=True)
    return repo.git("rev-parse", "--verify", "FETCH_HEAD^{commit}").stdout.strip()


def remote_branch(repo: Repo, branch: str) -> str | None:
    """The commit ``branch`` points at on origin, or None when origin has no such branch."""
    r = repo.git("ls-remote", "--heads", "origin", f"refs/heads/{branch}", remote=True)
    for line in r.stdout.splitlines():
        sha, _, ref = line.partition("\t")
        if ref == f"refs/heads/{branch}":
            return sha
    return None


def show(repo: Repo, commit: str, path: str) -> str | None:
    """The text of ``path`` (relative to the repository's root) at ``commit``; None when absent."""
    r = repo.git("show", f"{commit}:{path}", check=False)
    return r.stdout if r.returncode == 0 else None


def message(repo: Repo, commit: str) -> str:
    return repo.git("log", "-1", "--format=%B", commit).stdout


def made_by_update_pr(repo: Repo, commit: str) -> bool:
    """Whether ``commit`` is update-pr's as update-pr made it: it carries the trailer, and the tree
    its ``Mcplock-Tree`` trailer names is its own (a person who amended the commit — the trailer
    kept — changed the tree). A commit from before that trailer: not amended (its committer date
    is its author date, which an amend moves apart)."""
    info = repo.git("log", "-1", "--format=%T%n%at %ct%n%B", commit).stdout.splitlines()
    if len(info) < 2:
        return False
    tree, (authored, _, committed), body = info[0], info[1].partition(" "), info[2:]
    if not any(line.startswith(f"{TRAILER}:") for line in body):
        return False
    named = [line.split(":", 1)[1].strip() for line in body if line.startswith(f"{TREE_TRAILER}:")]
    if named:
        return named[-1] == tree
    return authored == committed


def _clean_merge(repo: Repo, commit: str) -> bool:
    """Whether the merge ``commit`` holds exactly what git merges by itself from its parents (no
    change of a person's inside it: a conflict resolved by hand, an accept folded in)."""
    parents = repo.git("rev-list", "--parents", "-n", "1", commit).stdout.split()[1:]
    if len(parents) != 2:
        return False
    r = repo.git("merge-tree", "--write-tree", *parents, check=False)
    if r.returncode != 0:
        return False  # a conflict (or a git without --write-tree): a person resolved it
    return r.stdout.split()[0] == repo.git("rev-parse", f"{commit}^{{tree}}").stdout.strip()


def foreign_commits(repo: Repo, base: str, tip: str) -> list[str]:
    """The commits on ``tip`` but not on ``base`` that update-pr did not make, or made and a person
    changed; a merge counts only when it holds a change of its own (a plain merge of the default
    branch, GitHub's "Update branch", brings nothing a rebuild would lose). Where the history
    cannot be walked (a shallow clone): the tip alone is judged."""
    r = repo.git("rev-list", f"{base}..{tip}", check=False)
    if r.returncode != 0:
        return [] if made_by_update_pr(repo, tip) else [tip]
    merges = set(repo.git("rev-list", "--merges", f"{base}..{tip}").stdout.split())
    return [c for c in r.stdout.split() if not (_clean_merge(repo, c) if c in merges else made_by_update_pr(repo, c))]


@contextlib.contextmanager
def worktree(repo: Repo, commit: str) -> Iterator[str]:
    """A detached worktree at ``commit`` in a temporary directory, removed afterwards (the
    user's checkout is not touched)."""
    tmp = tempfile.mkdtemp(prefix="mcplock-update-pr-")
    path = os.path.join(tmp, "tree")
    try:
        repo.git("worktree", "add", "--quiet", "--detach", path, commit)
        yield path
    finally:
        repo.git("worktree", "remove", "--force", path, check=False)
        shutil.rmtree(tmp, ignore_errors=True)
        repo.git("worktree", "prune", check=False)


def _identity(repo: Repo, cwd: str) -> dict[str, str]:
    """Who commits: git's own configuration (or GIT_AUTHOR_*), else the Actions bot (CI has none)."""
    env: dict[str, str] = {}
    name = repo.git("config", "user.name", cwd=cwd, check=False).stdout.strip()
    email = repo.git("config", "user.email", cwd=cwd, check=False).stdout.strip()
    if not (name or os.environ.get("GIT_AUTHOR_NAME")):
        env["GIT_AUTHOR_NAME"] = env["GIT_COMMITTER_NAME"] = BOT_NAME
    if not (email or os.environ.get("GIT_AUTHOR_EMAIL")):
        env["GIT_AUTHOR_EMAIL"] = env["GIT_COMMITTER_EMAIL"] = BOT_EMAIL
    return env


def commit(repo: Repo, cwd: str, paths: list[str], text: str) -> str | None:
    """Commit ``paths`` in the worktree ``cwd`` with message ``text``; None when nothing changed."""
    repo.git("add", "--", *paths, cwd=cwd)
    if repo.git("diff", "--cached", "--quiet", cwd=cwd, check=False).returncode == 0:
        return None
    tree = repo.git("write-tree", cwd=cwd).stdout.strip()
    _commit(repo, cwd, text.rstrip("\n") + f"\n{TREE_TRAILER}: {tree}\n")
    return repo.git("rev-parse", "HEAD", cwd=cwd).stdout.strip()


def _commit(repo: Repo, cwd: str, text: str) -> None:
    fd, path = tempfile.mkstemp(prefix="mcplock-msg-")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        repo.git("commit", "--quiet", "--no-verify", "-F", path, cwd=cwd, env=_identity(repo, cwd))
    finally:
        os.unlink(path)


def push(repo: Repo, cwd: str, commit_sha: str, branch: str, *, expect: str | None) -> None:
    """Push ``commit_sha`` to ``branch`` on origin, with a lease: origin's branch must still be
    at ``expect`` (None: must not exist), so a commit pushed meanwhile is never lost."""
    lease = f"--force-with-lease=refs/heads/{branch}:{expect or ''}"
    r = repo.git(
        "push",
        "--quiet",
        "--porcelain",
        lease,
        "origin",
        f"{commit_sha}:refs/heads/{branch}",
        cwd=cwd,
        check=False,
        remote=True,
    )
    if r.returncode == 0:
        return
    said = scrub((r.stderr + r.stdout).strip(), repo.secrets)
    refused = credentials_refused(f"`git push origin {branch}`", said, token=bool(repo.token))
    if refused is not None:
        raise refused
    if "stale info" in said or "fetch first" in said or "[rejected]" in said:
        raise GitError(
            f"`git push origin {branch}` was refused: the branch moved on origin while mcplock worked ({said})",
            exit_code=3,
            code="push-rejected",
            hint="run `mcplock update-pr` again: it starts from the branch as it is now",
        )
    raise GitError(
        f"`git push origin {branch}` failed: {said or f'exit status {r.returncode}'}",
        exit_code=3,
        code="push-failed",
        hint="check that the token may push (workflow `permissions: contents: write`) and that origin "
        "is reachable, then run `mcplock update-pr` again",
    )
