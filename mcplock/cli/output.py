"""Consoles and the error printer for the CLI layer (human output on stdout,
progress and diagnostics on stderr)."""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass, field

from rich.console import Console
from rich.text import Text

from mcplock.errors import McplockError


@dataclass
class Settings:
    lockfile: str = "mcp.lock"
    no_color: bool = False
    quiet: bool = False
    verbose: bool = False
    out: Console = field(init=False)
    err: Console = field(init=False)

    def __post_init__(self) -> None:
        self.make_consoles()

    def make_consoles(self) -> None:
        nc = self.no_color or bool(os.environ.get("NO_COLOR"))
        self.out = Console(file=sys.stdout, no_color=nc, highlight=False, soft_wrap=True,
                           color_system=None if nc else "auto")
        self.err = Console(file=sys.stderr, no_color=nc, highlight=False, soft_wrap=True,
                           color_system=None if nc else "auto")


_settings: Settings | None = None


def settings() -> Settings:
    global _settings
    if _settings is None:
        _settings = Settings(lockfile=os.environ.get("MCPLOCK_LOCKFILE") or "mcp.lock")
    return _settings


def configure(**kw: object) -> Settings:
    global _settings
    _settings = Settings(**kw)  # type: ignore[arg-type]
    return _settings


def print_error(err: McplockError, *, json_mode: bool = False, command: str | None = None) -> None:
    s = settings()
    if json_mode:
        doc: dict[str, object] = {"version": 1}
        if command:
            doc["command"] = command
        doc["exit_code"] = err.exit_code
        doc["error"] = err.as_json()
        sys.stdout.write(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
        return
    from mcplock.untrusted import safe_text

    line = Text("error: ", style="bold red")
    line.append_text(safe_text(err.message))
    s.err.print(line)
    if err.hint:
        h = Text("hint: ", style="dim")
        h.append_text(safe_text(err.hint, "dim"))
        s.err.print(h)


def emit_report(report: str, out_file: str | None, fmt: str, code: int) -> None:
    """A machine report on stdout, or into ``out_file`` with a one-line note on stderr."""
    if not out_file:
        sys.stdout.write(report)
        return
    with open(out_file, "w", encoding="utf-8") as fh:
        fh.write(report)
    if fmt != "json":
        info(f"wrote the {fmt} report to {out_file} (exit {code})")


def info(message: str | Text) -> None:
    s = settings()
    if not s.quiet:
        s.err.print(message)


def say(message: str | Text) -> None:
    """A result line on stdout (suppressed by -q)."""
    s = settings()
    if not s.quiet:
        s.out.print(message)
