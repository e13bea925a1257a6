"""Issue 42.9: docs/signing.md's quick start runs as written, in its order — the key, the policy
that lists it, then the signature under that policy — and ends in a `check` that passes (signing
first and writing the policy after left a signature `check` refuses). Its CI example is valid
YAML (no step with two `with:`) naming only inputs the action has. The console script, real
ssh-keygen and git."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import yaml

from conftest import BIN, ROOT
from lockdata import make_lock

DOC = (ROOT / "docs" / "signing.md").read_text()


def _blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", DOC, re.S)


def test_the_quick_start_runs_in_its_order_and_ends_passing(tmp_path):
    project = tmp_path / "project"
    home = tmp_path / "alice"  # (tmp_path / "home" is the suite's guarded stand-in)
    (home / ".ssh").mkdir(parents=True)
    project.mkdir()
    os.chdir(project)
    make_lock()
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("MCPLOCK_")},
        "HOME": str(home),
        "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}",
        "GIT_AUTHOR_NAME": "Alice",
        "GIT_AUTHOR_EMAIL": "alice@example.com",
        "GIT_COMMITTER_NAME": "Alice",
        "GIT_COMMITTER_EMAIL": "alice@example.com",
        "GIT_CONFIG_GLOBAL": os.devnull,
    }
    subprocess.run(["git", "init", "-q"], check=True, env=env)
    script = _blocks("sh")[0]
    assert script.index("policy.toml") < script.index("mcplock sign")  # the policy before the signature
    # the one question of the block is ssh-keygen's passphrase: none, here
    script = script.replace("ssh-keygen -t ed25519", "ssh-keygen -q -N '' -t ed25519", 1)
    r = subprocess.run(["bash", "-euo", "pipefail", "-c", script], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "signed mcp.lock with sha256-" in r.stdout + r.stderr
    assert Path("mcp.lock.sig").exists() and (tmp_path / "mcp-policy" / "policy.toml").exists()


def _unique_keys(node: yaml.Node) -> None:
    if isinstance(node, yaml.MappingNode):
        keys = [k.value for k, _ in node.value]
        assert len(keys) == len(set(keys)), f"a mapping with a key twice: {keys}"
        for _, v in node.value:
            _unique_keys(v)
    elif isinstance(node, yaml.SequenceNode):
        for v in node.value:
            _unique_keys(v)


def test_the_ci_example_is_valid_and_names_the_actions_inputs():
    inputs = set(yaml.safe_load((ROOT / "action.yml").read_text())["inputs"])
    for block in _blocks("yaml"):
        _unique_keys(yaml.compose(block))
        for step in yaml.safe_load(block):
            if "OWNER/mcplock" in step.get("uses", ""):
                assert set(step["with"]) <= inputs, step
