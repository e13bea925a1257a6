"""mcplock/text/skeleton.py, in-process: shell-style bracket expressions read as skeletons."""

from __future__ import annotations

import pytest

from mcplock.text.skeleton import compile_pattern, matches


@pytest.mark.parametrize(
    ("pattern", "subject", "hit"),
    [
        ("[abc]", "b", True),
        ("[abc]", "d", False),
        ("[!abc]", "d", True),
        ("[!abc]", "a", False),
        ("[]]", "]", True),  # a leading `]` is a member
        ("[!]]", "]", False),
        ("[!]]", "x", True),
        ("[a-c]x", "bx", True),
        ("[c-a]x", "bx", False),  # a backwards range is empty
        ("[c-a]x", "cx", False),
        ("[a-]", "-", True),  # a trailing `-` is a member
        ("x[", "x[", True),  # an unclosed `[` is a literal
        ("x[!", "x[!", True),
        ("[ab", "[ab", True),
        ("[]", "[]", True),  # `]` right after `[` is a member, so this never closes
        ("[0-9]*", "7up", True),
    ],
)
def test_bracket_expressions(pattern, subject, hit):
    assert matches(pattern, subject) is hit


def test_a_bracket_with_no_skeleton_matches_nothing():
    assert compile_pattern("[\u200d]").pattern == "(?!)"
    assert compile_pattern("[!\u200d]").pattern == "(?!(?!))."
