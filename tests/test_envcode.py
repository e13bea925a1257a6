"""Which variables a command line sets for what it runs (:mod:`mcplock.packages.envcode`), each
way a launch can set one, with its honest twin (the same shape setting a variable that loads no
code, or the same word where it sets nothing). Pure: no processes."""

from __future__ import annotations

import pytest

from mcplock.packages.envcode import code_variables

CASES = [
    (["env", "-u", "HOME", "LD_PRELOAD=/e.so", "X=1", "npx", "a"], ["LD_PRELOAD"]),
    (["env", "-i", "DEBUG=1", "npx", "a"], []),
    (["env", "npx", "a", "LD_PRELOAD=/e.so"], []),  # after the command: its argument, not env's
    (["npx", "--node-options=--require=/e.js", "a"], ["NODE_OPTIONS"]),
    (["npx", "--node-options", "--require=/e.js", "a"], ["NODE_OPTIONS"]),
    (["npx", "--yes", "a"], []),
    (["docker", "run", "-e", "BASH_ENV=/x", "img"], ["BASH_ENV"]),
    (["docker", "run", "-e", "PYTHONPATH", "img"], ["PYTHONPATH"]),  # passed on from the host
    (["docker", "run", "--env=JAVA_TOOL_OPTIONS=-javaagent:/x", "img"], ["JAVA_TOOL_OPTIONS"]),
    (["docker", "run", "--env=TZ=UTC", "-e", "LANG", "img"], []),
    (["sh", "-c", "NODE_OPTIONS=--import=/e.mjs npx a"], ["NODE_OPTIONS"]),
    (["bash", "-lc", "env PERL5OPT=-Mevil npx a"], ["PERL5OPT"]),
    (["cmd", "/c", "env LD_AUDIT=/a.so npx a"], ["LD_AUDIT"]),
    (["sh", "-c", "DEBUG=1 npx a"], []),
    (["sh", "-c", "echo LD_PRELOAD=/e.so"], []),  # an argument of echo, not an assignment
    (["sh", "-c", "LD_PRELOAD='unterminated"], []),  # a string no shell could run
    (["sh", "-c", "sh -c 'LD_PRELOAD=/e.so x'"], ["LD_PRELOAD"]),
]


@pytest.mark.parametrize(("argv", "want"), CASES)
def test_each_way_a_command_line_sets_a_variable(argv, want):
    assert code_variables([], (), argv[0], argv[1:]) == want


def test_the_launch_env_and_the_line_each_once_in_order():
    got = code_variables(["NODE_OPTIONS", "TZ"], ["PYTHONPATH"], "env", ["NODE_OPTIONS=x", "LD_PRELOAD=y", "npx", "a"])
    assert got == ["NODE_OPTIONS", "PYTHONPATH", "LD_PRELOAD"]
