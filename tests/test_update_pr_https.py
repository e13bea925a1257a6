"""`update-pr` pushing to an https `origin` from a checkout that carries no credentials (what
actions/checkout leaves with `persist-credentials: false`): mcplock hands the token to each git
fetch and push itself (docs/updates.md, "Settings"). The origin is a real git server over TLS on
127.0.0.1 (fixtures/git_https.py: `git http-backend`, a certificate made for this run, trusted
through GIT_SSL_CAINFO) that takes only HTTP Basic `x-access-token:TOKEN`, as GitHub does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from git_https import GitHttps
from update_pr_setup import BRANCH, SURFACES, TOKEN, git, pin_on, server_wheel

pytestmark = pytest.mark.timeout(300)


def test_the_token_authenticates_fetch_and_push_and_is_never_written(cli, project, api, index, origin, tmp_path):
    with GitHttps(origin.parent, TOKEN) as srv:
        git("remote", "set-url", "origin", srv.url(origin.name))
        env = {**project, **api.env(), "GIT_SSL_CAINFO": str(srv.ca_file)}
        index.publish(*server_wheel("2.0", SURFACES / "demo-rugpull.json"), uploaded="2025-03-01T12:00:00.000000Z")

        r = cli("update-pr", env=env, timeout=300)
        assert r.returncode == 0, r.stdout + r.stderr
        assert "opened #1" in r.stdout
        assert pin_on(origin, BRANCH)["version"] == "2.0"  # the push arrived, over https
        pushes = [q for q in srv.requests if q[:2] == ("POST", f"/{origin.name}/git-receive-pack")]
        assert [q[3] for q in pushes] == ["x-access-token"]
        assert {q[3] for q in srv.requests if q[1].endswith("git-upload-pack")} == {"x-access-token"}  # fetches too

        # the token is nowhere it could be read or posted
        config = Path(".git/config").read_text()
        assert TOKEN not in config and "extraheader" not in config
        assert TOKEN not in r.stdout + r.stderr + json.dumps(api.requests[-1][3])
        assert TOKEN not in api.pulls[0]["body"] + git("log", "--format=%B", BRANCH, cwd=origin)

        # a token that may fetch but not push (no `contents: write`): the push refused, exit 2, said so
        srv.read_only = True
        before = git("for-each-ref", cwd=origin)
        index.publish(*server_wheel("3.0", SURFACES / "demo.json"), uploaded="2025-04-01T12:00:00.000000Z")
        r = cli("update-pr", env=env, timeout=300)
        said = r.stdout + r.stderr
        assert r.returncode == 2, said
        assert f"origin refused the credentials for `git push origin {BRANCH}`" in " ".join(said.split()), said
        assert TOKEN not in said and git("for-each-ref", cwd=origin) == before and len(api.pulls) == 1

        # a token origin refuses (one for another repository): a clear error, exit 2, nothing pushed
        srv.read_only = False
        srv.token = "ghs_anotherrepository99"
        r = cli("update-pr", env=env, timeout=300)
        said = r.stdout + r.stderr
        assert r.returncode == 2, said
        assert "origin refused the credentials" in " ".join(said.split()), said
        assert "contents: write" in said and "Traceback" not in said
        assert TOKEN not in said and git("for-each-ref", cwd=origin) == before

        # no token at all (--push-only asks GitHub nothing, so it has none): the same, said as such
        r = cli("update-pr", "--push-only", env={**project, "GIT_SSL_CAINFO": str(srv.ca_file)}, timeout=300)
        said = " ".join((r.stdout + r.stderr).split())
        assert r.returncode == 2, said
        assert "origin asked for credentials and none was given" in said, said
        assert git("for-each-ref", cwd=origin) == before
        assert TOKEN not in Path(".git/config").read_text()
