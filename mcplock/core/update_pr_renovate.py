"""`mcplock update-pr --renovate`: finish the pull request Renovate opened (docs/updates.md,
"Renovate"). The hosted Renovate app runs no commands: its commit moves only the ``version`` line
of a server's ``[server.NAME.package]`` in mcp.lock, which leaves the pin's integrity stale, the
command line at the old release and the new definitions unprobed. This does, on Renovate's branch,
what `mcplock update NAME --min-age 0` does — the release pinned afresh, the command line moved, the
release probed (in the building process without the token) and its changes staged pending review —
commits it, pushes it with a lease, and comments the report on the pull request.

Which servers: those whose pin the branch moved against its base, read from the two locks (never
from the commit's subject). A branch that changed anything else of a server (its command, its
environment, a new server) is refused: the bot runs what the reviewed lock runs, at a new version.
The release is screened as update-pr screens (malware, yanked, deprecated — the minimum age is
Renovate's own ``minimumReleaseAge``): a refused release is not pinned, and the comment says why.
"""

from __future__ import annotations

import os
import tomllib
from typing import Any

from mcplock.core import gitrepo
from mcplock.core.github import GitHub
from mcplock.core.github_pr import PullHead
from mcplock.core.update import Row
from mcplock.core.update_pr import Pending, Prepared, signed_as_pushed
from mcplock.errors import UsageError

MARKER = "<!-- mcplock update-pr --renovate -->"  # mcplock's comment starts with it: edited, not repeated
PREFIX = "renovate/"


def changed_pins(base_text: str, head_text: str, lock_path: str) -> dict[str, tuple[str | None, str]]:
    """Each server whose package version the head's lock moved: (version at the base, at the
    head). A server changed in any other way (or new) is refused (UsageError, exit 2)."""
    base, head = _servers(base_text, lock_path), _servers(head_text, lock_path)
    moved: dict[str, tuple[str | None, str]] = {}
    beyond: list[str] = []
    for name, entry in head.items():
        old = base.get(name)
        if old == entry:
            continue
        if old is None or _without_version(old) != _without_version(entry):
            beyond.append(name)
            continue
        moved[name] = (_version(old), str(_version(entry)))
    if beyond:
        raise UsageError(
            f"this branch changes more of {', '.join(f'`{n}`' for n in beyond)} in {lock_path} than the "
            "package version Renovate moves: nothing was run",
            hint="a person reviews this pull request as any other change of the lock; "
            "`mcplock update NAME` re-pins a release on a branch by hand",
        )
    return moved


def _servers(text: str, lock_path: str) -> dict[str, Any]:
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise UsageError(f"{lock_path} does not read as TOML: {e}") from None
    servers = doc.get("server")
    return servers if isinstance(servers, dict) else {}


def _version(entry: Any) -> str | None:
    pkg = entry.get("package") if isinstance(entry, dict) else None
    v = pkg.get("version") if isinstance(pkg, dict) else None
    return v if isinstance(v, str) else None


def _without_version(entry: Any) -> Any:
    if not isinstance(entry, dict) or not isinstance(entry.get("package"), dict):
        return entry
    return {**entry, "package": {k: v for k, v in entry["package"].items() if k != "version"}}


def rows_of(selected: list[Any], versions: dict[str, Any]) -> list[Row]:
    """The rows `update` moves: each server from its base's version to the one Renovate wrote."""
    rows = []
    for s in selected:
        pin = s.spec.package
        before, after = versions[s.name]
        rows.append(Row(s.name, pin.registry if pin else None, pin.name if pin else None, before, after, "behind"))
    return rows


def refreshed_already(repo: gitrepo.Repo, base_sha: str, head_sha: str) -> str | None:
    """The commit on the branch that update-pr made (its trailer, its tree as made), if any: the
    branch is refreshed already (a push by Renovate replaces the whole branch)."""
    r = repo.git("rev-list", f"{base_sha}..{head_sha}", check=False)
    if r.returncode != 0:  # a history that cannot be walked (a shallow clone): the tip alone is judged
        return head_sha if gitrepo.made_by_update_pr(repo, head_sha) else None
    return next((c for c in r.stdout.split() if gitrepo.made_by_update_pr(repo, c)), None)


def prepare(lockfile: str, gh: GitHub, pr: PullHead, *, policy: str | None = None) -> tuple[Prepared, Pending] | str:
    """The branch's changed pins, screened, ready to build (Prepared: the branch's head is the
    commit the worktree starts from), or why there is nothing to do."""
    from mcplock.core.screening import screen_rows
    from mcplock.lock.read import loads
    from mcplock.lock.targets import select

    lock_dir = os.path.dirname(os.path.abspath(lockfile))
    repo = gitrepo.open_repo(lock_dir, secrets=gh.secrets, token=gh.secrets[0], detached=True)
    rel = os.path.relpath(os.path.realpath(os.path.abspath(lockfile)), os.path.realpath(repo.root)).replace(os.sep, "/")
    base_sha = gitrepo.fetch(repo, pr.base)
    head_sha = gitrepo.fetch(repo, pr.head)
    mine = refreshed_already(repo, base_sha, head_sha)
    if mine is not None:
        return f"already refreshed by mcplock (commit {mine[:12]}): nothing to do"
    base_text, head_text = gitrepo.show(repo, base_sha, rel), gitrepo.show(repo, head_sha, rel)
    if base_text is None or head_text is None:
        return f"{rel} is not on both `{pr.base}` and `{pr.head}`: nothing to do"
    signed_as_pushed(repo, base_sha, rel, base_text, policy)  # the reviewed lock, as the default branch has it
    versions = changed_pins(base_text, head_text, rel)
    if not versions:
        return f"the branch moves no package pin in {rel}: nothing to do"
    lock = loads(head_text, rel)
    selected = select(lock, list(versions))
    rows = rows_of(selected, dict(versions))
    screen_rows(rows, 0.0)  # Renovate waited its minimumReleaseAge; malware, yanked, deprecated still refuse
    prep = Prepared(repo, pr.head, head_sha, rel, lock, selected, rows, 0.0, {n: list(v) for n, v in versions.items()})
    return prep, Pending(pr.head, [r for r in rows if r.status == "behind"], [], head_sha)
