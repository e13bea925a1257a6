"""Review of the lock: `accept`, `reject`, `enable`, `disable`, `approval` (offline)."""

from __future__ import annotations

import sys
from collections.abc import Callable

import typer
from rich.text import Text

from mcplock.cli import context
from mcplock.cli.context import Cli
from mcplock.cli.options import ORG_POLICY
from mcplock.errors import UsageError
from mcplock.lock import targets
from mcplock.lock.model import APPROVALS, Entry, Lock, ServerEntry
from mcplock.untrusted import safe_name

Apply = Callable[[ServerEntry, Entry], "Text | None"]  # a change to one tool; the line reporting it


def _target(srv: ServerEntry, e: Entry) -> Text:
    return safe_name(targets.label(srv, e))


def _modify(cli: Cli, items: list[str], fn: Apply) -> int:
    """Apply ``fn`` to each tool named (a server names all its tools), in one transaction.

    Every target is resolved before anything changes, and the changes are reported only once
    they are written: a bad target or a failed write fails the whole command, with nothing
    changed and nothing claimed.
    """
    from mcplock.lock.store import transaction

    if not items:
        raise UsageError("name at least one SERVER/TOOL")
    parsed = [targets.parse(x) for x in items]
    done: list[Text] = []
    with transaction(cli.lockfile) as lock:
        resolved = [targets.resolve(lock, t, tool_only=True) for t in parsed]
        for srv, entries in resolved:
            for e in entries:
                if e.kind == "tool":
                    line = fn(srv, e)
                    if line is not None:
                        done.append(line)
    for line in done:
        cli.say(line)
    return 0


def _set_enabled(value: bool) -> Apply:
    def apply(srv: ServerEntry, e: Entry) -> Text | None:
        target = targets.label(srv, e)
        if value:
            _refuse_enable(srv, e, target)
        if e.pending is not None and e.pending.enabled_before is not None:
            e.pending.enabled_before = value
        if e.enabled == value:
            return None
        e.enabled = value
        return Text(f"{'enabled' if value else 'disabled'} ").append_text(_target(srv, e))
    return apply


def _refuse_enable(srv: ServerEntry, e: Entry, target: str) -> None:
    """Only an accepted definition the server still offers may be enabled."""
    if e.pending is not None and e.pending.change == "changed":
        raise UsageError(f"`{target}` is quarantined: its server changed it since it was accepted",
                         hint=f"review with `mcplock show {target}`, then `mcplock accept {target}` or "
                         f"`mcplock reject {target}`")
    if e.definition is None:
        hint = (f"review it with `mcplock show {target}`, then `mcplock accept {target}`" if e.pending is not None
                else f"run `mcplock refresh {srv.name}` to stage what the server offers, then "
                f"`mcplock accept {target}`")
        raise UsageError(f"`{target}` was never accepted: there is no definition to enable", hint=hint)
    if e.rejected_hash is not None:
        raise UsageError(f"`{target}` was rejected: its server offers a definition you refused, not the accepted one",
                         hint=f"it stays disabled until its server offers something else; then `mcplock refresh "
                         f"{srv.name}` stages that for review and `mcplock accept {target}` enables it")
    if e.tampered():
        raise UsageError(f"`{target}`: the stored definition does not match its hash (edited by hand or tampered with)",
                         hint=f"restore mcp.lock from git, or run `mcplock refresh {srv.name}` and "
                         f"`mcplock accept {target}`")


def cmd_enable(ctx: typer.Context, tools: list[str] = typer.Argument(..., metavar="SERVER/TOOL…")) -> int:
    """Enable tools (a host sees only enabled tools).

    SERVER names all its tools. SERVER/tool:NAME names a tool whose name reads as
    something else (a tool called `instructions` or `prompt:x`).
    """
    cli = context.of(ctx)
    return _modify(cli, tools, _set_enabled(True))


def cmd_disable(ctx: typer.Context, tools: list[str] = typer.Argument(..., metavar="SERVER/TOOL…")) -> int:
    """Disable tools (kept in the lock, hidden from hosts).

    SERVER names all its tools. SERVER/tool:NAME names a tool whose name reads as
    something else (a tool called `instructions` or `prompt:x`).
    """
    cli = context.of(ctx)
    return _modify(cli, tools, _set_enabled(False))


