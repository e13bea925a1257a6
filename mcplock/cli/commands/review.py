"""Review of the lock: `accept`, `reject`, `enable`, `disable`, `approval` (offline)."""

from __future__ import annotations

import sys
from collections.abc import Callable

import typer
from rich.text import Text

from mcplock import targets
from mcplock.cli import context
from mcplock.cli.context import Cli
from mcplock.errors import UsageError
from mcplock.lock.model import APPROVALS, Entry, Lock, ServerEntry
from mcplock.untrusted import safe_text

Apply = Callable[[ServerEntry, Entry], None]


def _target(srv: ServerEntry, e: Entry) -> Text:
    return safe_text(targets.label(srv, e), keep_newlines=False)


def _modify(cli: Cli, items: list[str], fn: Apply) -> int:
    """Apply ``fn`` to each tool named (a server names all its tools), in one transaction."""
    from mcplock.lock.store import transaction

    if not items:
        raise UsageError("name at least one SERVER/TOOL")
    parsed = [targets.parse(x, tool_only=True) for x in items]
    with transaction(cli.lockfile) as lock:
        for t in parsed:
            srv, entries = targets.resolve(lock, t)
            for e in entries:
                if e.kind == "tool":
                    fn(srv, e)
    return 0


def _set_enabled(cli: Cli, value: bool) -> Apply:
    def apply(srv: ServerEntry, e: Entry) -> None:
        target = targets.label(srv, e)
        if value and e.definition is None:
            raise UsageError(f"`{target}` has no accepted definition to enable",
                             hint=f"review it with `mcplock show {target}`, then `mcplock accept {target}`")
        if value and e.pending is not None and e.pending.change == "changed":
            raise UsageError(f"`{target}` is quarantined: its server changed it since it was accepted",
                             hint=f"review with `mcplock show {target}`, then `mcplock accept {target}` or `mcplock reject {target}`")
        if e.pending is not None and e.pending.enabled_before is not None:
            e.pending.enabled_before = value
        if e.enabled != value:
            e.enabled = value
            cli.say(Text(f"{'enabled' if value else 'disabled'} ").append_text(_target(srv, e)))
    return apply


def cmd_enable(ctx: typer.Context, tools: list[str] = typer.Argument(..., metavar="SERVER/TOOL…")) -> int:
    """Enable tools (a host sees only enabled tools)."""
    cli = context.of(ctx)
    return _modify(cli, tools, _set_enabled(cli, True))


def cmd_disable(ctx: typer.Context, tools: list[str] = typer.Argument(..., metavar="SERVER/TOOL…")) -> int:
    """Disable tools (kept in the lock, hidden from hosts)."""
    cli = context.of(ctx)
    return _modify(cli, tools, _set_enabled(cli, False))


def cmd_approval(
    ctx: typer.Context,
    args: list[str] = typer.Argument(..., metavar="SERVER/TOOL… always|never"),
) -> int:
    """Set whether a host must ask before each call: `always` (ask) or `never`."""
    cli = context.of(ctx)
    if len(args) < 2 or args[-1] not in APPROVALS:
        raise UsageError("usage: mcplock approval SERVER/TOOL… always|never",
                         hint="`always` asks before every call; `never` lets the host call without asking")
    mode = args[-1]

    def apply(srv: ServerEntry, e: Entry) -> None:
        if e.approval != mode:
            e.approval = mode
            cli.say(Text(f"approval {mode}: ").append_text(_target(srv, e)))

    return _modify(cli, args[:-1], apply)


def _pending_targets(lock: Lock, items: list[str], all_: bool) -> list[tuple[ServerEntry, Entry]]:
    chosen: list[tuple[ServerEntry, Entry]] = []
    seen: set[int] = set()
    if all_:
        for _, srv in sorted(lock.servers.items()):
            chosen += [(srv, e) for e in srv.entries() if e.pending is not None]
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
                chosen.append((srv, e))
    return chosen


