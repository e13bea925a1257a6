"""The one untrusted-text module: every hidden character is made visible, in both forms."""

from __future__ import annotations

import pytest

from mcplock.text.untrusted import safe_text, sanitize

HIDDEN = ["\x1b", "\x07", "\u200b", "\u202e", "\u2066", "\U000e0041", "\u2028", "\ufeff", "\x85"]


@pytest.mark.parametrize("ch", HIDDEN)
def test_sanitize_escapes_every_hidden_character(ch: str) -> None:
    out = sanitize(f"a{ch}b")
    assert ch not in out
    assert out.startswith("a\\") and out.endswith("b")


@pytest.mark.parametrize("ch", HIDDEN)
def test_safe_text_escapes_every_hidden_character(ch: str) -> None:
    assert ch not in safe_text(f"a{ch}b").plain


def test_sanitize_is_one_bounded_line() -> None:
    out = sanitize("line one\nline two\r\n" + "x" * 500, limit=40)
    assert "\n" not in out and "\\n" in out
    assert len(out) == 40 and out.endswith("…")


def test_sanitize_defuses_workflow_commands() -> None:
    assert not sanitize("::add-mask::x").startswith("::")
    assert "\n::" not in sanitize("ok\n::error::x", keep_newlines=True)
