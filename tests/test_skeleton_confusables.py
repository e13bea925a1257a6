"""Issue 47.5 through the console script: small capitals (``ᴇ`` U+1D07, ``ʟ`` U+029F) and a Greek
``ε`` no longer pass `tools.deny`; the policy's patterns and the lint's confusable names read
characters through one skeleton (mcplock/text/skeleton.py, docs/policy.md "Patterns")."""

from __future__ import annotations

import json

from test_round4_policy import HONEST, _fixture_lock, _policy

from mcplock.lint.names import confusable_names, reading
from mcplock.text.skeleton import skeleton

SMALL_CAPS = [
    "d\u1d07lete_page",  # LATIN LETTER SMALL CAPITAL E
    "de\u029fete_note",  # LATIN LETTER SMALL CAPITAL L
    "d\u03b5lete_row",  # GREEK SMALL LETTER EPSILON
    "DEL\u1d07TE_TEAM",  # a small capital among capitals
]


def test_small_capitals_and_greek_epsilon_are_denied_by_check(cli):
    _fixture_lock(cli, SMALL_CAPS + HONEST)
    p = _policy('[tools]\ndeny = ["delete_*"]\n')
    r = cli("check", "--policy", p, "--format", "json")
    assert r.returncode == 1, r.stdout + r.stderr
    denied = sorted(f["name"] for f in json.loads(r.stdout)["findings"] if f["code"] == "policy/tools.deny")
    assert denied == sorted(SMALL_CAPS)  # every look-alike, no honest twin


def test_the_lint_reads_names_with_the_same_skeleton():
    plain = ["delete_page", "delete_note", "delete_row", "DELETE_TEAM"]
    for name, twin in zip(SMALL_CAPS, plain, strict=True):
        assert skeleton(name) == skeleton(twin), name
        assert reading(name) == reading(twin), name
    found = confusable_names({"a": {"delete_page": {}}, "b": {"d\u1d07lete_page": {}}})
    assert [f.rule for f in found[("b", "d\u1d07lete_page")]] == ["confusable-name"]
