"""The calls of GitHub's REST API that `mcplock update-pr --renovate` adds to :mod:`.github`
(docs/updates.md, "Renovate"): one pull request as GitHub has it, and mcplock's comment on it —
posted once, then edited in place, so a pull request refreshed again carries one comment.

- ``GET /repos/{owner}/{repo}/pulls/{number}``: its head (branch, commit, repository) and base;
- ``GET /repos/{owner}/{repo}/issues/{number}/comments``: the comment mcplock posted, found by
  the hidden marker its body starts with;
- ``POST /repos/{owner}/{repo}/issues/{number}/comments`` (201), or
  ``PATCH /repos/{owner}/{repo}/issues/comments/{id}``.

Failures are :class:`~mcplock.core.github.GitHubError`, as every call of :mod:`.github`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mcplock.core.github import GitHub
from mcplock.errors import UsageError


@dataclass(frozen=True)
class PullHead:
    number: int
    url: str
    state: str
    head: str  # the branch
    head_sha: str
    head_repo: str  # owner/name of the repository the branch is in (another one: a fork)
    base: str


def pull_request(gh: GitHub, number: int) -> PullHead:
    """Pull request ``number`` of the repository, as GitHub has it now."""
    path = f"{gh.repo_path()}/pulls/{number}"
    _, doc = gh.call("GET", path)
    head = doc.get("head") if isinstance(doc, dict) else None
    base = doc.get("base") if isinstance(doc, dict) else None
    if not isinstance(head, dict) or not isinstance(base, dict) or not isinstance(head.get("ref"), str):
        raise gh.shape(f"GET {path}", "a pull request without `head.ref` and `base.ref`")
    repo: dict[str, Any] = head["repo"] if isinstance(head.get("repo"), dict) else {}
    return PullHead(
        int(doc.get("number") or number),
        str(doc.get("html_url") or ""),
        str(doc.get("state") or "open"),
        head["ref"],
        str(head.get("sha") or ""),
        str(repo.get("full_name") or gh.repository),
        str(base.get("ref") or ""),
    )


def comment(gh: GitHub, number: int, body: str, marker: str) -> tuple[str, bool]:
    """``body`` (which starts with ``marker``) as mcplock's comment on ``number``: the comment
    that starts with ``marker`` edited, else a new one. Its URL, and whether it was edited."""
    base = gh.repo_path()
    path = f"{base}/issues/{number}/comments"
    _, doc = gh.call("GET", path, query={"per_page": "100"})
    if not isinstance(doc, list):
        raise gh.shape(f"GET {path}", "not a list of comments")
    mine = [c for c in doc if isinstance(c, dict) and str(c.get("body") or "").startswith(marker)]
    if mine and isinstance(mine[-1].get("id"), int):
        _, got = gh.call("PATCH", f"{base}/issues/comments/{mine[-1]['id']}", body={"body": body})
        return _url(got), True
    _, got = gh.call("POST", path, body={"body": body}, ok=(201,))
    return _url(got), False


def _url(doc: Any) -> str:
    return str(doc.get("html_url") or "") if isinstance(doc, dict) else ""


def event_pull_request(environ: Mapping[str, str] | None = None) -> int | None:
    """The pull request number of the event the workflow runs for (GITHUB_EVENT_PATH:
    ``pull_request.number``); None when it is not a pull request's event."""
    env = os.environ if environ is None else environ
    path = env.get("GITHUB_EVENT_PATH", "")
    if not path:
        return None
    try:
        with open(path, encoding="utf-8") as fh:
            doc = json.load(fh)
    except (OSError, ValueError) as e:
        raise UsageError(
            f"GITHUB_EVENT_PATH ({path}) does not read as the event's JSON: {e}",
            hint="run it in GitHub Actions, or pass --pull-request NUMBER",
        ) from None
    pr = doc.get("pull_request") if isinstance(doc, dict) else None
    number = pr.get("number") if isinstance(pr, dict) else None
    return number if isinstance(number, int) and not isinstance(number, bool) else None
