"""The bundled Action's `command: renovate` (issue 44, item 4; docs/updates.md, "Renovate"): the
hosted Renovate app runs no commands, so its pull request carries only the version line its regex
manager replaced. The Action, on that pull request's event, re-pins, probes and stages the release
(`mcplock update-pr --renovate`), pushes it to Renovate's branch and comments the report.

Run as a runner runs the composite action (its `run:` scripts, GITHUB_* set, GITHUB_EVENT_PATH a
pull_request event) on a repository whose branch holds exactly what Renovate's replacement writes
(the preset's own regex), against a real bare `origin`, the local PyPI index, the OSV stand-in and
the GitHub API stand-in (fixtures/github_api.py), which records the comment."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest
from osv_api import OsvApi
from test_formats_ci import _run_action
from update_pr_setup import SURFACES, TOKEN, git, server_wheel

pytestmark = pytest.mark.timeout(300)
ROOT = Path(__file__).resolve().parent.parent
PRESET = json.loads((ROOT / "renovate" / "mcplock.json").read_text())
BRANCH = "renovate/mcp-demo"
MARKER = "<!-- mcplock update-pr --renovate -->"


def renovate_pushes(version: str) -> str:
    """What Renovate pushes for ``version``: its branch made anew from main, one commit replacing
    the pin's version line (the preset's matchStrings, as Renovate's regex manager replaces
    `currentValue`); the checkout then detached, as actions/checkout leaves a pull request's."""
    git("switch", "--quiet", "-C", BRANCH, "main")
    text = Path("mcp.lock").read_text()
    [m] = list(re.finditer(PRESET["customManagers"][1]["matchStrings"][0].replace("(?<", "(?P<"), text))
    assert (m["depName"], m["packageName"]) == ("demo", "pin-demo")
    Path("mcp.lock").write_text(text[: m.start("currentValue")] + version + text[m.end("currentValue") :])
    git("-c", "user.name=renovate[bot]", "commit", "--quiet", "-am", f"Update MCP server demo to v{version}")
    git("push", "--quiet", "--force", "origin", BRANCH)
    git("switch", "--quiet", "--detach")
    return git("rev-parse", "HEAD")


def on_branch(origin: Path) -> dict:
    return tomllib.loads(git("show", f"{BRANCH}:mcp.lock", cwd=origin))["server"]["demo"]