def cmd_approval(
    ctx: typer.Context,
    args: list[str] = typer.Argument(..., metavar="SERVER/TOOL… always|never"),
) -> int:
    """Set whether a host must ask before each call: `always` (ask) or `never`.

    SERVER names all its tools. SERVER/tool:NAME names a tool whose name reads as
    something else (a tool called `instructions` or `prompt:x`).
    """
    cli = context.of(ctx)
    if len(args) < 2 or args[-1] not in APPROVALS:
        raise UsageError("usage: mcplock approval SERVER/TOOL… always|never",
                         hint="`always` asks before every call; `never` lets the host call without asking")
    mode = args[-1]

    def apply(srv: ServerEntry, e: Entry) -> Text | None:
        changed = e.approval != mode
        e.approval = mode
        if e.pending is not None and e.pending.change != "removed" and e.pending.approval != mode:
            e.pending.approval = mode  # a person's choice for the proposal: `accept` keeps it over the policy
            changed = True
        return Text(f"approval {mode}: ").append_text(_target(srv, e)) if changed else None

    return _modify(cli, args[:-1], apply)


def _pending_targets(lock: Lock, items: list[str], all_: bool) -> list[tuple[ServerEntry, Entry, bool]]:
    """(server, entry, named) of each pending item chosen; ``named``: the item itself was named
    (``SERVER/TOOL``), not picked in bulk (``--all``, ``SERVER``)."""
    chosen: list[tuple[ServerEntry, Entry, bool]] = []
    seen: set[int] = set()
    if all_:
        for _, srv in sorted(lock.servers.items()):
            chosen += [(srv, e, False) for e in srv.entries() if e.pending is not None]
        return chosen
    for item in items:
        t = targets.parse(item)
        srv, entries = targets.resolve(lock, t)
        with_pending = [e for e in entries if e.pending is not None]
        if t.kind is not None and not with_pending:
            raise UsageError(f"`{t}` has nothing pending", hint="`mcplock list` shows what awaits review")
        for e in with_pending:
            if id(e) not in seen:
                seen.add(id(e))
                chosen.append((srv, e, t.kind is not None))
    return chosen


