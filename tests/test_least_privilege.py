"""Least privilege for what mcplock launches: a minimal environment, and nothing that came
from a file runs before a person trusted it (CI runs the reviewed lock).

Real processes only: the "server" here is a small script that records the environment it
received and leaves a marker, then speaks MCP through the project's own fixture server.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import MCPLOCK
from runner import FIXTURE, SURFACES, http_fixture

CANARY = "canary-7f3e9b1c-do-not-leak"


@pytest.fixture(autouse=True)
def _secrets_around(monkeypatch):
    """A developer's terminal-less run (conftest clears CI) with secrets a server must not see."""
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", CANARY)
    monkeypatch.setenv("GITHUB_TOKEN", CANARY)
    monkeypatch.setenv("OTHER_SERVER_TOKEN", CANARY)


def _recorder(tmp_path: Path) -> Path:
    """A stdio server that writes its environment to env.json, touches `marker`, then serves
    the demo surface through the fixture server (exec, same pipes)."""
    script = tmp_path / "recorder.py"
    script.write_text(
        "import json, os, sys\n"
        "open('env.json', 'w').write(json.dumps(dict(os.environ)))\n"
        "open('marker', 'a').write('ran\\n')\n"
        f"os.execv(sys.executable, [sys.executable, {str(FIXTURE)!r}, 'stdio', '--surface', "
        f"{str(SURFACES / 'demo.json')!r}])\n",
        encoding="utf-8",
    )
    return script


def _config(cmd: list[str], **extra) -> None:
    Path(".mcp.json").write_text(
        json.dumps({"mcpServers": {"docs": {"command": cmd[0], "args": cmd[1:], **extra}}}), encoding="utf-8"
    )


# --- a minimal environment -------------------------------------------------------------------


def test_a_launched_server_gets_a_minimal_environment(cli, tmp_path):
    rec = _recorder(tmp_path)
    r = cli("add", "docs", "--yes", "--env", "API_KEY=${OTHER_SERVER_TOKEN}", "--", sys.executable, str(rec))
    assert r.returncode == 0, r.stderr
    env = json.loads(Path("env.json").read_text())
    assert "PATH" in env and "HOME" in env
    assert "AWS_SECRET_ACCESS_KEY" not in env and "GITHUB_TOKEN" not in env and "OTHER_SERVER_TOKEN" not in env
    assert env["API_KEY"] == CANARY  # what the spec names, expanded; nothing else
    assert CANARY not in json.dumps({k: v for k, v in env.items() if k != "API_KEY"})
    assert CANARY not in Path("mcp.lock").read_text()
    # the same rule on every later launch
    Path("env.json").unlink()
    assert cli("diff").returncode == 0
    env = json.loads(Path("env.json").read_text())
    assert "GITHUB_TOKEN" not in env and env["API_KEY"] == CANARY


def test_a_server_may_be_given_a_named_extra_variable(cli, tmp_path, monkeypatch):
    monkeypatch.setenv("NODE_EXTRA_CA_CERTS", "/etc/ssl/corp.pem")
    rec = _recorder(tmp_path)
    r = cli("add", "docs", "--yes", "--pass-env", "NODE_EXTRA_CA_CERTS", "--", sys.executable, str(rec))
    assert r.returncode == 0, r.stderr
    env = json.loads(Path("env.json").read_text())
    assert env["NODE_EXTRA_CA_CERTS"] == "/etc/ssl/corp.pem"
    assert "GITHUB_TOKEN" not in env
    assert "NODE_EXTRA_CA_CERTS" in Path("mcp.lock").read_text()  # the name, reviewable; never a value


def test_the_allowlist_keeps_credentials_out(cli, tmp_path, monkeypatch):
    """Package managers get what finds their caches and registries; anything that carries a
    credential (npm auth keys, a proxy or index URL with user:password@) stays behind."""
    monkeypatch.setenv("npm_config_cache", str(tmp_path / "npm-cache"))
    monkeypatch.setenv("NPM_CONFIG__AUTH", CANARY)
    monkeypatch.setenv("npm_config__authToken", CANARY)
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.corp.example:3128")
    monkeypatch.setenv("HTTP_PROXY", f"http://me:{CANARY}@proxy.corp.example:3128")
    monkeypatch.setenv("UV_INDEX_URL", f"https://token:{CANARY}@pypi.corp.example/simple")
    monkeypatch.setenv("LC_TIME", "C")
    rec = _recorder(tmp_path)
    assert cli("add", "docs", "--yes", "--", sys.executable, str(rec)).returncode == 0
    env = json.loads(Path("env.json").read_text())
    assert env["npm_config_cache"] == str(tmp_path / "npm-cache")
    assert env["HTTPS_PROXY"] == "http://proxy.corp.example:3128" and env["LC_TIME"] == "C"
    for gone in ("NPM_CONFIG__AUTH", "npm_config__authToken", "HTTP_PROXY", "UV_INDEX_URL"):
        assert gone not in env, gone
    assert CANARY not in json.dumps(env)


