"""The state of one CLI run, carried in typer's ``ctx.obj``: the global options, the two
consoles (results on stdout, progress and diagnostics on stderr), and whether the command
prints machine output (so errors come out as JSON too)."""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass, field
from typing import TextIO

import typer
from rich.console import Console
from rich.text import Text

from mcplock.errors import McplockError, UsageError
from mcplock.text.untrusted import json_text, safe_text


def _console(file: TextIO, no_color: bool) -> Console:
    return Console(
        file=file,
        no_color=no_color,
        highlight=False,
        soft_wrap=True,
        color_system=None if no_color else "auto",
    )


def _line(message: str | Text) -> Text:
    return message if isinstance(message, Text) else safe_text(message)


@dataclass
class Cli:
    lockfile: str = "mcp.lock"
    no_color: bool = False
    quiet: bool = False
    verbose: bool = False
    strict: bool = False  # probing: an unset ${VAR} without a default is an error, not a warning
    args: list[str] = field(default_factory=list)  # as given: click swallows `--` (`add NAME -- CMD` vs `add NAME URL`)
    json_command: str | None = None  # set by a command that prints machine output
    said_interrupted: bool = False  # a command already said it was interrupted (exit 130): said once
    out: Console = field(init=False, repr=False)
    err: Console = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.configure()

    def configure(self, **kw: object) -> None:
        for k, v in kw.items():
            setattr(self, k, v)
        nc = self.no_color or bool(os.environ.get("NO_COLOR"))
        self.out = _console(sys.stdout, nc)
        self.err = _console(sys.stderr, nc)

    # --- what the commands ask -----------------------------------------------------------

    @property
    def lock_dir(self) -> str:
        from mcplock.core.specs import lock_dir

        return lock_dir(self.lockfile)

    @property
    def had_dashdash(self) -> bool:
        return "--" in self.args

    def json_mode(self, command: str, fmt: str) -> None:
        if fmt == "json":
            self.json_command = command

    def report_format(self, command: str, fmt: str, formats: tuple[str, ...]) -> None:
        """Check ``--format`` of a reporting command; JSON errors in JSON mode."""
        if fmt not in formats:
            raise UsageError(f"unknown format `{fmt}` for {command}", hint=f"use --format {'|'.join(formats)}")
        self.json_mode(command, fmt)

    def lock_text(self, fmt: str) -> str | None:
        """The lock's text where a report points at its lines (sarif, github)."""
        if fmt not in ("sarif", "github"):
            return None
        from mcplock.model.files import DOCUMENT_MAX, read_bounded

        try:
            return read_bounded(self.lockfile, DOCUMENT_MAX).decode("utf-8")
        except (OSError, UnicodeDecodeError):
            return None

    def color(self) -> bool:
        return self.out.is_terminal and not self.no_color and not os.environ.get("NO_COLOR")

    # --- printing --------------------------------------------------------------------------

    def info(self, message: str | Text) -> None:
        """Progress or a note on stderr (suppressed by -q). A ``str`` is shown as plain text
        (never rich markup), hidden characters escaped: it may hold a path or a server's name."""
        if not self.quiet:
            self.err.print(_line(message))

    def say(self, message: str | Text) -> None:
        """A result line on stdout (suppressed by -q); a ``str`` as in :meth:`info`."""
        if not self.quiet:
            self.out.print(_line(message))

    def note(self, text: str) -> None:
        """A yellow ``note:`` about untrusted text (names and warnings from host configs)."""
        self.err.print(Text("note: ", style="yellow").append_text(safe_text(text, keep_newlines=False)))

    def error(self, message: str, hint: str | None = None) -> None:
        self.err.print(Text("error: ", style="bold red").append_text(safe_text(message)))
        if hint:
            self.err.print(Text("hint: ", style="dim").append_text(safe_text(hint, "dim")))

    def print_error(self, err: McplockError) -> None:
        if self.json_command is not None:
            doc: dict[str, object] = {
                "version": 1,
                "command": self.json_command,
                "exit_code": err.exit_code,
                "error": err.as_json(),
            }
            sys.stdout.write(json_text(json.dumps(doc, indent=2, ensure_ascii=False)) + "\n")
            return
        self.error(err.message, err.hint)

    def write_json(self, doc: object) -> None:
        """``doc`` as JSON, hidden characters escaped (``call`` prints a server's result with it)."""
        sys.stdout.write(json_text(json.dumps(doc, indent=2, ensure_ascii=False)) + "\n")

    def check_output(self, out_file: str | None) -> None:
        """Refuse an ``-o/--output`` over a file mcplock manages (the lock, a host config it imported)."""
        from mcplock.core.outputs import check_output

        check_output(out_file, self.lockfile)

    def _open_output(self, out_file: str) -> TextIO:
        self.check_output(out_file)
        try:
            return open(out_file, "w", encoding="utf-8")
        except OSError as e:
            raise UsageError(
                f"cannot write the report to {out_file}: {e.strerror}",
                hint="check the path and its directory, or drop -o to print the report",
            ) from None

    def emit_report(self, report: str, out_file: str | None, fmt: str, code: int) -> None:
        """A machine report on stdout, or into ``out_file`` with a one-line note on stderr."""
        if not out_file:
            sys.stdout.write(report)
            return
        with self._open_output(out_file) as fh:
            fh.write(report)
        if fmt != "json":
            self.info(f"wrote the {fmt} report to {out_file} (exit {code})")

    def write_rendered(self, out_file: str, *renderables: object) -> None:
        """Rendered text into ``out_file``, without colour."""
        with self._open_output(out_file) as fh:
            Console(file=fh, no_color=True, color_system=None, soft_wrap=True, highlight=False).print(*renderables)


def of(ctx: typer.Context) -> Cli:
    """The run's state (a default one when a command runs without :func:`mcplock.cli.app.run`)."""
    root = ctx.find_root()
    if not isinstance(root.obj, Cli):
        root.obj = Cli(lockfile=os.environ.get("MCPLOCK_LOCKFILE") or "mcp.lock")
    return root.obj
