"""Offline commands on the lock: list, check, show, enable/disable, approval,
accept/reject, remove. None of them touches the network or imports the MCP SDK."""

from __future__ import annotations

import json
import sys
from typing import List, Optional

import typer
from rich.text import Text

from mcplock.cli import output, targets
from mcplock.errors import UsageError
from mcplock.lock.model import APPROVALS, Entry, ServerEntry


def _lockfile() -> str:
    return output.settings().lockfile


def _set_json(command: str, fmt: str) -> None:
    if fmt == "json":
        from mcplock.cli import app

        app.json_command = command


def cmd_list(
    fmt: str = typer.Option("text", "--format", help="text or json."),
) -> int:
    """Servers, tools, flags and pending counts (offline)."""
    from mcplock.lock.read import load

    if fmt not in ("text", "json"):
        raise UsageError(f"unknown format `{fmt}` for list", hint="use --format text or --format json")
    _set_json("list", fmt)
    lock = load(_lockfile())
    if fmt == "json":
        from mcplock.lint.entries import lint_entries

        found = lint_entries(lock.servers.values())
        doc = {"version": 1, "command": "list", "lockfile": _lockfile(),
               "servers": [_server_json(s, found) for _, s in sorted(lock.servers.items())]}
        sys.stdout.write(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
        return 0
    from mcplock.lint.entries import lint_entries
    from mcplock.render.text import render_list

    output.settings().out.print(render_list(lock, lint_entries(lock.servers.values())))
    return 0


def _server_json(s: ServerEntry, found: dict | None = None) -> dict[str, object]:
    found = found or {}
    return {
        "name": s.name,
        "transport": s.transport,
        "policy": s.policy,
        "source": s.source,
        "server_info": s.server_info,
        "pending": s.pending_count(),
        "items": [
            {"kind": e.kind, "name": e.key, "state": e.state,
             **({"enabled": e.enabled, "approval": e.approval} if e.kind == "tool" else {}),
             "hash": e.hash,
             "findings": [f.as_json() for f in found.get((s.name, e.kind, e.key), [])]}
            for e in s.entries()
        ],
    }


def cmd_check(
    fmt: str = typer.Option("text", "--format", help="text, json, markdown (step summaries, PR comments), sarif (code scanning) or github (annotations)."),
    out_file: Optional[str] = typer.Option(None, "--output", "-o", metavar="FILE", help="Write the report to FILE instead of stdout."),
) -> int:
    """Offline gate for pre-commit: hashes match, nothing pending, in sync with host configs."""
    from mcplock.check import run_check
    from mcplock.lock.read import load
    from mcplock.render import formats

    if fmt not in formats.FORMATS:
        raise UsageError(f"unknown format `{fmt}` for check", hint=f"use --format {'|'.join(formats.FORMATS)}")
    _set_json("check", fmt)
    path = _lockfile()
    lock = load(path)
    findings = run_check(lock, path)
    code = 1 if findings else 0
    if fmt != "text":
        lock_text = None
        if fmt in ("sarif", "github"):
            try:
                with open(path, encoding="utf-8") as fh:
                    lock_text = fh.read()
            except OSError:
                pass
        report = formats.check_report(fmt, findings, lock, path, code, lock_text=lock_text,
                                      path=formats.artifact_path(path))
        output.emit_report(report, out_file, fmt, code)
        return code
    from mcplock.render.text import render_findings

    s = output.settings()
    tools = sum(len(srv.tools) for srv in lock.servers.values())
    if not findings:
        verdict = Text(f"ok: {path}: {len(lock.servers)} servers, {tools} tools, every hash matches, nothing pending")
    else:
        verdict = Text(f"{len(findings)} problem(s) in {path}", style="bold red")
    if out_file:
        from rich.console import Console, Group

        parts = [render_findings(findings), verdict] if findings else [verdict]
        with open(out_file, "w", encoding="utf-8") as fh:
            Console(file=fh, no_color=True, color_system=None, soft_wrap=True, highlight=False).print(Group(*parts))
        output.info(f"wrote the report to {out_file} (exit {code})")
        return code
    if findings:
        s.out.print(render_findings(findings))
    output.say(verdict)
    return code


def cmd_show(target: str = typer.Argument(..., metavar="SERVER[/TOOL]")) -> int:
    """The accepted definition (and any pending proposal) in full."""
    from mcplock.lock.read import load
    from mcplock.render.show import render_show

    lock = load(_lockfile())
    t = targets.parse(target)
    srv, entries = targets.resolve(lock, t)
    output.settings().out.print(render_show(srv, entries, whole_server=t.kind is None, color=_color()))
    return 0


def _modify(specs: list[str], fn, *, tool_only: bool = True) -> int:
    from mcplock.lock.store import transaction

    if not specs:
        raise UsageError("name at least one SERVER/TOOL")
    parsed = [targets.parse(x, tool_only=tool_only) for x in specs]
    with transaction(_lockfile()) as lock:
        for t in parsed:
            srv, entries = targets.resolve(lock, t)
            for e in entries:
                if tool_only and e.kind != "tool":
                    continue
                fn(srv, e)
    return 0


def _set_enabled(value: bool):
    def apply(srv: ServerEntry, e: Entry) -> None:
        target = f"{srv.name}/{e.label}"
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
            output.say(Text(f"{'enabled' if value else 'disabled'} ").append_text(_safe(target)))
    return apply


def _safe(s: str) -> Text:
    from mcplock.untrusted import safe_text

    return safe_text(s, keep_newlines=False)


def cmd_enable(tools: List[str] = typer.Argument(..., metavar="SERVER/TOOL…")) -> int:
    """Enable tools (a host sees only enabled tools)."""
    return _modify(tools, _set_enabled(True))


def cmd_disable(tools: List[str] = typer.Argument(..., metavar="SERVER/TOOL…")) -> int:
    """Disable tools (kept in the lock, hidden from hosts)."""
    return _modify(tools, _set_enabled(False))


def cmd_approval(
    args: List[str] = typer.Argument(..., metavar="SERVER/TOOL… always|never"),
) -> int:
    """Set whether a host must ask before each call: `always` (ask) or `never`."""
    if len(args) < 2 or args[-1] not in APPROVALS:
        raise UsageError("usage: mcplock approval SERVER/TOOL… always|never",
                         hint="`always` asks before every call; `never` lets the host call without asking")
    mode = args[-1]

    def apply(srv: ServerEntry, e: Entry) -> None:
        if e.approval != mode:
            e.approval = mode
            output.say(Text(f"approval {mode}: ").append_text(_safe(f"{srv.name}/{e.label}")))

    return _modify(args[:-1], apply)


def _pending_targets(lock, specs: list[str], all_: bool) -> list[tuple[ServerEntry, Entry]]:
    chosen: list[tuple[ServerEntry, Entry]] = []
    seen: set[int] = set()
    if all_:
        for _, srv in sorted(lock.servers.items()):
            chosen += [(srv, e) for e in srv.entries() if e.pending is not None]
        return chosen
    for spec in specs:
        t = targets.parse(spec)
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
    items: Optional[List[str]] = typer.Argument(None, metavar="[SERVER[/TOOL]]…"),
    all_: bool = typer.Option(False, "--all", help="Accept everything pending in the lock."),
    approval: Optional[str] = typer.Option(None, "--approval", help="Set approval of the accepted tools: always|never."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Do not ask (same as naming the targets)."),
) -> int:
    """Accept pending proposals (interactive review on a terminal)."""
    from mcplock.lock import review
    from mcplock.lock.store import transaction

    if approval is not None and approval not in APPROVALS:
        raise UsageError("--approval takes `always` or `never`")
    items = items or []
    interactive = not items and not all_ and sys.stdin.isatty() and sys.stdout.isatty() and not yes
    if not items and not all_ and not interactive:
        raise UsageError("name what to accept (SERVER, SERVER/TOOL …) or pass --all",
                         hint="`mcplock list` shows what is pending; `mcplock diff` shows the changes")
    counts = {"accepted": 0, "removed": 0, "rejected": 0}
    with transaction(_lockfile()) as lock:
        chosen = _pending_targets(lock, items, all_ or interactive)
        if not chosen:
            output.say("nothing pending")
            return 0
        for n, (srv, e) in enumerate(chosen, 1):
            decision, chosen_approval = "a", approval
            if interactive:
                decision, asked = _ask(srv, e, n, len(chosen))
                chosen_approval = asked or approval
                if decision == "q":
                    break
            if decision == "a":
                r = review.accept(srv, e, approval=chosen_approval if e.kind == "tool" else None)
                counts[r] = counts.get(r, 0) + 1
                output.say(Text(f"{r} ").append_text(_safe(f"{srv.name}/{e.label}")))
            elif decision == "r":
                r = review.reject(srv, e)
                if r == "rejected":
                    counts["rejected"] += 1
                    output.say(Text("rejected ").append_text(_safe(f"{srv.name}/{e.label}")))
    left = sum(s.pending_count() for s in lock.servers.values())
    output.info(f"{counts['accepted']} accepted, {counts['removed']} removed, {counts['rejected']} rejected; {left} still pending")
    return 0


def _color() -> bool:
    import os

    s = output.settings()
    return s.out.is_terminal and not s.no_color and not os.environ.get("NO_COLOR")


def _ask(srv: ServerEntry, e: Entry, n: int, total: int) -> tuple[str, str | None]:
    """Show one proposal (diff and findings) and ask: accept / reject / skip / quit, then the approval."""
    from mcplock.lock.review import default_approval, stricter
    from mcplock.render.show import render_show

    s = output.settings()
    s.out.print(Text(f"\n[{n}/{total}]", style="bold"))
    s.out.print(render_show(srv, [e], whole_server=False, color=_color()))
    answer = _prompt("accept / reject / skip / quit? [a/r/s/q] ", ("a", "r", "s", "q"), default="q")
    if answer != "a" or e.kind != "tool" or e.pending is None or e.pending.change == "removed":
        return answer, None
    proposed = default_approval(srv.policy, e.pending.definition)
    if e.pending.change == "changed" and e.definition is not None:
        proposed = stricter(e.approval, proposed)
    got = _prompt(f"approval: ask before each call? [always/never, Enter = {proposed}] ", ("always", "never", ""), default="")
    return "a", (got or proposed)


def _prompt(question: str, choices: tuple[str, ...], *, default: str) -> str:
    s = output.settings()
    while True:
        s.out.print(Text(question, style="bold"), end="")
        line = sys.stdin.readline()
        if not line:  # end of input
            return default
        answer = line.strip().lower()
        if answer in choices:
            return answer
        if answer and answer[:1] in choices and len(choices[0]) == 1:
            return answer[:1]


def cmd_reject(items: List[str] = typer.Argument(..., metavar="SERVER[/TOOL]…")) -> int:
    """Record pending proposals as seen but refused: the tool stays disabled."""
    from mcplock.lock import review
    from mcplock.lock.store import transaction

    n = 0
    with transaction(_lockfile()) as lock:
        for srv, e in _pending_targets(lock, items, False):
            r = review.reject(srv, e)
            label = _safe(f"{srv.name}/{e.label}")
            if r == "removal":
                output.info(Text("skipped ").append_text(label).append(
                    ": the server no longer offers it; `mcplock accept` drops it from the lock"))
            elif r == "rejected":
                n += 1
                output.say(Text("rejected ").append_text(label))
    output.info(f"{n} rejected")
    return 0


def cmd_remove(names: List[str] = typer.Argument(..., metavar="NAME…")) -> int:
    """Drop servers from the lock."""
    from mcplock.lock.store import transaction

    with transaction(_lockfile()) as lock:
        for name in names:
            targets.server_of(lock, name)
        for name in names:
            del lock.servers[name]
            output.say(Text("removed server ").append_text(_safe(name)))
    return 0


def register(app: typer.Typer) -> None:
    app.command("list")(cmd_list)
    app.command("check")(cmd_check)
    app.command("show")(cmd_show)
    app.command("enable")(cmd_enable)
    app.command("disable")(cmd_disable)
    app.command("approval")(cmd_approval)
    app.command("accept")(cmd_accept)
    app.command("reject")(cmd_reject)
    app.command("remove")(cmd_remove)