def cmd_accept(
    ctx: typer.Context,
    items: list[str] | None = typer.Argument(None, metavar="[SERVER[/TOOL]]…"),
    all_: bool = typer.Option(False, "--all", help="Accept everything pending in the lock (critical items held)."),
    approval: str | None = typer.Option(None, "--approval", help="Set approval of the accepted tools: always|never."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Do not ask: accept what is named (critical items held)."),
    include_critical: bool = typer.Option(
        False, "--include-critical",
        help="Bulk accepts (--all, SERVER, --yes) take items with critical lint findings too."),
    policy: str | None = ORG_POLICY,
) -> int:
    """Accept pending proposals (interactive review on a terminal: all, or the SERVERs named).

    Targets: SERVER (everything pending on it), SERVER/TOOL, SERVER/prompt:NAME,
    SERVER/resource-template:URI, SERVER/instructions; SERVER/tool:NAME names a tool whose
    name reads as something else (a tool called `instructions` or `prompt:x`).
    Items with a critical lint finding are never accepted in bulk: name them, or pass
    --include-critical.
    """
    cli = context.of(ctx)
    if approval is not None and approval not in APPROVALS:
        raise UsageError("--approval takes `always` or `never`")
    from mcplock import orgpolicy

    org = orgpolicy.resolve(policy)
    items = items or []
    tty = sys.stdin.isatty() and sys.stdout.isatty()
    # a terminal walks what is pending (all of it, or the servers named); naming an item accepts it
    interactive = tty and not yes and not all_ and all("/" not in i for i in items)
    if not items and not all_ and not interactive:
        raise UsageError("name what to accept (SERVER, SERVER/TOOL …) or pass --all",
                         hint="`mcplock list` shows what is pending; `mcplock diff` shows the changes")
    return accept_pending(cli, items, all_=all_, interactive=interactive, approval=approval, org=org,
                          include_critical=include_critical)


def accept_pending(cli: Cli, items: list[str], *, all_: bool, interactive: bool, approval: str | None = None,
                   org: object = None, include_critical: bool = False) -> int:
    """Accept what ``items`` name (or everything, ``all_``): walked one by one when
    ``interactive``, else in bulk with critical items held. The exit code (130 after Ctrl-C)."""
    from mcplock.cli import walk
    from mcplock.core.add import is_critical
    from mcplock.lint.entries import lint_entries
    from mcplock.lock import review
    from mcplock.lock.store import transaction

    tally = walk.Tally()
    with transaction(cli.lockfile) as lock:
        chosen = _pending_targets(lock, items, all_ or (interactive and not items))
        if not chosen:
            cli.say("nothing pending")
            return 0
        findings = lint_entries(lock.servers.values())
        if org is not None:
            chosen = _allowed(cli, org, chosen, findings, approval, interactive)
        if interactive:
            walk.walk(cli, [(s, e) for s, e, _ in chosen], findings, approval, tally)
        else:
            for srv, e, named in chosen:
                if not named and not include_critical and is_critical(srv.name, e, findings):
                    tally.held.append(targets.label(srv, e))
                    continue
                tally.record(cli, srv, e, review.accept(srv, e, approval=approval if e.kind == "tool" else None))
    left = sum(s.pending_count() for s in lock.servers.values())
    return walk.summary(cli, tally, left)


def _allowed(cli: Cli, org, chosen: list, findings: dict, approval: str | None, interactive: bool) -> list:  # type: ignore[no-untyped-def]
    """The organisation's policy over what is about to be accepted: off a terminal anything it
    forbids refuses the whole command (nothing is written); the walk skips those items."""
    from mcplock.orgpolicy import Forbidden, forbids_accept

    out, refused = [], []
    for srv, e, named in chosen:
        found = forbids_accept(org, srv, e, approval, findings.get((srv.name, e.kind, e.key)))
        if found:
            refused.append(found)
        else:
            out.append((srv, e, named))
    if not refused:
        return out
    lines = [v for vs in refused for v in vs]
    if not interactive:
        raise Forbidden("the policy forbids accepting " + "; ".join(v.message for v in lines),
                        hint=lines[0].hint.replace("disable it: `mcplock disable", "reject it instead: `mcplock reject")
                        + "; nothing was accepted — accept the others by name")
    for v in lines:
        cli.note(f"not offered: {v.message}")
    return out


def cmd_reject(ctx: typer.Context, items: list[str] = typer.Argument(..., metavar="SERVER[/TOOL]…")) -> int:
    """Record pending proposals as seen but refused: the tool stays disabled.

    Targets: SERVER (everything pending on it), SERVER/TOOL, SERVER/prompt:NAME,
    SERVER/resource-template:URI, SERVER/instructions; SERVER/tool:NAME names a tool whose
    name reads as something else (a tool called `instructions` or `prompt:x`).
    """
    from mcplock.lock import review
    from mcplock.lock.store import transaction

    cli = context.of(ctx)
    n = 0
    done: list[tuple[bool, Text]] = []  # (a result line, the line): reported once written
    with transaction(cli.lockfile) as lock:
        for srv, e, _ in _pending_targets(lock, items, False):
            r = review.reject(srv, e)
            if r == "removal":
                done.append((False, Text("skipped ").append_text(_target(srv, e)).append(
                    ": the server no longer offers it; `mcplock accept` drops it from the lock")))
            elif r == "rejected":
                n += 1
                done.append((True, Text("rejected ").append_text(_target(srv, e))))
    for result, line in done:
        (cli.say if result else cli.info)(line)
    cli.info(f"{n} rejected")
    return 0


def register(app: typer.Typer) -> None:
    app.command("enable")(cmd_enable)
    app.command("disable")(cmd_disable)
    app.command("approval")(cmd_approval)
    app.command("accept")(cmd_accept)
    app.command("reject")(cmd_reject)
