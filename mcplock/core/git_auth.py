"""Credentials of the git that `mcplock update-pr` runs (docs/updates.md, "Settings"): the token
handed to one git command through its environment only (never a file, never a command line), its
value blanked from every text shown, and a fetch or push that origin refused for its credentials
told apart from a remote that did not answer."""

from __future__ import annotations

import re
from collections.abc import Iterable

from mcplock.errors import McplockError


class GitError(McplockError):
    """A git command failed or the checkout is not fit to work from (exit 2; a push or fetch
    that the remote refused: exit 3)."""

    code = "git"

    def __init__(self, message: str, *, hint: str | None = None, exit_code: int = 2, code: str | None = None) -> None:
        super().__init__(message, hint=hint, code=code)
        self.exit_code = exit_code


_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/\s@]+@")


def scrub(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` without credentials: the user part of every URL, and each secret's value."""
    text = _USERINFO.sub(r"\1***@", text)
    for s in secrets:
        if s and len(s) >= 4:
            text = text.replace(s, "***")
    return text


def token_config(token: str) -> dict[str, str]:
    """git configuration, in the environment of one git command only (never a file, never its
    command line, which any process may read): the token as the HTTP authorization GitHub takes
    for a push or fetch over https (``x-access-token``), for a checkout made with
    ``persist-credentials: false``. Harmless for an ssh or a local origin (no HTTP)."""
    import base64

    basic = base64.b64encode(f"x-access-token:{token}".encode()).decode()
    return {
        "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": "http.extraheader",
        "GIT_CONFIG_VALUE_0": f"AUTHORIZATION: basic {basic}",
    }


# what git says when the server answered 401/403 (prompts are off: it cannot ask for a password)
_AUTH = re.compile(
    r"could not read (?:Username|Password)|Authentication failed|returned error: 40[13]|Invalid username or"
    r"|terminal prompts disabled|Permission to \S+ denied",
    re.I,
)


def credentials_refused(what: str, said: str, *, token: bool) -> GitError | None:
    """A fetch or push that origin refused for its credentials: exit 2, as GitHub's API's 401 and
    403 (a token or a setting a person must fix, not a remote that may answer next time).
    ``token``: mcplock gave git the token; else the checkout's own credentials, if any, were used."""
    if not _AUTH.search(said):
        return None
    if token:
        return GitError(
            f"origin refused the credentials for {what}: {said}",
            exit_code=2,
            code="git-unauthorized",
            hint="the token must be able to read and push this repository: in a workflow `permissions: "
            "contents: write` (a GitHub App or fine-grained token: Contents read and write on this "
            "repository); then run the command again",
        )
    return GitError(
        f"origin asked for credentials and none was given for {what}: {said}",
        exit_code=2,
        code="git-unauthorized",
        hint="give mcplock the token (MCPLOCK_GITHUB_TOKEN or GITHUB_TOKEN; with --push-only, which reads "
        "no token, a checkout that carries its own credentials: a credential helper, or actions/checkout "
        "without `persist-credentials: false`); then run the command again",
    )
