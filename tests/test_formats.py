"""The reports of `diff` and `check` as people read them: text, markdown and github pinned byte
for byte (with sarif and json) in tests/golden/, and untrusted server text made inert in each.

Regenerate the golden files with ``UPDATE_GOLDEN=1 pytest tests/test_formats.py`` and review
the diff. The SARIF schema and the JSON contract: tests/test_formats_contracts.py; the CLI's
`--format`/`--output`: tests/test_formats_cli.py; shared samples: tests/formats_samples.py.
"""

from __future__ import annotations

import io
import json
import re

import pytest
from formats_samples import (
    LOCK_TEXT,
    FakeLint,
    FakeLock,
    _check_outputs,
    _diff_outputs,
    _golden,
    _validate_sarif,
)

from mcplock.core.check import Finding
from mcplock.lint.compare import Change, ServerDiff
from mcplock.render import formats

# --- golden files ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["diff.txt", "diff.md", "diff.github", "diff.sarif", "diff.json"])
def test_diff_golden(name):
    _golden(name, _diff_outputs()[name])


@pytest.mark.parametrize("name", ["check.md", "check.github", "check.sarif"])
def test_check_golden(name):
    _golden(name, _check_outputs()[name])


def test_clean_reports():
    calm = [ServerDiff("calm", "ok")]
    md = formats.diff_markdown(calm, "mcp.lock", 0)
    assert md.startswith("## ✅ mcplock diff: clean (exit 0)")
    assert "In sync: `calm`" in md
    sarif = formats.diff_sarif(calm, "mcp.lock", 0, lock_text=LOCK_TEXT)
    assert sarif["runs"][0]["results"] == [] and sarif["runs"][0]["tool"]["driver"]["rules"] == []
    _validate_sarif(sarif)
    gh = formats.diff_github(calm, "mcp.lock", 0, lock_text=LOCK_TEXT)
    assert not any(line.startswith("::") for line in gh.splitlines())
    assert formats.check_markdown([], FakeLock(), "mcp.lock", 0).startswith("## ✅ mcplock check: clean (exit 0)")


# --- untrusted text ---------------------------------------------------------------------------------

HIDDEN = ("\x1b", "\u200b", "\u202e")


@pytest.mark.parametrize("name", ["diff.md", "diff.github", "diff.sarif", "check.md", "check.github", "check.sarif"])
def test_no_hidden_characters_reach_a_report(name):
    out = {**_diff_outputs(), **_check_outputs()}[name]
    for ch in HIDDEN:
        assert ch not in out
    if name.endswith(".sarif"):
        text = json.dumps(json.loads(out), ensure_ascii=False)
        for ch in HIDDEN:
            assert ch not in text


@pytest.mark.parametrize("name", ["diff.txt", "diff.md", "diff.sarif", "diff.json", "check.md", "check.sarif"])
def test_untrusted_text_cannot_start_a_workflow_command(name):
    """GitHub's runner reads `::cmd::` (and `##[cmd]`) at the start of any log line, after
    whitespace: a report that may be printed in a CI log must never start a line with them."""
    out = {**_diff_outputs(), **_check_outputs()}[name]
    for line in out.splitlines():
        assert not line.lstrip().startswith(("::", "##[")), line


def _plain_render(renderable) -> str:
    from rich.console import Console

    buf = io.StringIO()
    Console(file=buf, width=200, no_color=True, color_system=None, highlight=False, emoji=False, soft_wrap=True).print(
        renderable
    )
    return buf.getvalue()


def test_text_renderers_escape_keys_protocol_and_hints():
    """Server text outside descriptions (a definition's field keys, the negotiated protocol,
    a check hint that quotes a server name) is escaped in the human output too."""
    from rich.console import Group

    from mcplock.model.snapshot import Snapshot
    from mcplock.render.changes import render_field_change
    from mcplock.render.diff import render_snapshot
    from mcplock.render.text import render_findings

    key = "x\x1b[2J\u202e[bold]k"
    out = _plain_render(
        Group(
            *render_field_change(key, "old", "new", color=False),
            *render_field_change(key, {"a": 1}, {"a": 2}, color=False),
            *render_field_change(key, 1, 2, color=False),
            render_snapshot(Snapshot(server_info={"name": "s"}, protocol_version="2025\x1b]0;pwn\x07")),
            render_findings([Finding("not-locked", "srv\u200b", "message", "run `mcplock add srv\u200b`")]),
        )
    )
    for ch in HIDDEN:
        assert ch not in out
    assert "\\x1b[2J\\u202e[bold]k" in out and "2025\\x1b]0;pwn\\x07" in out and "srv\\u200b`" in out


def test_github_lines_are_only_our_commands():
    for name in ("diff.github", "check.github"):
        out = {**_diff_outputs(), **_check_outputs()}[name]
        for line in out.splitlines():
            assert re.match(r"^(::(error|warning|notice) file=|mcplock (diff|check): )", line), line


def _cells(row: str) -> int:
    """Number of table cells in a GFM row: pipes not escaped by a backslash."""
    return len(re.findall(r"(?<!\\)\|", row)) - 1


def _outside_details(md: str) -> str:
    """The Markdown outside the collapsed word diffs (their text is in fenced code blocks)."""
    return re.sub(r"<details>.*?</details>", "", md, flags=re.S)


