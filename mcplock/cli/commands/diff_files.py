"""`mcplock diff OLD NEW`: two locks or surface statements compared with no server contacted, in
`diff`'s report, formats and exit codes (docs/publishers.md)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from mcplock.cli import context, reports

if TYPE_CHECKING:
    from mcplock.lint.compare import ServerDiff


def diff_files(
    cli: context.Cli,
    files: tuple[str, str],
    fmt: str,
    out_file: str | None,
    fail_on: str | None,
    extra: list[tuple[str, str]],
) -> int:
    """Read both, compare, report; the exit code is `diff`'s (0 same, 1 drift or pending review)."""
    from mcplock.publish.offline import diff_sides, read_side
    from mcplock.render import formats

    old, new = (read_side(p) for p in files)
    cli.info(f"comparing {old.kind} {old.path} with {new.kind} {new.path} (no server contacted)")
    diffs, code = diff_sides(old, new, fail_on)
    label = f"{old.path} → {new.path}"
    text_of = _text_of(new.path)

    def report_of(f: str, _lock_text: str | None) -> str:
        lines = text_of(f)
        shown = label if f == "markdown" else new.path
        report = formats.diff_report(f, diffs, shown, code, lock_text=lines, path=formats.artifact_path(new.path))
        return _with_sides(f, report, old.path, new.path)

    reports.write(cli, extra, code, report_of)
    if fmt != "text":
        cli.emit_report(report_of(fmt, None), out_file, fmt, code)
        return code
    _print_text(cli, diffs, out_file, code)
    return code


def _text_of(path: str) -> Callable[[str], str | None]:
    """The text of NEW for the formats that point at its lines (sarif, github)."""

    def text(fmt: str) -> str | None:
        if fmt not in ("sarif", "github"):
            return None
        try:
            with open(path, encoding="utf-8") as fh:
                return fh.read()
        except (OSError, UnicodeDecodeError):
            return None

    return text


def _with_sides(fmt: str, report: str, old: str, new: str) -> str:
    """The JSON report names both files (`old`, `new`; `lockfile` is NEW, what the lines point at);
    the Markdown one drops `diff`'s next steps (`refresh` stages a live server's drift, not a file's)."""
    if fmt == "markdown":
        return "".join(ln for ln in report.splitlines(keepends=True) if not ln.startswith("Next: `mcplock"))
    if fmt != "json":
        return report
    import json

    from mcplock.render.formats.json import dumps

    doc = json.loads(report)
    doc["old"], doc["new"], doc["offline"] = old, new, True
    return dumps(doc)


def _print_text(cli: context.Cli, diffs: list[ServerDiff], out_file: str | None, code: int) -> None:
    from mcplock.render.diff import render_diff

    rendered = render_diff(diffs, color=cli.color() and not out_file, steps=False)
    if out_file:
        cli.write_rendered(out_file, rendered)
        cli.info(f"wrote the report to {out_file} (exit {code})")
    else:
        cli.out.print(rendered)
