"""``--report FORMAT=FILE`` (repeatable) of ``diff`` and ``check``: one probe (or one read of the
lock), several reports, beside the ``--format`` on stdout. CI writes its step summary, its
annotations and its SARIF from one comparison, so they cannot disagree."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import typer

from mcplock.cli.context import Cli
from mcplock.errors import UsageError

MACHINE = ("json", "markdown", "sarif", "github")
FEEDS = {"diff": "one probe feeds", "check": "one read of the lock feeds", "audit": "one OSV query feeds"}


def option(command: str) -> Any:
    """``--report`` of ``command``; its help says what one run does before feeding every report
    (`check` reads files only: it never says it probes — issue 42.12)."""
    return typer.Option(
        None,
        "--report",
        metavar="FORMAT=FILE",
        help="Also write a report: FORMAT=FILE, FORMAT one of json, markdown, sarif, github (repeatable; "
        f"{FEEDS[command]} every report and --format).",
    )


def parse(cli: Cli, values: list[str] | None) -> list[tuple[str, str]]:
    """The (format, file) pairs of ``--report``, checked before any work is done."""
    out: list[tuple[str, str]] = []
    for v in values or []:
        fmt, sep, path = v.partition("=")
        if not sep or not path or fmt not in MACHINE:
            raise UsageError(
                f"--report takes FORMAT=FILE, not `{v}`",
                hint=f"FORMAT is one of {', '.join(MACHINE)}, e.g. --report sarif=mcplock.sarif",
            )
        if path in (p for _, p in out):
            raise UsageError(f"--report names {path} twice", hint="give each report its own file")
        cli.check_output(path)  # never over the lock or a host config
        out.append((fmt, path))
    return out


def write(cli: Cli, reports: list[tuple[str, str]], code: int, render: Callable[[str, str | None], str]) -> None:
    """Write each report; ``render(fmt, lock_text)`` makes one."""
    for fmt, path in reports:
        cli.emit_report(render(fmt, cli.lock_text(fmt)), path, fmt, code)
        if fmt == "json":
            cli.info(f"wrote the json report to {path} (exit {code})")