def test_pass_env_takes_a_name_never_a_value(cli, tmp_path):
    rec = _recorder(tmp_path)
    r = cli("add", "docs", "--yes", "--pass-env", f"API_KEY={CANARY}", "--", sys.executable, str(rec))
    assert r.returncode == 2 and "--pass-env takes a variable name" in r.stderr
    assert CANARY not in r.stdout + r.stderr
    assert not Path("marker").exists() and not Path("mcp.lock").exists()


def test_codex_env_vars_import_as_pass_env(cli, tmp_path, monkeypatch):
    monkeypatch.setenv("NODE_EXTRA_CA_CERTS", "/etc/ssl/corp.pem")
    rec = _recorder(tmp_path)
    Path(".codex").mkdir()
    Path(".codex/config.toml").write_text(
        f"[mcp_servers.docs]\ncommand = {json.dumps(sys.executable)}\nargs = [{json.dumps(str(rec))}]\n"
        'env_vars = ["NODE_EXTRA_CA_CERTS"]\n',
        encoding="utf-8",
    )
    r = cli("init")
    assert r.returncode == 2 and "NODE_EXTRA_CA_CERTS" in r.stderr  # the names it would receive are shown
    assert cli("init", "--trust", "--yes").returncode == 0  # --yes: accept the tools too, for check
    env = json.loads(Path("env.json").read_text())
    assert env["NODE_EXTRA_CA_CERTS"] == "/etc/ssl/corp.pem" and "GITHUB_TOKEN" not in env
    assert 'pass-env = ["NODE_EXTRA_CA_CERTS"]' in Path("mcp.lock").read_text()
    assert cli("check").returncode == 0  # in sync with the config it came from


# --- trust before the first launch -------------------------------------------------------------


def test_init_runs_nothing_from_a_config_until_trusted(cli, tmp_path):
    rec = _recorder(tmp_path)
    _config([sys.executable, str(rec)])
    r = cli("init")
    assert r.returncode == 2, r.stdout + r.stderr
    assert not Path("marker").exists(), "a command from a cloned config ran before anyone trusted it"
    assert str(rec) in r.stderr  # shows exactly what would run
    assert "mcplock init --trust" in r.stderr
    assert not Path("mcp.lock").exists()
    r = cli("init", "--trust")
    assert r.returncode == 0, r.stderr
    assert Path("marker").exists()


def test_yes_answers_the_trust_question_too(cli, tmp_path):
    """--yes answers every question, the trust question included (the issue says so)."""
    rec = _recorder(tmp_path)
    _config([sys.executable, str(rec)])
    r = cli("init", "--yes")
    assert r.returncode == 0, r.stderr
    assert Path("marker").exists()


def test_add_from_a_config_needs_trust_too(cli, tmp_path):
    rec = _recorder(tmp_path)
    _config([sys.executable, str(rec)])
    r = cli("add", "--from", ".mcp.json")
    assert r.returncode == 2 and not Path("marker").exists()
    assert "--trust" in r.stderr and str(rec) in r.stderr
    assert cli("add", "--from", ".mcp.json", "--trust").returncode == 0
    assert Path("marker").read_text() == "ran\n"
    # --yes consents as well: a second config's server, never trusted, runs under --yes alone
    Path(".mcp.json").write_text(
        json.dumps({"mcpServers": {"more": {"command": sys.executable, "args": [str(rec), "more"]}}})
    )
    assert cli("add", "--from", ".mcp.json").returncode == 2
    assert Path("marker").read_text() == "ran\n"
    assert cli("add", "--from", ".mcp.json", "--yes").returncode == 0
    assert Path("marker").read_text() == "ran\nran\n"


