"""`--help` in sections: a command's options grouped under headings (issue 42.12: `add --help`
was 115 lines of one list). An option declares its section with typer's ``rich_help_panel``
(mcplock prints plain help, where typer ignores it); options without one stay under "Options",
first. The long explanations live in docs/, which a section's heading names.
"""

from __future__ import annotations

import types
from typing import Any

OPTIONS = "Options"
LAUNCH = "Launch options (a stdio command's or a URL's)"
PROBE = "Probe options"
OAUTH = "OAuth options (docs/oauth.md#command-line-options)"


def apply(command: Any) -> None:
    """Every command under ``command`` whose options name a section lists them by section."""
    for sub in getattr(command, "commands", {}).values():
        if any(getattr(p, "rich_help_panel", None) for p in sub.params):
            sub.format_options = types.MethodType(_format_options, sub)
        apply(sub)


def _format_options(self: Any, ctx: Any, formatter: Any) -> None:
    """click's Arguments, then Options (``-h`` last), then each section in the order its first
    option comes."""
    args: list[tuple[str, str]] = []
    sections: dict[str, list[tuple[str, str]]] = {OPTIONS: []}
    for param in self.get_params(ctx):
        record = param.get_help_record(ctx)
        if record is None:
            continue
        if param.param_type_name == "argument":
            args.append(record)
        else:
            sections.setdefault(getattr(param, "rich_help_panel", None) or OPTIONS, []).append(record)
    if args:
        with formatter.section("Arguments"):
            formatter.write_dl(args)
    help_option = [r for r in sections[OPTIONS] if r[0].startswith("-h, --help")]
    sections[OPTIONS] = [r for r in sections[OPTIONS] if r not in help_option] + help_option
    for title, records in sections.items():
        if records:
            with formatter.section(title):
                formatter.write_dl(records)