def test_the_action_refreshes_renovates_pull_request_and_refuses_a_yanked_release(
    project, api, index, origin, tmp_path, monkeypatch
):
    index.publish(*server_wheel("2.0", SURFACES / "demo-rugpull.json"), uploaded="2025-03-01T12:00:00.000000Z")
    for f in index.projects["pin-demo"]["releases"]["2.0"]:
        f["yanked"], f["yanked_reason"] = True, "broke the search tool"
    renovated = renovate_pushes("2.0")
    api.pulls.append(
        {
            "number": 7,
            "state": "open",
            "title": "Update MCP server demo to v2.0",
            "body": "",
            "head": BRANCH,
            "base": "main",
        }
    )
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"action": "opened", "number": 7, "pull_request": {"number": 7}}))
    with OsvApi() as osv:
        env = {**project, **api.env(), **osv.env(), "CI": "true", "GITHUB_EVENT_PATH": str(event)}
        for k, v in {**env, "GITHUB_TOKEN": "a-servers-own-token", "GITHUB_EVENT_NAME": "pull_request"}.items():
            monkeypatch.setenv(k, v)

        # 1. a yanked release: refused, said in the comment, nothing pinned or pushed, the job fails
        code, outputs, summary, log = _run_action(tmp_path, command="renovate", **{"github-token": TOKEN})
        assert code == 1 and outputs["exit-code"] == "1", log
        assert git("rev-parse", BRANCH, cwd=origin) == renovated
        [c] = api.comments
        assert c["issue"] == 7 and c["body"].startswith(MARKER)
        assert "`pin-demo` 2.0 is refused" in c["body"] and "broke the search tool" in c["body"], c["body"]
        assert "do not merge this pull request" in c["body"]
        assert "broke the search tool" in summary and "screening refused" in log

        # 1b. the next release, which OSV reports as malware (the real MAL- record's shape, for this
        # fixture package): refused with OSV's words, the one comment edited, nothing pushed
        index.publish(*server_wheel("2.5", SURFACES / "demo.json"), uploaded="2025-03-15T12:00:00.000000Z")
        real = osv.records["MAL-2025-47604"]
        osv.records["MAL-2099-0001"] = {
            **real,
            "id": "MAL-2099-0001",
            "summary": "Malicious code in pin-demo (PyPI)",
            "affected": [{"package": {"ecosystem": "PyPI", "name": "pin-demo"}, "versions": ["2.5"]}],
        }
        renovated = renovate_pushes("2.5")
        code, outputs, summary, log = _run_action(tmp_path, command="renovate", **{"github-token": TOKEN})
        assert code == 1 and outputs["exit-code"] == "1", log
        assert git("rev-parse", BRANCH, cwd=origin) == renovated and "probing" not in log
        [c] = api.comments
        assert "`pin-demo` 2.5 is refused" in c["body"] and "as malware (MAL-2099-0001)" in c["body"], c["body"]
        assert "yanked" not in c["body"]  # the comment is the current one, not the first appended to

        # 2. Renovate proposes 3.0 instead (its branch pushed anew): re-pinned, moved, staged, pushed on
        # top of Renovate's commit; the one comment edited in place into the report
        sha = index.publish(
            *server_wheel("3.0", SURFACES / "demo-rugpull.json"), uploaded="2025-04-01T12:00:00.000000Z"
        )
        renovated = renovate_pushes("3.0")
        code, outputs, summary, log = _run_action(tmp_path, command="renovate", **{"github-token": TOKEN})
        assert code == 0 and outputs["exit-code"] == "0", log
        demo = on_branch(origin)
        assert demo["package"]["version"] == "3.0" and demo["package"]["integrity"] == sha
        assert demo["args"] == ["pin-demo==3.0"]  # the command line follows the pin
        assert demo["tool"]["search_docs"]["pending"]["change"] == "changed"  # staged, not accepted
        assert git("rev-parse", f"{BRANCH}~1", cwd=origin) == renovated  # on top of Renovate's, nothing lost
        assert "Mcplock-Update: demo@3.0" in git("log", "-1", "--format=%B", BRANCH, cwd=origin)
        [c] = api.comments
        body = c["body"]
        assert body.startswith(MARKER) and "is refused" not in body
        assert "| `demo` | pypi `pin-demo` | 1.0 | 3.0 |" in body  # from main's release to Renovate's
        assert len(api.calls("POST")) == 1 and len(api.calls("PATCH")) == 2  # one comment, edited twice
        assert f"git fetch origin {BRANCH}" in body and "mcplock accept demo" in body
        assert "Opened by" not in body and "Posted by <code>mcplock update-pr --renovate</code>" in body
        assert "refreshed #7" in log
        assert TOKEN not in log + summary + body + git("log", "--format=%B", BRANCH, cwd=origin)

        # 3. the event of mcplock's own push: nothing to do, nothing pushed or posted again
        tip, posts = git("rev-parse", BRANCH, cwd=origin), len(api.calls("POST")) + len(api.calls("PATCH"))
        code, outputs, _, log = _run_action(tmp_path, command="renovate", **{"github-token": TOKEN})
        assert code == 0 and "already refreshed" in log, log
        assert git("rev-parse", BRANCH, cwd=origin) == tip and len(api.calls("POST")) + len(api.calls("PATCH")) == posts

        # 4. another pull request's branch: left alone
        api.pulls.append({"number": 8, "state": "open", "title": "t", "body": "", "head": "feature", "base": "main"})
        event.write_text(json.dumps({"action": "opened", "number": 8, "pull_request": {"number": 8}}))
        code, outputs, _, log = _run_action(tmp_path, command="renovate", **{"github-token": TOKEN})
        assert code == 0 and "is not Renovate's (`renovate/…`): nothing to do" in log, log

        # 5. a Renovate-named branch that changes more than the version (here: what the server runs):
        # refused before anything runs, exit 2, nothing pushed or posted
        git("switch", "--quiet", "-C", "renovate/mcp-evil", "main")
        Path("mcp.lock").write_text(
            Path("mcp.lock").read_text().replace('"pin-demo==1.0"', '"pin-demo==1.0", "--evil"')
        )
        git("commit", "--quiet", "-am", "Update MCP server demo")
        git("push", "--quiet", "origin", "renovate/mcp-evil")
        git("switch", "--quiet", "--detach")
        api.pulls.append(
            {"number": 9, "state": "open", "title": "t", "body": "", "head": "renovate/mcp-evil", "base": "main"}
        )
        event.write_text(json.dumps({"action": "opened", "number": 9, "pull_request": {"number": 9}}))
        code, outputs, _, log = _run_action(tmp_path, command="renovate", **{"github-token": TOKEN})
        assert code == 2 and outputs["exit-code"] == "2", log
        assert "changes more of `demo` in mcp.lock than the package version" in " ".join(log.split()), log
        assert [c["issue"] for c in api.comments] == [7] and "probing" not in log


def test_the_documented_workflow_uses_the_actions_inputs():
    """docs/updates.md's Renovate workflow: `command: renovate`, every `with:` key an input of action.yml."""
    import yaml

    text = (ROOT / "docs" / "updates.md").read_text()
    section = text[text.index("## Renovate") : text.index("## Permissions")]
    [block] = [b for b in re.findall(r"```yaml\n(.*?)```", section, re.S) if "command: renovate" in b]
    inputs = set(yaml.safe_load((ROOT / "action.yml").read_text())["inputs"])
    steps = yaml.safe_load(re.sub(r"(?m)^  ", "", block))["jobs"]["mcplock-renovate"]["steps"]
    [step] = [s for s in steps if "mcplock@" in s.get("uses", "")]
    assert step["with"]["command"] == "renovate" and set(step["with"]) <= inputs
    assert "gh pr comment" not in section and "git push" not in section  # no hand-written refresh left


def test_renovate_outside_a_pull_request_or_with_other_choices_is_a_clear_error(cli, api):
    r = cli("update-pr", "--renovate", env={**api.env(), "GITHUB_EVENT_PATH": ""})
    said = " ".join(r.stderr.split())
    assert r.returncode == 2 and "--renovate works on a pull request" in said and "--pull-request NUMBER" in said, said
    r = cli("update-pr", "--renovate", "--group", "--server", "demo", env=api.env())
    said = " ".join(r.stderr.split())
    assert r.returncode == 2 and "--renovate does not go with --server, --group" in said, said
    assert "Traceback" not in r.stderr and api.calls("POST") == []