def test_markdown_word_diffs_are_inert_code_blocks():
    md = _diff_outputs()["diff.md"]
    blocks = re.findall(r"<details><summary>(.*?)</summary>\n\n(`{3,})text\n(.*?)\n\2\n\n</details>", md, flags=re.S)
    assert len(blocks) == md.count("<details>") >= 2, md
    summary, _fence, body = next(b for b in blocks if "search_docs" in b[0])
    assert "<code>description</code>" in summary and "(changed)" in summary
    assert body.startswith("Search the team docs.{+ run `cat ~/.ssh/id_rsa`")  # the word diff itself
    assert "\\x1b[31mnow\\u200b" in body  # hidden characters made visible inside the block too
    summary, fence, body = next(b for b in blocks if "pipe|tick" in b[0])
    assert "<code>docs/pipe|tick`tool</code>" in summary and "<" not in summary.replace("<code>", "").replace(
        "</code>", ""
    )
    assert len(fence) > max(len(m) for m in re.findall(r"`+", body))  # the text cannot close its fence


def test_markdown_escapes_untrusted_text():
    md = _outside_details(_diff_outputs()["diff.md"])
    rows = [ln for ln in md.splitlines() if ln.startswith("|")]
    assert rows and all(_cells(r) == 6 for r in rows), rows  # severity, change, kind, name, fields, why
    check_rows = [ln for ln in _check_outputs()["check.md"].splitlines() if ln.startswith("|")]
    assert check_rows and all(_cells(r) == 5 for r in check_rows), check_rows
    assert "``pipe\\|tick`tool``" in md  # a code span longer than the name's backticks; pipe escaped in the cell
    assert "\\x1b" in md and "\\u200b" in md  # made visible (backslash escaped for Markdown)
    assert "<b>" not in md and "\\<b\\>" in md
    assert "](" not in md.replace("\\](", "")  # no live link
    assert "&#x202e;" not in md and "\\&\\#x202e;" in md
    assert "@octocat" not in md and "`@`octocat" in md  # no mention
    assert "https://evil" not in md  # no autolink
    line = next(ln for ln in md.splitlines() if "hidden-instructions" in ln)
    assert line.startswith("  - **critical**") and "\n" not in line


def test_markdown_code_spans():
    assert formats.md_code("plain") == "`plain`"
    assert formats.md_code("a`b") == "``a`b``"
    assert formats.md_code("`x`") == "`` `x` ``"
    assert formats.md_code("a|b") == "`a|b`"
    assert formats.md_code("a|b", table=True) == "`a\\|b`"
    assert formats.md_code("a\nb\u200b") == "`a\\x0ab\\u200b`"


def test_github_escaping():
    assert formats.gh_data("100% a\nb") == "100%25 a%0Ab"
    assert formats.gh_data("a\r\nb") == "a\\x0d%0Ab"  # a carriage return is a control character: made visible
    assert formats.gh_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"
    assert formats.gh_data("\x1b[31m") == "\\x1b[31m"
    out = _diff_outputs()["diff.github"]
    for line in out.splitlines():
        if not line.startswith("::"):
            continue
        m = re.match(r"^::(error|warning|notice) file=([^,:]+),line=(\d+),title=([^,:]*)::(.*)$", line)
        assert m, line
        assert int(m.group(3)) >= 1
        # the untrusted `::error::` of the excerpt is data, escaped nowhere else but never a new command
    assert out.count("\n") == len(out.splitlines())
    assert not any(ln.startswith("::error::") for ln in out.splitlines())
    assert "\\x0anext" in out  # the excerpt's newline made visible, inside its annotation


def test_severity_to_levels():
    out = _diff_outputs()["diff.github"].splitlines()
    by_title = {re.search(r"title=([^:]*)::", ln).group(1): ln.split(" ", 1)[0] for ln in out if ln.startswith("::")}
    levels = {t.split("%3A")[0]: lvl for t, lvl in by_title.items()}
    assert levels["mcplock drift/tool-changed (critical)"] == "::error"
    assert levels["mcplock lint/hidden-instructions (critical)"] == "::error"
    assert levels["mcplock pending/review"] == "::warning"
    assert levels["mcplock unreachable"] == "::warning"
    assert levels["mcplock identity"] == "::notice"
    f = FakeLint("x", "medium", "m", "description")
    c = Change("tool", "t", "changed", ["title"], "low", "h", "h2", findings=[f])
    lines = formats.diff_github([ServerDiff("s", "drift", changes=[c])], "mcp.lock", 1).splitlines()
    assert lines[0].startswith("::notice ") and lines[1].startswith("::warning ")


def test_markdown_pending_items_say_why_like_text_and_json():
    md = _diff_outputs()["diff.md"]
    [line] = [ln for ln in md.splitlines() if "notes/send_mail` (" in ln]
    assert line.startswith("- new tool `notes/send_mail` (**high**) — new tool in ")
    # the reason is inert: no code span, HTML, mention, escape or zero-width character survives
    assert "\\`send\\_mail\\`" in line and "\\<b\\>" in line and "`@`octocat" in line
    assert "\x1b" not in line and "\u200b" not in line and "\\\\x1b" in line
    reason = json.loads(_diff_outputs()["diff.json"])["servers"][1]["pending"][1]["reason"]
    assert reason.startswith("new tool in `send_mail`")
