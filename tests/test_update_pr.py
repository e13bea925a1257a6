"""`mcplock update-pr` against a real bare `origin` (git) and a local stand-in for GitHub's REST
API (fixtures/github_api.py, real HTTP on 127.0.0.1), with a server pinned from a local PyPI
index (fixtures/pypi_index.py) whose releases 2.0 and 3.0 change its definitions: the branch and
its pull request, idempotence, an upstream that moves again, and every bad input refused with
nothing pushed. The same against the real npm registry: tests/test_update_pr_npm.py."""

from __future__ import annotations

import json
import os
import subprocess
import tomllib
from pathlib import Path

import pytest
from github_api import GitHubApi
from setupcache import locked
from update_pr_setup import BRANCH, FIXTURES, SURFACES, TOKEN, git, pin_on, server_wheel

pytestmark = pytest.mark.timeout(300)


def untouched(head: str) -> None:
    """The user's checkout as it was: the same branch and commit, nothing changed, no worktree left."""
    assert git("symbolic-ref", "--short", "HEAD") == "main"
    assert git("rev-parse", "HEAD") == head
    assert git("status", "--porcelain") == ""
    assert len(git("worktree", "list").splitlines()) == 1


def test_a_pull_request_per_outdated_server_then_nothing_twice_then_updated_in_place(cli, project, api, index, origin):
    env = {**project, **api.env()}
    head = git("rev-parse", "HEAD")
    main_before = git("rev-parse", "main", cwd=origin)

    # nothing outdated: exit 0, nothing pushed or opened
    r = cli("update-pr", env=env, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "nothing outdated" in r.stdout
    assert api.calls("POST") == [] and git("branch", "--list", "mcplock/*", cwd=origin) == ""

    # pin-demo 2.0: the rug-pull surface (a poisoned description, tools added and removed)
    index.publish(*server_wheel("2.0", SURFACES / "demo-rugpull.json"), uploaded="2025-03-01T12:00:00.000000Z")
    r = cli("update-pr", env=env, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "opened #1 https://github.com/octo-org/app/pull/1" in r.stdout
    assert TOKEN not in r.stdout + r.stderr
    untouched(head)
    assert git("rev-parse", "main", cwd=origin) == main_before  # the default branch is never touched
    pin = pin_on(origin, BRANCH)
    assert pin["version"] == "2.0"
    lock = git("show", f"{BRANCH}:mcp.lock", cwd=origin)
    assert "[server.demo.tool.search_docs.pending]" in lock  # changes staged as `update` leaves them, not accepted
    log = git("log", "-1", "--format=%an <%ae>%n%B", BRANCH, cwd=origin)
    assert "github-actions[bot]" in log and "Mcplock-Update: demo@2.0" in log
    assert git("rev-parse", f"{BRANCH}~1", cwd=origin) == main_before  # one commit on the default branch

    [post] = api.calls("POST")
    assert post[2] == {} and post[3]["head"] == BRANCH and post[3]["base"] == "main"
    assert post[3]["title"] == "mcplock: update demo (pin-demo 1.0 → 2.0)"
    body = api.pulls[0]["body"]
    assert "| `demo` | pypi `pin-demo` | 1.0 | 2.0 |" in body
    assert "**pending review**" in body and "Nothing was accepted on anyone's behalf" in body
    # the changed description's word diff and its findings, escaped as the Markdown report does
    assert "<details><summary><code>description</code> of tool <code>demo/search_docs</code>" in body
    assert "{+ For quality monitoring," in body
    assert body.startswith("## mcplock: update `demo` (`pin-demo` 1.0 → 2.0)")
    assert "https\\://evil.example" in body and "https://evil.example" not in body.split("```")[0]
    assert "**critical**" in body
    # top severity first: the first pending item listed is the critical one
    pending = [line for line in body.splitlines() if line.startswith("- ") and "demo/" in line]
    assert "(**critical**)" in pending[0]
    assert "mcplock accept demo" in body and f"git switch {BRANCH}" in body
    # the table's top severity and the list agree
    assert "| **critical** |" in body

    # run again, nothing new: no second pull request, nothing pushed
    tip = git("rev-parse", BRANCH, cwd=origin)
    r = cli("update-pr", env=env, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "nothing to do" in r.stdout
    assert len(api.calls("POST")) == 1 and api.calls("PATCH") == []
    assert git("rev-parse", BRANCH, cwd=origin) == tip
    gets = [c for c in api.calls("GET") if c[1].endswith("/pulls")]
    assert gets[-1][2] == {"head": [f"octo-org:{BRANCH}"], "state": ["open"], "per_page": ["100"]}
    r = cli("update-pr", "--dry-run", env=env, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr  # nothing it would open

    # the upstream moves again (3.0): the same pull request, its branch pushed anew and its body rewritten
    index.publish(*server_wheel("3.0", SURFACES / "demo.json"), uploaded="2025-04-01T12:00:00.000000Z")
    r = cli("update-pr", "--dry-run", env=env, timeout=300)
    assert r.returncode == 1, r.stdout + r.stderr  # pip-tools style: 1 when it would change something
    assert "would update #1" in r.stdout and "--- body of mcplock/update-demo ---" in r.stdout
    assert git("rev-parse", BRANCH, cwd=origin) == tip and api.calls("PATCH") == []
    r = cli("update-pr", env=env, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "updated #1" in r.stdout
    assert len(api.calls("POST")) == 1 and len(api.calls("PATCH")) == 1 and len(api.pulls) == 1
    assert pin_on(origin, BRANCH)["version"] == "3.0"
    assert git("rev-parse", f"{BRANCH}~1", cwd=origin) == main_before  # built on the default branch again
    assert "1.0 → 3.0" in api.pulls[0]["title"] and "| 1.0 | 3.0 |" in api.pulls[0]["body"]
    assert git("rev-parse", "main", cwd=origin) == main_before
    untouched(head)


def test_a_persons_commit_on_the_branch_is_kept_and_a_closed_pull_request_is_not_reopened(
    cli, project, api, index, origin, tmp_path
):
    env = {**project, **api.env()}
    index.publish(*server_wheel("2.0", SURFACES / "demo-rugpull.json"), uploaded="2025-03-01T12:00:00.000000Z")
    assert cli("update-pr", env=env, timeout=300).returncode == 0

    # the default branch moves on and a reviewer merges it into the branch ("Update branch"): a merge
    # brings nothing a rebuild would lose, so 3.0 rebuilds the branch on the new default branch
    other = tmp_path / "reviewer"
    git("clone", "--quiet", str(origin), str(other), cwd=tmp_path)
    (other / "README").write_text("hello\n")
    git("add", "README", cwd=other)
    git("commit", "--quiet", "-m", "readme", cwd=other)
    git("push", "--quiet", "origin", "main", cwd=other)
    git("switch", "--quiet", BRANCH, cwd=other)
    git("merge", "--quiet", "--no-ff", "-m", "Merge main", "origin/main", cwd=other)
    git("push", "--quiet", "origin", BRANCH, cwd=other)
    index.publish(*server_wheel("3.0", SURFACES / "demo.json"), uploaded="2025-04-01T12:00:00.000000Z")
    r = cli("update-pr", env=env, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "updated #1" in r.stdout and pin_on(origin, BRANCH)["version"] == "3.0"
    assert git("rev-parse", f"{BRANCH}~1", cwd=origin) == git("rev-parse", "main", cwd=origin)

    # a reviewer commits on the branch and pushes; then 4.0 arrives: their commit is kept
    git("fetch", "--quiet", "origin", cwd=other)
    git("reset", "--quiet", "--hard", f"origin/{BRANCH}", cwd=other)
    (other / "notes.txt").write_text("reviewed\n")
    git("add", "notes.txt", cwd=other)
    git("commit", "--quiet", "-m", "review notes", cwd=other)
    git("push", "--quiet", "origin", BRANCH, cwd=other)
    theirs = git("rev-parse", BRANCH, cwd=origin)
    index.publish(*server_wheel("4.0", SURFACES / "demo-rugpull.json"), uploaded="2025-05-01T12:00:00.000000Z")
    r = cli("update-pr", env=env, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "never overwritten" in r.stdout and theirs[:12] in r.stdout
    assert git("rev-parse", BRANCH, cwd=origin) == theirs and len(api.calls("PATCH")) == 1

    # the pull request is closed without merging and the branch deleted: the newer release is proposed afresh
    api.pulls[0]["state"] = "closed"
    git("push", "--quiet", "origin", "--delete", BRANCH, cwd=other)
    r = cli("update-pr", env=env, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "opened #2" in r.stdout and pin_on(origin, BRANCH)["version"] == "4.0"
    # closed again, the branch kept: that release was declined, it is not proposed again
    api.pulls[1]["state"] = "closed"
    r = cli("update-pr", env=env, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "closed without merging" in r.stdout and len(api.pulls) == 2


def test_a_token_that_cannot_open_pull_requests_leaves_the_branch_pushed_and_a_rerun_opens_it(
    cli, project, api, index, origin
):
    env = {**project, **api.env()}
    index.publish(*server_wheel("2.0", SURFACES / "demo-rugpull.json"), uploaded="2025-03-01T12:00:00.000000Z")
    api.read_only.add(TOKEN)
    r = cli("update-pr", env=env, timeout=300)
    assert r.returncode == 2, r.stdout + r.stderr
    err = " ".join(r.stderr.split())
    assert "POST /repos/octo-org/app/pulls → 403: Resource not accessible by integration" in err
    assert f"the branch `{BRANCH}` is pushed" in err and "run `mcplock update-pr` again" in err
    assert "pull-requests: write" in err and TOKEN not in r.stdout + r.stderr
    assert pin_on(origin, BRANCH)["version"] == "2.0" and api.pulls == []

    api.read_only.clear()
    r = cli("update-pr", env=env, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "opened #1" in r.stdout and len(api.pulls) == 1


def test_a_refused_push_opens_no_pull_request(cli, project, api, index, origin):
    hook = origin / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'protected: no pushes today' >&2\nexit 1\n")
    hook.chmod(0o755)
    index.publish(*server_wheel("2.0", SURFACES / "demo-rugpull.json"), uploaded="2025-03-01T12:00:00.000000Z")
    r = cli("update-pr", "--format", "json", env={**project, **api.env()}, timeout=300)
    assert r.returncode == 3, r.stdout + r.stderr
    doc = json.loads(r.stdout)
    assert doc["exit_code"] == 3 and doc["error"]["code"] == "push-failed"
    assert "git push origin mcplock/update-demo" in doc["error"]["message"]
    assert "protected: no pushes today" in doc["error"]["message"]
    assert api.calls("POST") == [] and git("branch", "--list", "mcplock/*", cwd=origin) == ""


def test_group_opens_one_pull_request_and_server_limits(cli, project, api, index, origin):
    env = {**project, **api.env()}
    index.publish(*server_wheel("2.0", SURFACES / "demo-rugpull.json"), uploaded="2025-03-01T12:00:00.000000Z")
    r = cli("update-pr", "--server", "nosuch", env=env, timeout=300)
    assert r.returncode == 2, r.stdout + r.stderr
    assert api.calls("POST") == []
    r = cli("update-pr", "--group", "--server", "demo", "--format", "json", env=env, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    [pr] = json.loads(r.stdout)["pull_requests"]
    assert pr["branch"] == "mcplock/update-all" and pr["action"] == "opened"
    assert pr["moves"] == [{"server": "demo", "registry": "pypi", "package": "pin-demo", "from": "1.0", "to": "2.0"}]
    assert pin_on(origin, "mcplock/update-all")["version"] == "2.0"


def test_a_server_added_from_the_mcp_registry_follows_its_entry(cli, index, origin, api, tmp_path):
    from mcp_registry import McpRegistry, pypi_package, server_json

    name = "io.github.acme/demo"
    index.publish(
        *server_wheel("2.0", SURFACES / "demo-rugpull.json", claims=name), uploaded="2025-03-01T12:00:00.000000Z"
    )
    index.publish(*server_wheel("1.5", SURFACES / "demo.json", claims=name), uploaded="2025-02-15T12:00:00.000000Z")
    with McpRegistry() as reg:
        reg.publish(server_json(name, "1.5.0", packages=[pypi_package("pin-demo", "1.5")]))
        env = {
            "MCPLOCK_PYPI_URL": index.url,
            "MCPLOCK_CACHE_DIR": str(tmp_path / "cache"),
            "MCPLOCK_REGISTRY_URL": reg.url,
            **api.env(),
        }
        r = cli("add", name, "--yes", env=env, timeout=300)
        assert r.returncode == 0, r.stdout + r.stderr
        git("init", "--quiet", "-b", "main")
        git("remote", "add", "origin", str(origin))
        git("add", "mcp.lock")
        git("commit", "--quiet", "-m", "lock")
        git("push", "--quiet", "origin", "main")
        reg.publish(server_json(name, "2.0.0", packages=[pypi_package("pin-demo", "2.0")]))
        r = cli("update-pr", env=env, timeout=300)
        assert r.returncode == 0, r.stdout + r.stderr
        on_branch = tomllib.loads(git("show", f"{BRANCH}:mcp.lock", cwd=origin))["server"]["demo"]
        assert on_branch["registry"]["version"] == "2.0.0" and on_branch["package"]["version"] == "2.0"
        assert on_branch["args"][-1] == "pin-demo==2.0"  # the entry's command line, naming the pinned release
        body = api.pulls[0]["body"]
        link = f"{reg.url}/v0.1/servers/io.github.acme%2Fdemo/versions/2.0.0"
        assert f"| 1.5.0 | [2.0.0]({link}) |" in body
        r = cli("update-pr", env=env, timeout=300)
        assert r.returncode == 0, r.stdout + r.stderr
        assert "nothing to do" in r.stdout and len(api.calls("POST")) == 1


# --- bad input: a clear error, nothing pushed or opened ----------------------------------------------


@pytest.fixture
def local_project(cli, origin):
    """A lock with a local server (no registry pin), committed and pushed."""
    locked(("add", "local", "--yes", "--", "python3", str(FIXTURES / "mcp_fixture.py"), "stdio"), inputs=())
    git("init", "--quiet", "-b", "main")
    git("remote", "add", "origin", str(origin))
    git("add", "mcp.lock")
    git("commit", "--quiet", "-m", "lock")
    git("push", "--quiet", "origin", "main")


@pytest.mark.parametrize(
    "setup, code, words",
    [
        ("no-origin", 2, "no remote named `origin`"),
        ("dirty", 2, "uncommitted changes (mcp.lock)"),
        ("detached", 2, "HEAD is detached"),
        ("no-token", 2, "GITHUB_TOKEN is not set"),
        ("bad-token", 2, "GET /repos/octo-org/app → 401: Bad credentials"),
        ("garbage", 3, "GET /repos/octo-org/app answered 200 with something that is not JSON"),
        ("wrong-shape", 3, "no usable `default_branch`"),
        ("not-a-repo", 2, "is not in a git repository"),
    ],
)
def test_bad_input_is_a_clear_error_and_nothing_is_pushed(cli, local_project, api, origin, setup, code, words):
    env = api.env()
    if setup == "no-origin":
        git("remote", "remove", "origin")
    elif setup == "dirty":
        Path("mcp.lock").write_text(Path("mcp.lock").read_text() + "\n")
    elif setup == "detached":
        git("checkout", "--quiet", "--detach")
    elif setup == "no-token":
        env = {**env, "GITHUB_TOKEN": ""}
    elif setup == "bad-token":
        env = {**env, "GITHUB_TOKEN": "ghp_wrongtoken5678"}
    elif setup == "garbage":
        api.garbage = True
    elif setup == "wrong-shape":
        api.wrong_shape = True
    elif setup == "not-a-repo":
        os.rename(".git", "git-moved")
    r = cli("update-pr", env=env)
    assert r.returncode == code, r.stdout + r.stderr
    assert words in " ".join(r.stderr.split())
    assert "Traceback" not in r.stderr and "hint:" in r.stderr
    assert env["GITHUB_TOKEN"] not in r.stdout + r.stderr or not env["GITHUB_TOKEN"]
    assert api.calls("POST") == [] and api.calls("PATCH") == []
    assert git("branch", "--list", "mcplock/*", cwd=origin) == ""


def test_nothing_outdated_opens_nothing(cli, local_project, api, origin):
    r = cli("update-pr", env=api.env())
    assert r.returncode == 0, r.stdout + r.stderr
    assert "nothing outdated" in r.stdout
    assert [c[1] for c in api.calls()] == ["/repos/octo-org/app"]  # the default branch, nothing else
    r = cli("update-pr", "--dry-run")  # no token: a dry run still reads what it can
    assert r.returncode == 0, r.stdout + r.stderr


# --- the client and the body, directly -----------------------------------------------------------------


def test_the_client_tells_a_duplicate_from_a_failure():
    with GitHubApi("octo-org/app", token=TOKEN) as api:
        client_calls(api)


def client_calls(api: GitHubApi) -> None:
    from mcplock.core.github import GitHub, GitHubError

    gh = GitHub(api.url, "octo-org/app", TOKEN)
    assert gh.default_branch() == "main"
    pr = gh.create_pull(BRANCH, "main", "t", "b")
    assert pr is not None and pr.number == 1 and pr.url.endswith("/pull/1")
    assert gh.create_pull(BRANCH, "main", "t", "b") is None  # 422 "A pull request already exists"
    assert [p.number for p in gh.pulls(BRANCH)] == [1] and gh.pulls("other") == []
    with pytest.raises(GitHubError) as e:
        gh.create_pull(BRANCH, "main", "t", "x" * 70000)
    assert e.value.exit_code == 2 and "body is too long" in e.value.message
    gh.close()
    with pytest.raises(GitHubError) as e:
        GitHub(api.url, "octo-org/app", "").default_branch()
    assert e.value.exit_code == 2 and "401: Requires authentication" in e.value.message


def test_a_body_over_githubs_limit_is_cut_cleanly():
    from mcplock.render.update_pr import CUT_NOTE, LIMIT, fit

    head = ["## head", "", "| a | b |"]
    sections: list[str] = []
    for i in range(400):
        sections += ["", f"<details><summary>item {i}</summary>", "", "```text", "word " * 60, "```", "", "</details>"]
    tail = ["", "### Review it", "mcplock accept demo"]
    out = fit(head, sections, tail)
    assert len(out) <= LIMIT and CUT_NOTE in out
    assert out.startswith("## head") and out.rstrip().endswith("mcplock accept demo")
    before_note = out.split(CUT_NOTE)[0]
    assert before_note.count("```") % 2 == 0  # no code block left open
    assert before_note.count("<details>") == before_note.count("</details>")
    small = fit(head, sections[:8], tail)
    assert CUT_NOTE not in small and small.count("<details>") == 1


def test_the_bundled_action_runs_update_pr(project, api, index, origin, tmp_path, monkeypatch):
    """action.yml's steps with `command: update-pr`: the API token from `github-token` (as
    MCPLOCK_GITHUB_TOKEN), while GITHUB_TOKEN stays what a locked server may need."""
    from test_formats_ci import _run_action

    for k, v in {**project, **api.env(), "GITHUB_TOKEN": "a-servers-own-token", "CI": "true"}.items():
        monkeypatch.setenv(k, v)
    index.publish(*server_wheel("2.0", SURFACES / "demo-rugpull.json"), uploaded="2025-03-01T12:00:00.000000Z")
    code, outputs, summary, log = _run_action(tmp_path, command="update-pr", **{"github-token": TOKEN})
    assert code == 0, log
    assert outputs["exit-code"] == "0"
    assert summary.startswith("## mcplock update-pr (exit 0)") and "opened #1" in summary
    assert len(api.pulls) == 1 and pin_on(origin, BRANCH)["version"] == "2.0"
    assert TOKEN not in log + summary


def test_branch_names_are_valid_refs_and_never_shared():
    from mcplock.core.update_pr import branch_for

    servers = ("memory", "my server", "my-server", "..x.lock", "a.lock.lock", "a.lock", "a", "ü/../@{x}", "")
    servers += ("a-b", "a b")
    names = [branch_for(s) for s in servers]  # each alone, as `--server NAME` runs it: no run-wide memory
    assert names[0] == "mcplock/update-memory" and names[2] == "mcplock/update-my-server"
    assert names[1].startswith("mcplock/update-my-server-") and len(set(names)) == len(names)
    for n in names:
        assert subprocess.run(["git", "check-ref-format", "--branch", n], capture_output=True).returncode == 0, n


def test_the_repository_is_read_from_a_github_origin():
    from mcplock.core.github import repository_of

    for url in (
        "https://github.com/octo-org/app.git",
        "https://x-access-token:t@github.com/octo-org/app",
        "git@github.com:octo-org/app.git",
        "ssh://git@github.com/octo-org/app.git",
    ):
        assert repository_of(url) == "octo-org/app", url
    for url in ("https://gitlab.com/octo-org/app.git", "https://github.com.evil/octo-org/app", "/srv/app.git"):
        assert repository_of(url) == "", url
