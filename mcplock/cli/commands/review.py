"""Review of the lock: `accept`, `reject`, `enable`, `disable`, `approval` (offline). The
workflows are :mod:`mcplock.core.review`; this module parses, walks and prints."""

from __future__ import annotations

import sys

import typer
from rich.text import Text

from mcplock.cli import context
from mcplock.cli.commands.export import NO_EXPORT, keep_in_step
from mcplock.cli.context import Cli
from mcplock.cli.options import ORG_POLICY
from mcplock.core import review as core_review
from mcplock.errors import UsageError
from mcplock.lock.model import APPROVALS
from mcplock.text.untrusted import safe_name


def _said(cli: Cli, verb: str, done: list[str], no_export: bool = False) -> int:
    for target in done:
        cli.say(Text(verb).append_text(safe_name(target)))
    return keep_in_step(cli, no_export)


def cmd_enable(
    ctx: typer.Context, tools: list[str] = typer.Argument(..., metavar="SERVER/TOOL…"), no_export: bool = NO_EXPORT
) -> int:
    """Enable tools (a host sees only enabled tools).

    SERVER names all its tools. SERVER/tool:NAME names a tool whose name reads as
    something else (a tool called `instructions` or `prompt:x`).
    """
    cli = context.of(ctx)
    return _said(cli, "enabled ", core_review.set_enabled(cli.lockfile, tools, True), no_export)


def cmd_disable(
    ctx: typer.Context, tools: list[str] = typer.Argument(..., metavar="SERVER/TOOL…"), no_export: bool = NO_EXPORT
) -> int:
    """Disable tools (kept in the lock, hidden from hosts).

    SERVER names all its tools. SERVER/tool:NAME names a tool whose name reads as
    something else (a tool called `instructions` or `prompt:x`).
    """
    cli = context.of(ctx)
    return _said(cli, "disabled ", core_review.set_enabled(cli.lockfile, tools, False), no_export)


def cmd_approval(
    ctx: typer.Context,
    args: list[str] = typer.Argument(..., metavar="SERVER/TOOL… always|never"),
    no_export: bool = NO_EXPORT,
) -> int:
    """Set whether a host must ask before each call: `always` (ask) or `never`.

    SERVER names all its tools. SERVER/tool:NAME names a tool whose name reads as
    something else (a tool called `instructions` or `prompt:x`).
    """
    cli = context.of(ctx)
    if len(args) < 2 or args[-1] not in APPROVALS:
        raise UsageError(
            "usage: mcplock approval SERVER/TOOL… always|never",
            hint="`always` asks before every call; `never` lets the host call without asking",
        )
    mode = args[-1]
    return _said(cli, f"approval {mode}: ", core_review.set_approval(cli.lockfile, args[:-1], mode), no_export)


def cmd_accept(
    ctx: typer.Context,
    items: list[str] | None = typer.Argument(None, metavar="[SERVER[/TOOL]]…"),
    all_: bool = typer.Option(False, "--all", help="Accept everything pending in the lock (critical items held)."),
    approval: str | None = typer.Option(None, "--approval", help="Set approval of the accepted tools: always|never."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Do not ask: accept what is named (critical items held)."),
    include_critical: bool = typer.Option(
        False,
        "--include-critical",
        help="Bulk accepts (--all, SERVER, --yes) take items with critical lint findings too.",
    ),
    policy: str | None = ORG_POLICY,
    no_export: bool = NO_EXPORT,
) -> int:
    """Accept pending proposals (interactive review on a terminal: all, or the SERVERs named).

    Targets: SERVER (everything pending on it), SERVER/TOOL, SERVER/prompt:NAME,
    SERVER/resource:URI, SERVER/resource-template:URI, SERVER/ui:URI (an App's document),
    SERVER/skill:URI, SERVER/content:URI (a pinned document), SERVER/instructions;
    SERVER/tool:NAME names a tool whose name reads as something else (a tool called
    `instructions` or `prompt:x`). `mcplock list` shows each pending item's target.
    Items with a critical lint finding are never accepted in bulk: name them, or pass
    --include-critical.
    """
    cli = context.of(ctx)
    if approval is not None and approval not in APPROVALS:
        raise UsageError("--approval takes `always` or `never`")
    from mcplock.cli.walk import accept_pending
    from mcplock.trust import org_policy

    org = org_policy.resolve(policy)
    items = items or []
    interactive = _walks(items, all_=all_, yes=yes)
    if not items and not all_ and not interactive:
        raise UsageError(
            "name what to accept (SERVER, SERVER/TOOL …) or pass --all",
            hint="`mcplock list` shows what is pending; `mcplock diff` shows the changes",
        )
    code = accept_pending(
        cli, items, all_=all_, interactive=interactive, approval=approval, org=org, include_critical=include_critical
    )
    return code if code == 130 else max(code, keep_in_step(cli, no_export, policy))


def _walks(items: list[str], *, all_: bool, yes: bool) -> bool:
    """A terminal walks what is pending (all of it, or the servers named); naming an item, --all
    or --yes accepts without the walk."""
    tty = sys.stdin.isatty() and sys.stdout.isatty()
    return tty and not yes and not all_ and all("/" not in i for i in items)


def cmd_reject(
    ctx: typer.Context, items: list[str] = typer.Argument(..., metavar="SERVER[/TOOL]…"), no_export: bool = NO_EXPORT
) -> int:
    """Record pending proposals as seen but refused: the tool stays disabled.

    Targets: SERVER (everything pending on it), SERVER/TOOL, SERVER/prompt:NAME,
    SERVER/resource:URI, SERVER/resource-template:URI, SERVER/ui:URI (an App's document),
    SERVER/skill:URI, SERVER/content:URI (a pinned document), SERVER/instructions;
    SERVER/tool:NAME names a tool whose name reads as something else (a tool called
    `instructions` or `prompt:x`). `mcplock list` shows each pending item's target.
    """
    cli = context.of(ctx)
    done = core_review.reject(cli.lockfile, items)
    for result, target in done:  # reported once written
        name = safe_name(target)
        if result == "removal":
            cli.info(
                Text("skipped ")
                .append_text(name)
                .append(": the server no longer offers it; `mcplock accept` drops it from the lock")
            )
        else:
            cli.say(Text("rejected ").append_text(name))
    cli.info(f"{sum(1 for r, _ in done if r == 'rejected')} rejected")
    return keep_in_step(cli, no_export)


def register(app: typer.Typer) -> None:
    app.command("enable")(cmd_enable)
    app.command("disable")(cmd_disable)
    app.command("approval")(cmd_approval)
    app.command("accept")(cmd_accept)
    app.command("reject")(cmd_reject)
