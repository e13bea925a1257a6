"""The few calls of GitHub's REST API that `mcplock update-pr` makes, configured as Actions sets
it up: ``GITHUB_API_URL`` (default ``https://api.github.com``), ``GITHUB_REPOSITORY``
(``owner/name``), ``GITHUB_TOKEN`` (``MCPLOCK_GITHUB_TOKEN`` first, when set).

- ``GET /repos/{owner}/{repo}``: the default branch the pull requests go to;
- ``GET /repos/{owner}/{repo}/pulls?head=owner:branch&state=open|closed``: the pull request a
  branch already has (never a second one for the same branch);
- ``POST /repos/{owner}/{repo}/pulls``: open one (a 422 "A pull request already exists" is told
  apart, so a race with another run updates the open one instead);
- ``PATCH /repos/{owner}/{repo}/pulls/{number}``: a new title and body when the upstream moved again.

Every failure is a :class:`GitHubError` naming the call (method, path, status and GitHub's own
``message``): 401/403/404/422 are exit 2 (the token, its rights or the request must change),
an unreachable API, a 5xx or an answer that is not the JSON GitHub documents are exit 3. The
token is sent only in the ``Authorization`` header and never appears in a message.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlencode

from mcplock.errors import McplockError, UsageError

DEFAULT_API = "https://api.github.com"
TIMEOUT = 30.0
_REPO = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")


class GitHubError(McplockError):
    code = "github"

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        hint: str | None = None,
        exit_code: int = 3,
        code: str | None = None,
    ) -> None:
        super().__init__(message, hint=hint, code=code)
        self.status = status
        self.exit_code = exit_code


@dataclass
class PullRequest:
    number: int
    url: str  # html_url, what a person opens
    head: str  # the branch
    state: str  # "open" | "closed"
    merged: bool
    body: str
    title: str


_RIGHTS = (
    "the token needs `contents: write` and `pull-requests: write` (workflow `permissions:`); on GitHub "
    "also allow Actions to create pull requests (Settings → Actions → General → Workflow permissions)"
)


class GitHub:
    def __init__(self, api_url: str, repository: str, token: str) -> None:
        self.api_url = api_url.rstrip("/")
        self.repository = repository
        self.owner = repository.split("/", 1)[0]
        self._token = token
        self._client: Any = None

    @classmethod
    def from_env(
        cls, environ: Mapping[str, str] | None = None, *, need_token: bool = True, origin_url: str | None = None
    ) -> GitHub | None:
        """The API as Actions configures it; None when ``need_token`` is false and no token or
        repository is set (a dry run on a workstation). Without GITHUB_REPOSITORY (and
        GITHUB_API_URL), an ``origin_url`` on github.com names the repository. A missing or
        malformed setting is a UsageError (exit 2)."""
        env = os.environ if environ is None else environ
        repo = _repository(env, origin_url)
        # mcplock's own name first: the Action passes the API token there, so that a locked
        # server's `${GITHUB_TOKEN}` (a GitHub MCP server's own token) is not the bot's
        token = (env.get("MCPLOCK_GITHUB_TOKEN", "") or env.get("GITHUB_TOKEN", "")).strip()
        if not need_token and not (repo and token):
            return None
        _check_repository(repo)
        if not token:
            raise UsageError(
                "GITHUB_TOKEN is not set: update-pr opens pull requests through GitHub's API",
                hint="in a workflow pass `env: GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}` (or the "
                "action's `github-token` input); " + _RIGHTS,
            )
        return cls(_api_url(env), repo, token)

    @property
    def secrets(self) -> tuple[str, ...]:
        return (self._token,)

    # --- the transport ---------------------------------------------------------------------

    def call(
        self,
        method: str,
        path: str,
        *,
        query: dict[str, str] | None = None,
        body: dict[str, Any] | None = None,
        ok: tuple[int, ...] = (200,),
    ) -> tuple[int, Any]:
        """One request; its status and decoded JSON. A status outside ``ok`` is a GitHubError
        naming the call."""
        import httpx2

        shown = path + (f"?{urlencode(query)}" if query else "")
        what = f"{method} {shown}"
        try:
            r = self._http().request(method, self.api_url + path, params=query, json=body)
        except httpx2.HTTPError as e:
            raise GitHubError(
                f"{what}: cannot reach {self._safe(self.api_url)} ({self._safe(str(e))})",
                hint="check the network and GITHUB_API_URL, then run `mcplock update-pr` again",
            ) from None
        doc = _decoded(r)
        if r.status_code not in ok:
            raise self._failure(what, r.status_code, doc)
        if doc is _NOT_JSON:
            raise GitHubError(
                f"{what} answered {r.status_code} with something that is not JSON ({self._safe(r.text[:80])!r}…)",
                hint="is GITHUB_API_URL GitHub's REST API? Nothing more was pushed or opened",
            )
        return r.status_code, doc

    def _http(self) -> Any:
        """The HTTP client of the API, made on first use (the token, when there is one, as a bearer)."""
        import httpx2

        if self._client is None:
            headers = {
                "Accept": "application/vnd.github+json",
                "X-GitHub-Api-Version": "2022-11-28",
                "User-Agent": "mcplock-update-pr",
            }
            if self._token:
                headers["Authorization"] = f"Bearer {self._token}"
            self._client = httpx2.Client(timeout=TIMEOUT, follow_redirects=False, headers=headers)
        return self._client

    def _safe(self, text: str) -> str:
        from mcplock.text.untrusted import sanitize

        return sanitize(text.replace(self._token, "***") if self._token else text, 300)

    def _failure(self, what: str, status: int, doc: Any) -> GitHubError:
        said = _said(doc)
        said = self._safe(said) if said else "no message"
        msg = f"{what} → {status}: {said}"
        if status == 401:
            return GitHubError(
                msg,
                status=status,
                exit_code=2,
                code="github-unauthorized",
                hint="GITHUB_TOKEN was refused: set a valid token; " + _RIGHTS,
            )
        if status == 403:
            return GitHubError(msg, status=status, exit_code=2, code="github-forbidden", hint=_RIGHTS)
        if status == 404:
            return GitHubError(
                msg,
                status=status,
                exit_code=2,
                code="github-not-found",
                hint=f"check GITHUB_REPOSITORY ({self.repository}) and that the token can see it",
            )
        if status == 422:
            return GitHubError(msg, status=status, exit_code=2, code="github-unprocessable")
        return GitHubError(msg, status=status, hint="GitHub could not answer; run `mcplock update-pr` again later")

    def shape(self, what: str, problem: str) -> GitHubError:
        return GitHubError(
            f"{what}: the answer is not what GitHub's API documents ({problem})",
            hint="is GITHUB_API_URL GitHub's REST API? Nothing more was pushed or opened",
        )

    # --- the calls -------------------------------------------------------------------------

    def repo_path(self) -> str:
        owner, name = self.repository.split("/", 1)
        return f"/repos/{quote(owner, safe='')}/{quote(name, safe='')}"

    def default_branch(self) -> str:
        path = self.repo_path()
        _, doc = self.call("GET", path)
        branch = doc.get("default_branch") if isinstance(doc, dict) else None
        if not isinstance(branch, str) or not _usable_branch(branch):
            raise self.shape(f"GET {path}", "no usable `default_branch`")
        return branch

    def _pull(self, what: str, doc: Any) -> PullRequest:
        if not isinstance(doc, dict):
            raise self.shape(what, "a pull request is not an object")
        number, url = doc.get("number"), doc.get("html_url")
        head: dict[str, Any] = doc["head"] if isinstance(doc.get("head"), dict) else {}
        if not isinstance(number, int) or isinstance(number, bool) or not isinstance(url, str):
            raise self.shape(what, "a pull request without `number` or `html_url`")
        return PullRequest(
            number,
            url,
            str(head.get("ref") or ""),
            str(doc.get("state") or "open"),
            bool(doc.get("merged_at")),
            _text(doc, "body"),
            _text(doc, "title"),
        )

    def pulls(self, branch: str, state: str = "open") -> list[PullRequest]:
        """The pull requests whose head is ``branch`` of this repository."""
        path = f"{self.repo_path()}/pulls"
        query = {"head": f"{self.owner}:{branch}", "state": state, "per_page": "100"}
        _, doc = self.call("GET", path, query=query)
        what = f"GET {path}?{urlencode(query)}"
        if not isinstance(doc, list):
            raise self.shape(what, "not a list of pull requests")
        return [self._pull(what, d) for d in doc if self._heads(d, branch)]

    def _heads(self, doc: Any, branch: str) -> bool:
        """Whether a listed pull request's head is ``branch`` of this repository, as its own
        fields say: ``head.ref`` the branch, and ``head.label`` (when given) ``owner:branch``. A
        listing that does not say (no ``head.ref``) names no branch of ours: never pushed over."""
        head = doc.get("head") if isinstance(doc, dict) else None
        if not isinstance(head, dict) or head.get("ref") != branch:
            return False
        label = head.get("label")
        return label is None or label == f"{self.owner}:{branch}"

    def create_pull(self, branch: str, base: str, title: str, body: str) -> PullRequest | None:
        """Open a pull request; None when GitHub says one already exists for the branch (422)."""
        path = f"{self.repo_path()}/pulls"
        try:
            _, doc = self.call(
                "POST",
                path,
                body={"title": title, "head": branch, "base": base, "body": body, "maintainer_can_modify": True},
                ok=(201,),
            )
        except GitHubError as e:
            if e.status == 422 and "already exists" in e.message:
                return None
            raise
        return self._pull(f"POST {path}", doc)

    def update_pull(self, number: int, title: str, body: str) -> PullRequest:
        path = f"{self.repo_path()}/pulls/{number}"
        _, doc = self.call("PATCH", path, body={"title": title, "body": body})
        return self._pull(f"PATCH {path}", doc)

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None


_NOT_JSON = object()


def _usable_branch(branch: str) -> bool:
    """Whether a branch name GitHub gave can be fetched as it is: not empty, none of the
    characters git refuses in a ref name, no ``..``."""
    return bool(branch) and not any(c in branch for c in " ~^:?*[\\") and ".." not in branch


def _decoded(r: Any) -> Any:
    """An answer's JSON (None for an empty body; ``_NOT_JSON`` when it is not JSON)."""
    try:
        return r.json() if r.content else None
    except ValueError:
        return _NOT_JSON


