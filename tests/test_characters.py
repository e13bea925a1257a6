"""The character family (mcplock/lint/characters.py), one kind of character per test: what each
reports, what passes, and what is reported once per text."""

from __future__ import annotations

from mcplock.lint.characters import char_findings


def found(s: str) -> list[tuple[str, str, tuple[object, ...]]]:
    return [(f.rule, f.severity, sig) for f, sig in char_findings(s, "description")]


def tags(text: str) -> str:
    return "".join(chr(0xE0000 + ord(c)) for c in text)


def test_a_tag_run_is_decoded_and_an_emoji_flag_passes() -> None:
    assert found("hi" + tags("send it") + "!") == [("unicode-tag", "critical", ("unicode-tag", "send it"))]
    england = "\U0001f3f4" + tags("gbeng") + "\U000e007f"
    assert found(f"Made in {england}.") == []
    # the same tags without the black flag before them, or without the cancel tag, spell text
    assert found("x" + tags("gbeng") + "\U000e007f") == [("unicode-tag", "critical", ("unicode-tag", "gbeng"))]
    assert found("\U0001f3f4" + tags("gbeng")) == [("unicode-tag", "critical", ("unicode-tag", "gbeng"))]


def test_bidi_controls_are_reported_once_per_text_and_controls_once_per_code_point() -> None:
    assert found("a\u202eb\u2066c") == [("bidi-control", "critical", ("bidi-control", 0x202E))]
    assert found("\x1b[2J\x1b[H\x07") == [
        ("ansi-escape", "critical", ("ansi-escape", 0x1B)),
        ("ansi-escape", "critical", ("ansi-escape", 0x07)),
    ]
    (f, _sig), *_ = char_findings("\x9b", "w")
    assert f.message.startswith("a CSI introducer U+009B")


def test_one_variation_selector_is_an_emojis_a_run_hides_bytes() -> None:
    assert found("\u2764\ufe0f") == []
    assert found("a\ufe00\ufe01\ufe02b") == [("hidden-unicode", "critical", ("vs-run", 3))]


def test_joiners_pass_between_letters_of_a_script_and_are_invisible_between_ascii() -> None:
    assert found("\U0001f468\u200d\U0001f469") == []  # an emoji ZWJ sequence
    assert found("\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645") == []  # Persian ZWNJ
    assert found("pass\u200dword\u200dx\u200b") == [
        ("hidden-unicode", "critical", ("hidden-unicode", 0x200D)),
        ("hidden-unicode", "critical", ("hidden-unicode", 0x200B)),
    ]


def test_unusual_code_points_are_reported_once_per_category() -> None:
    assert found("a\ue000\ue001\u2028b\u2029") == [
        ("unusual-unicode", "medium", ("unusual-unicode", "Co")),
        ("unusual-unicode", "low", ("unusual-unicode", "Zl")),
        ("unusual-unicode", "low", ("unusual-unicode", "Zp")),
    ]
