"""`mcplock list` and `mcplock show`: what the lock holds (offline)."""

from __future__ import annotations

import typer

from mcplock.cli import context
from mcplock.lock.model import ServerEntry


def cmd_list(
    ctx: typer.Context,
    fmt: str = typer.Option("text", "--format", help="text or json."),
) -> int:
    """Servers, tools, flags and pending counts (offline)."""
    from mcplock.lint.entries import lint_entries
    from mcplock.lock.read import load

    cli = context.of(ctx)
    cli.report_format("list", fmt, ("text", "json"))
    lock = load(cli.lockfile)
    found = lint_entries(lock.servers.values())
    seen = drift_evidence(cli.lockfile, lock)
    if fmt == "json":
        cli.write_json({"version": 1, "command": "list", "lockfile": cli.lockfile,
                        "servers": [_server_json(s, found) for _, s in sorted(lock.servers.items())],
                        "drift_evidence": seen})
        return 0
    from mcplock.render.text import render_list

    cli.out.print(render_list(lock, found))
    note_drift_evidence(cli, seen)
    return 0


def drift_evidence(lockfile: str, lock) -> list[dict[str, object]]:  # type: ignore[no-untyped-def]
    """Calls that passed the locked schema and failed upstream (recorded by `mcplock run`/`call`)."""
    from mcplock.guard import evidence

    return evidence.current(lockfile, lock)


def note_drift_evidence(cli: context.Cli, seen: list[dict[str, object]]) -> None:
    for r in seen:
        cli.note(f"drift evidence: `{r.get('server')}/{r.get('tool')}` passed its locked schema at run time and the "
                 f"server refused it ({r.get('code')}: {r.get('message')}); run `mcplock diff {r.get('server')}`")


def _server_json(s: ServerEntry, found: dict) -> dict[str, object]:
    return {
        "name": s.name,
        "transport": s.transport,
        "policy": s.policy,
        "source": s.source,
        "server_info": s.server_info,
        "package": s.package.stored() if s.package is not None else None,
        "pending": s.pending_count(),
        "items": [
            {"kind": e.kind, "name": e.key, "state": e.state,
             **({"enabled": e.enabled, "approval": e.approval} if e.kind == "tool" else {}),
             "hash": e.hash,
             "tampered": e.tampered() or e.tampered(pending=True),
             "findings": [f.as_json() for f in found.get((s.name, e.kind, e.key), [])]}
            for e in s.entries()
        ],
    }


def cmd_show(ctx: typer.Context, target: str = typer.Argument(..., metavar="SERVER[/TOOL]")) -> int:
    """The accepted definition (and any pending proposal) in full.

    SERVER/tool:NAME names a tool whose name reads as something else (`instructions`, `prompt:x`).
    """
    from mcplock import targets
    from mcplock.lock.read import load
    from mcplock.render.show import render_show

    cli = context.of(ctx)
    lock = load(cli.lockfile)
    t = targets.parse(target)
    srv, entries = targets.resolve(lock, t)
    cli.out.print(render_show(srv, entries, whole_server=t.kind is None, color=cli.color()))
    return 0


def register(app: typer.Typer) -> None:
    app.command("list")(cmd_list)
    app.command("show")(cmd_show)