def test_a_secret_bearing_url_from_a_config_needs_trust(cli):
    with http_fixture(surface=SURFACES / "demo.json") as url:
        Path(".mcp.json").write_text(
            json.dumps(
                {
                    "mcpServers": {
                        "docs": {
                            "type": "http",
                            "url": url + "/mcp",
                            "headers": {"X-Api-Key": "${AWS_SECRET_ACCESS_KEY}"},
                        }
                    }
                }
            )
        )
        r = cli("init")
        assert r.returncode == 2, r.stderr
        assert "AWS_SECRET_ACCESS_KEY" in r.stderr and url in r.stderr
        assert CANARY not in r.stdout + r.stderr
        assert not Path("mcp.lock").exists()
        r = cli("init", "--trust")
        assert r.returncode == 0, r.stderr
        Path("mcp.lock").unlink()
        r = cli("init", "--yes", env={"MCPLOCK_CONFIG_DIR": str(Path("..", "fresh-user").resolve())})
        assert r.returncode == 0, r.stderr  # --yes consents too (a user with no trust record yet)


def test_a_command_typed_on_the_command_line_is_trusted_by_typing_it(cli, tmp_path):
    rec = _recorder(tmp_path)
    assert cli("add", "docs", "--yes", "--", sys.executable, str(rec)).returncode == 0
    assert Path("marker").read_text().count("ran") == 1
    assert cli("diff").returncode == 0
    assert Path("marker").read_text().count("ran") == 2


def _pulled_change(cli, tmp_path) -> Path:
    """Lock a server, then change its command the way a pulled commit would."""
    rec = _recorder(tmp_path)
    assert cli("add", "docs", "--yes", "--", sys.executable, str(rec)).returncode == 0
    other = tmp_path / "other.py"
    other.write_text(rec.read_text().replace("'ran\\n'", "'pulled\\n'"), encoding="utf-8")
    text = Path("mcp.lock").read_text()
    Path("mcp.lock").write_text(text.replace(str(rec), str(other)))
    Path("marker").unlink()
    return other


def test_a_pulled_change_to_a_command_is_held_until_trusted(cli, tmp_path):
    other = _pulled_change(cli, tmp_path)
    for cmd in (("diff",), ("refresh",)):
        r = cli(*cmd)
        assert r.returncode == 2, (cmd, r.stdout, r.stderr)
        assert not Path("marker").exists()
        assert str(other) in r.stderr and "mcplock trust docs" in r.stderr
    r = cli("trust", "docs")
    assert r.returncode == 0, r.stderr
    assert not Path("marker").exists()  # trusting runs nothing
    assert cli("diff").returncode == 0
    assert Path("marker").read_text() == "pulled\n"


def test_ci_runs_the_reviewed_lock(cli, tmp_path):
    _pulled_change(cli, tmp_path)
    r = cli("diff", env={"CI": "true"})
    assert r.returncode == 0, r.stderr
    assert Path("marker").read_text() == "pulled\n"