def cmd_accept(
    ctx: typer.Context,
    items: list[str] | None = typer.Argument(None, metavar="[SERVER[/TOOL]]…"),
    all_: bool = typer.Option(False, "--all", help="Accept everything pending in the lock."),
    approval: str | None = typer.Option(None, "--approval", help="Set approval of the accepted tools: always|never."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Do not ask (same as naming the targets)."),
) -> int:
    """Accept pending proposals (interactive review on a terminal)."""
    from mcplock.lock import review
    from mcplock.lock.store import transaction

    cli = context.of(ctx)
    if approval is not None and approval not in APPROVALS:
        raise UsageError("--approval takes `always` or `never`")
    items = items or []
    interactive = not items and not all_ and sys.stdin.isatty() and sys.stdout.isatty() and not yes
    if not items and not all_ and not interactive:
        raise UsageError("name what to accept (SERVER, SERVER/TOOL …) or pass --all",
                         hint="`mcplock list` shows what is pending; `mcplock diff` shows the changes")
    counts = {"accepted": 0, "removed": 0, "rejected": 0}
    with transaction(cli.lockfile) as lock:
        chosen = _pending_targets(lock, items, all_ or interactive)
        if not chosen:
            cli.say("nothing pending")
            return 0
        for n, (srv, e) in enumerate(chosen, 1):
            decision, chosen_approval = "a", approval
            if interactive:
                decision, asked = _ask(cli, srv, e, n, len(chosen))
                chosen_approval = asked or approval
                if decision == "q":
                    break
            if decision == "a":
                r = review.accept(srv, e, approval=chosen_approval if e.kind == "tool" else None)
                counts[r] = counts.get(r, 0) + 1
                cli.say(Text(f"{r} ").append_text(_target(srv, e)))
            elif decision == "r" and review.reject(srv, e) == "rejected":
                counts["rejected"] += 1
                cli.say(Text("rejected ").append_text(_target(srv, e)))
    left = sum(s.pending_count() for s in lock.servers.values())
    cli.info(f"{counts['accepted']} accepted, {counts['removed']} removed, {counts['rejected']} rejected; {left} still pending")
    return 0


def _ask(cli: Cli, srv: ServerEntry, e: Entry, n: int, total: int) -> tuple[str, str | None]:
    """Show one proposal (diff and findings) and ask: accept / reject / skip / quit, then the approval."""
    from mcplock.lock.review import default_approval, stricter
    from mcplock.render.show import render_show

    cli.out.print(Text(f"\n[{n}/{total}]", style="bold"))
    cli.out.print(render_show(srv, [e], whole_server=False, color=cli.color()))
    answer = _prompt(cli, "accept / reject / skip / quit? [a/r/s/q] ", ("a", "r", "s", "q"), default="q")
    if answer != "a" or e.kind != "tool" or e.pending is None or e.pending.change == "removed":
        return answer, None
    proposed = default_approval(srv.policy, e.pending.definition)
    if e.pending.change == "changed" and e.definition is not None:
        proposed = stricter(e.approval, proposed)
    got = _prompt(cli, f"approval: ask before each call? [always/never, Enter = {proposed}] ", ("always", "never", ""), default="")
    return "a", (got or proposed)


def _prompt(cli: Cli, question: str, choices: tuple[str, ...], *, default: str) -> str:
    while True:
        cli.out.print(Text(question, style="bold"), end="")
        line = sys.stdin.readline()
        if not line:  # end of input
            return default
        answer = line.strip().lower()
        if answer in choices:
            return answer
        if answer and answer[:1] in choices and len(choices[0]) == 1:
            return answer[:1]


def cmd_reject(ctx: typer.Context, items: list[str] = typer.Argument(..., metavar="SERVER[/TOOL]…")) -> int:
    """Record pending proposals as seen but refused: the tool stays disabled."""
    from mcplock.lock import review
    from mcplock.lock.store import transaction

    cli = context.of(ctx)
    n = 0
    with transaction(cli.lockfile) as lock:
        for srv, e in _pending_targets(lock, items, False):
            r = review.reject(srv, e)
            if r == "removal":
                cli.info(Text("skipped ").append_text(_target(srv, e)).append(
                    ": the server no longer offers it; `mcplock accept` drops it from the lock"))
            elif r == "rejected":
                n += 1
                cli.say(Text("rejected ").append_text(_target(srv, e)))
    cli.info(f"{n} rejected")
    return 0


def register(app: typer.Typer) -> None:
    app.command("enable")(cmd_enable)
    app.command("disable")(cmd_disable)
    app.command("approval")(cmd_approval)
    app.command("accept")(cmd_accept)
    app.command("reject")(cmd_reject)