def _text(doc: dict[str, Any], key: str) -> str:
    """A string field of an answer; "" when it is missing or not a string."""
    value = doc.get(key)
    return value if isinstance(value, str) else ""


_ON_GITHUB = re.compile(
    r"(?:https://(?:[^/@]+@)?github\.com/|ssh://git@github\.com/|git@github\.com:)"
    r"([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+?)(?:\.git)?/?"
)


def repository_of(url: str) -> str:
    """``owner/name`` of a github.com remote URL (https, ssh), else ""."""
    m = _ON_GITHUB.fullmatch(url.strip())
    return m[1] if m else ""


def _repository(env: Mapping[str, str], origin_url: str | None) -> str:
    """OWNER/NAME: GITHUB_REPOSITORY, else (no GITHUB_API_URL set) the github.com repository
    ``origin_url`` names; "" when neither says."""
    repo = env.get("GITHUB_REPOSITORY", "").strip()
    if repo or not origin_url or env.get("GITHUB_API_URL"):
        return repo
    return repository_of(origin_url)


def _api_url(env: Mapping[str, str]) -> str:
    """GITHUB_API_URL (an http(s) URL), or github.com's API when it is unset."""
    api = env.get("GITHUB_API_URL", "").strip() or DEFAULT_API
    if not re.match(r"https?://", api):
        raise UsageError(
            f"GITHUB_API_URL must be an http(s) URL, not {api!r}", hint=f"leave it unset for {DEFAULT_API}"
        )
    return api


def _check_repository(repo: str) -> None:
    """``GITHUB_REPOSITORY``: set, and ``owner/name``."""
    if not repo:
        raise UsageError(
            "GITHUB_REPOSITORY is not set: update-pr needs the repository (`owner/name`) the pull requests go to",
            hint="GitHub Actions sets it; elsewhere `export GITHUB_REPOSITORY=owner/name`",
        )
    if not _REPO.fullmatch(repo):
        raise UsageError(
            f"GITHUB_REPOSITORY must be `owner/name`, not {repo!r}",
            hint="set it to the repository the pull requests go to, e.g. `octo-org/app`",
        )


def _said(doc: Any) -> str:
    """What GitHub's error document says: its ``message``, with each of its ``errors``' own."""
    if not isinstance(doc, dict) or not isinstance(doc.get("message"), str):
        return ""
    said = str(doc["message"])
    more = _error_messages(doc.get("errors"))
    return said + (" (" + "; ".join(more) + ")" if more else "")


def _error_messages(errors: Any) -> list[str]:
    """The ``message`` of each of an error document's ``errors`` that has one."""
    if not isinstance(errors, list):
        return []
    return [str(e["message"]) for e in errors if isinstance(e, dict) and isinstance(e.get("message"), str)]
