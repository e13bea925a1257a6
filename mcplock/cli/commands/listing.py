"""`mcplock list` and `mcplock show`: what the lock holds (offline)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from mcplock.cli import context
from mcplock.lock.model import ServerEntry
from mcplock.model.documents import is_dynamic
from mcplock.text.untrusted import shell_word

if TYPE_CHECKING:
    from mcplock.lint import LintFinding
    from mcplock.lock.model import Lock

Key = tuple[str, str, str]  # (server, kind, key)


def cmd_list(
    ctx: typer.Context,
    fmt: str = typer.Option("text", "--format", help="text or json."),
) -> int:
    """Servers, tools, flags and pending counts (offline)."""
    from mcplock.lint.cache import LintCache
    from mcplock.lint.entries import lint_entries
    from mcplock.lock.read import load

    cli = context.of(ctx)
    cli.report_format("list", fmt, ("text", "json"))
    lock = load(cli.lockfile)
    hashes, tampered = verify(lock)
    cache = LintCache.open()
    found = lint_entries(lock.servers.values(), cache=cache, hashes=hashes)
    if cache is not None:
        cache.save()
    seen = drift_evidence(cli.lockfile, lock)
    if fmt == "json":
        cli.write_json(
            {
                "version": 1,
                "command": "list",
                "lockfile": cli.lockfile,
                "servers": [_server_json(s, found, tampered) for _, s in sorted(lock.servers.items())],
                "drift_evidence": seen,
            }
        )
        return 0
    from mcplock.render.text import render_list

    cli.out.print(render_list(lock, found, tampered))
    note_drift_evidence(cli, seen)
    return 0


def verify(lock: Lock) -> tuple[dict[Key, str], set[Key]]:
    """Each item's stored hashes checked once against its definitions: (item -> the hash of its
    accepted definition, where they match: what the lint cache may be keyed by; the items whose
    accepted or pending definition does not match its hash). A hand-edited definition is thus
    linted afresh, never looked up under the hash it claims."""
    hashes: dict[Key, str] = {}
    tampered: set[Key] = set()
    for sname, srv in lock.servers.items():
        for e in srv.entries():
            key = (sname, e.kind, e.key)
            bad = e.tampered()
            if e.hash and not bad:
                hashes[key] = e.hash
            if bad or e.tampered(pending=True):
                tampered.add(key)
    return hashes, tampered


def drift_evidence(lockfile: str, lock: Lock) -> list[dict[str, object]]:
    """Calls that passed the locked schema and failed upstream (recorded by `mcplock run`/`call`)."""
    from mcplock.guard import evidence

    return evidence.current(lockfile, lock)


def note_drift_evidence(cli: context.Cli, seen: list[dict[str, object]]) -> None:
    for r in seen:
        cli.note(
            f"drift evidence: `{r.get('server')}/{r.get('tool')}` passed its locked schema at run time and the "
            f"server refused it ({r.get('code')}: {r.get('message')}); run "
            f"`mcplock diff {shell_word(str(r.get('server')))}`"
        )


def _code_env(s: ServerEntry) -> list[str]:
    from mcplock.packages.envcode import of_spec

    return of_spec(s.spec)


def _server_json(s: ServerEntry, found: dict[Key, list[LintFinding]], tampered: set[Key]) -> dict[str, object]:
    return {
        "name": s.name,
        "transport": s.spec.transport,
        "policy": s.policy,
        "source": s.spec.source,
        "server_info": s.server_info,
        "package": s.spec.package.stored() if s.spec.package is not None else None,
        "loads_code": _code_env(s),  # variables that load code outside the pin (critical)
        "pending": s.pending_count(),
        "items": [
            {
                "kind": e.kind,
                "name": e.key,
                "state": e.state,
                **({"enabled": e.enabled, "approval": e.approval} if e.kind == "tool" else {}),
                **({"dynamic": is_dynamic(e.definition)} if e.kind == "skill" else {}),
                "hash": e.hash,
                "tampered": (s.name, e.kind, e.key) in tampered,
                "findings": [f.as_json() for f in found.get((s.name, e.kind, e.key), [])],
            }
            for e in s.entries()
        ],
    }


def cmd_show(
    ctx: typer.Context,
    target: str = typer.Argument(..., metavar="SERVER[/TOOL]"),
    full: bool = typer.Option(
        False, "--full", help="Print documents (an App's HTML, a SKILL.md) whole, not an excerpt."
    ),
) -> int:
    """The accepted definition (and any pending proposal) in full; a document as an excerpt with
    its size and hash, then its diff (--full: the whole text). A change is shown whole; at a
    terminal what is taller than the screen goes through the pager ($MCPLOCK_PAGER, $PAGER, less).

    SERVER/tool:NAME names a tool whose name reads as something else (`instructions`, `prompt:x`).
    """
    from mcplock.lock import targets
    from mcplock.lock.read import load
    from mcplock.render.show import render_show

    cli = context.of(ctx)
    lock = load(cli.lockfile)
    t = targets.parse(target)
    srv, entries = targets.resolve(lock, t)
    from mcplock.cli.pager import page

    page(cli, render_show(srv, entries, whole_server=t.kind is None, color=cli.color(), full=full))
    return 0


def register(app: typer.Typer) -> None:
    app.command("list")(cmd_list)
    app.command("show")(cmd_show)
