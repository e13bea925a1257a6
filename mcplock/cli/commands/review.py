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

Apply = Callable[[ServerEntry, Entry], "Text | None"]  # a change to one tool; the line reporting it


def _target(srv: ServerEntry, e: Entry) -> Text:
    return safe_text(targets.label(srv, e), keep_newlines=False)


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
    """Accept pending proposals (interactive review on a terminal).

    Targets: SERVER (everything pending on it), SERVER/TOOL, SERVER/prompt:NAME,
    SERVER/resource-template:URI, SERVER/instructions; SERVER/tool:NAME names a tool whose
    name reads as something else (a tool called `instructions` or `prompt:x`).
    """
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
    done: list[Text] = []
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
                done.append(Text(f"{r} ").append_text(_target(srv, e)))
            elif decision == "r" and review.reject(srv, e) == "rejected":
                counts["rejected"] += 1
                done.append(Text("rejected ").append_text(_target(srv, e)))
    for line in done:  # reported once written
        cli.say(line)
    left = sum(s.pending_count() for s in lock.servers.values())
    cli.info(f"{counts['accepted']} accepted, {counts['removed']} removed, {counts['rejected']} rejected; "
             f"{left} still pending")
    return 0


def _ask(cli: Cli, srv: ServerEntry, e: Entry, n: int, total: int) -> tuple[str, str | None]:
    """Show one proposal (diff and findings) and ask: accept / reject / skip / quit, then the approval."""
    from mcplock.lock.review import proposed_approval
    from mcplock.render.show import render_show

    cli.out.print(Text(f"\n[{n}/{total}]", style="bold"))
    cli.out.print(render_show(srv, [e], whole_server=False, color=cli.color()))
    answer = _prompt(cli, "accept / reject / skip / quit? [a/r/s/q] ", ("a", "r", "s", "q"), default="q")
    if answer != "a" or e.kind != "tool" or e.pending is None or e.pending.change == "removed":
        return answer, None
    proposed = proposed_approval(srv, e)
    got = _prompt(cli, f"approval: ask before each call? [always/never, Enter = {proposed}] ",
                  ("always", "never", ""), default="")
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
        for srv, e in _pending_targets(lock, items, False):
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