def test_trust_lives_outside_the_repository(cli, tmp_path):
    rec = _recorder(tmp_path)
    assert cli("add", "docs", "--yes", "--", sys.executable, str(rec)).returncode == 0
    project_files = {p.name for p in Path(".").iterdir()}
    assert project_files <= {"mcp.lock", "env.json", "marker"}, project_files
    # a second clone of the same lock elsewhere is a different project: asks again
    clone = tmp_path / "clone"
    clone.mkdir()
    (clone / "mcp.lock").write_text(Path("mcp.lock").read_text())
    r = subprocess.run([MCPLOCK, "diff"], cwd=clone, capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "mcplock trust" in r.stderr


def test_trust_with_no_lock_or_unknown_name_is_a_usage_error(cli, tmp_path):
    rec = _recorder(tmp_path)
    assert cli("add", "docs", "--yes", "--", sys.executable, str(rec)).returncode == 0
    r = cli("trust", "nosuch")
    assert r.returncode == 2 and "nosuch" in r.stderr


def test_check_is_offline_and_says_so(cli, tmp_path):
    _pulled_change(cli, tmp_path)
    r = cli("check")
    assert not Path("marker").exists()
    assert r.returncode in (0, 1)
    assert "never" in cli("check", "--help").stdout.lower()


# --- no dependency confusion -------------------------------------------------------------------


def test_the_distribution_has_a_name_of_its_own():
    from importlib.metadata import PackageNotFoundError, distribution

    with pytest.raises(PackageNotFoundError):
        distribution("mcplock")  # that name on PyPI belongs to another project
    dist = distribution("mcplock-cli")
    assert any(ep.name == "mcplock" for ep in dist.entry_points)


def _run_event_guard(event: str, allow: str) -> subprocess.CompletedProcess[str]:
    """Run the action's "Refuse untrusted events" step under bash, expressions filled in as
    the runner would."""
    import yaml  # comes with pre-commit, in the test extra

    action = yaml.safe_load((Path(__file__).resolve().parent.parent / "action.yml").read_text())
    step = next(s for s in action["runs"]["steps"] if s.get("name", "").lower().startswith("refuse untrusted"))

    def fill(text: str) -> str:
        return text.replace("${{ github.event_name }}", event).replace("${{ inputs.allow-untrusted }}", allow)

    env = {**os.environ, "GITHUB_EVENT_NAME": event, **{k: fill(str(v)) for k, v in step.get("env", {}).items()}}
    return subprocess.run(["bash", "-c", fill(step["run"])], env=env, capture_output=True, text=True, timeout=30)


def test_the_action_installs_our_distribution_and_refuses_pull_request_target():
    action = (Path(__file__).resolve().parent.parent / "action.yml").read_text()
    assert "mcplock==" not in action.replace("mcplock-cli==", "")
    assert "mcplock-cli" in action
    r = _run_event_guard("pull_request_target", "false")
    assert r.returncode != 0 and "pull_request_target" in r.stdout + r.stderr
    assert _run_event_guard("pull_request_target", "true").returncode == 0
    assert _run_event_guard("pull_request", "false").returncode == 0
    assert _run_event_guard("schedule", "false").returncode == 0


def test_a_terminal_is_asked_once_and_a_yes_is_remembered(cli, tmp_path):
    from ptyrun import answer

    rec = _recorder(tmp_path)
    _config([sys.executable, str(rec)], env={"API_KEY": "${OTHER_SERVER_TOKEN}"})
    code, out = answer(["init"], ["n"])
    assert code == 2, out
    assert not Path("marker").exists() and not Path("mcp.lock").exists()
    assert str(rec) in out and "OTHER_SERVER_TOKEN" in out and CANARY not in out
    code, out = answer(["init"], ["y", "y"])  # trust, then accept the tools
    assert code == 0, out
    assert Path("marker").read_text() == "ran\n"
    assert cli("diff").returncode == 0  # trusted in this project: no question any more
    assert Path("marker").read_text() == "ran\nran\n"


def test_trust_shows_what_it_trusts_and_the_record_is_private(cli, tmp_path):
    other = _pulled_change(cli, tmp_path)
    r = cli("trust")
    assert r.returncode == 0 and str(other) in r.stdout and "trusted docs" in r.stdout
    record = tmp_path / "xdg-data" / "mcplock" / "trust.json"  # the per-user data directory
    assert record.exists() and (record.stat().st_mode & 0o777) == 0o600
    assert os.path.realpath(".") in json.loads(record.read_text())["projects"]
    assert "already trusted" in cli("trust", "docs").stdout


def test_trust_without_a_lock_is_an_input_error(cli):
    r = cli("trust")
    assert r.returncode == 2 and "mcp.lock" in r.stderr


# --- the guard and `call` under the same rules --------------------------------------------------


def test_the_guard_and_call_hold_a_pulled_change_and_get_a_minimal_environment(cli, tmp_path):
    other = _pulled_change(cli, tmp_path)
    # `mcplock run` (a host launches it; nobody can be asked): refused, naming what would run
    p = subprocess.run([MCPLOCK, "run", "docs"], input="", capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and str(other) in p.stderr and "mcplock trust docs" in p.stderr
    r = cli("call", "docs/search_docs", "--args", '{"query": "x"}')
    assert r.returncode == 2 and "mcplock trust docs" in r.stderr
    assert not Path("marker").exists()
    assert cli("trust", "docs").returncode == 0
    r = cli("call", "docs/search_docs", "--args", '{"query": "x"}', "--approve")
    assert r.returncode == 0, r.stderr
    assert Path("marker").read_text() == "pulled\n"
    env = json.loads(Path("env.json").read_text())
    assert "GITHUB_TOKEN" not in env and "AWS_SECRET_ACCESS_KEY" not in env and CANARY not in json.dumps(env)


def test_the_guard_runs_the_reviewed_lock_in_ci(cli, tmp_path):
    _pulled_change(cli, tmp_path)
    r = cli("call", "docs/search_docs", "--args", '{"query": "x"}', "--approve", env={"CI": "true"})
    assert r.returncode == 0, r.stderr
    assert Path("marker").read_text() == "pulled\n"
