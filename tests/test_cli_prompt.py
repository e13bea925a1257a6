"""mcplock/cli/prompt.confirm: the one yes/no question every [y/N] and [Y/n] of the CLI asks
(trust, `add`'s accept-all, a remote entry's variables, the walk offered after `add`/`init`)."""

from __future__ import annotations

import io
import sys

import pytest
from rich.console import Console

from mcplock.cli.prompt import confirm


@pytest.mark.parametrize(
    ("typed", "default", "expected"),
    [
        ("y\n", False, True),
        (" YES \n", False, True),
        ("n\n", False, False),
        ("\n", False, False),  # [y/N]: Enter is no
        ("", False, False),  # the end of input is no
        ("\n", True, True),  # [Y/n]: Enter is yes
        ("", True, True),  # (as the walk's offer always read it)
        ("no\n", True, False),
        ("yep\n", True, False),
    ],
)
def test_confirm_reads_one_answer(monkeypatch, typed, default, expected):
    monkeypatch.setattr(sys, "stdin", io.StringIO(typed))
    shown = io.StringIO()
    assert confirm(Console(file=shown, no_color=True), "go? [y/N] ", default=default) is expected
    assert shown.getvalue() == "go? [y/N] "
