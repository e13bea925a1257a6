"""`mcplock export`: write the lock's per-tool flags into the hosts' project settings."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer
from rich.text import Text

from mcplock.cli import context
from mcplock.cli.options import ORG_POLICY
from mcplock.text.untrusted import safe_text

if TYPE_CHECKING:
    from mcplock.core.export import FileChange, Plan
    from mcplock.lock.model import Lock
    from mcplock.trust.org_policy import OrgPolicy

HOST_HELP = (
    "A host to export to (repeatable): claude-code, codex, gemini, opencode, cursor. "
    "Default: every host whose project config exists."
)


def cmd_export(
    ctx: typer.Context,
    hosts: list[str] = typer.Option([], "--host", metavar="HOST", help=HOST_HELP),
    guard: bool | None = typer.Option(
        None,
        "--guard/--no-guard",
        help="Launch each locked server through `mcplock run NAME` (--no-guard restores the original entry).",
    ),
    dry_run: bool = typer.Option(
        False, "--dry-run", help="Print the change as a diff, write nothing; exit 1 if anything would change."
    ),
    policy: str | None = ORG_POLICY,
    fmt: str = typer.Option(
        "hosts",
        "--format",
        help=(
            "hosts (default): the hosts' permission files; mcp-lock-v1: the open mcp-lock/1 document (docs/interop.md)."
        ),
    ),
    out_file: str | None = typer.Option(
        None,
        "--output",
        "-o",
        metavar="FILE",
        help=("With --format mcp-lock-v1: where to write it (default mcp-lock.json beside the lock; - for stdout)."),
    ),
) -> int:
    """Write the lock's flags into each host's own permission settings (see docs/export.md), or
    (--format mcp-lock-v1) the lock as an open mcp-lock/1 document.

    Disabled or unreviewed tools are denied, `approval = "always"` asks, `"never"` is allowed.
    Only the rules mcplock wrote are ever changed; a second run changes nothing.
    """
    from mcplock.errors import UsageError
    from mcplock.lock.read import load
    from mcplock.trust import org_policy

    cli = context.of(ctx)
    if fmt not in ("hosts", "mcp-lock-v1"):
        raise UsageError(f"unknown format `{fmt}` for export", hint="use --format hosts|mcp-lock-v1")
    org = org_policy.resolve(policy)  # a tool it denies is written as deny, whatever the lock says
    from mcplock.core.check import verified

    lock = verified(load(cli.lockfile), cli.lockfile)  # a hand-edited lock is not exported
    if fmt == "mcp-lock-v1":
        if hosts or guard is not None:
            raise UsageError(
                "--host and --guard are for the hosts' files, not --format mcp-lock-v1", hint="run them as two exports"
            )
        return _export_v1(cli, lock, out_file, dry_run)
    return _export_hosts(cli, lock, hosts, guard, policy, org, out_file=out_file, dry_run=dry_run)


def _export_hosts(
    cli: context.Cli,
    lock: Lock,
    hosts: list[str],
    guard: bool | None,
    policy: str | None,
    org: OrgPolicy | None,
    *,
    out_file: str | None,
    dry_run: bool,
) -> int:
    """--format hosts: the hosts' permission files written (or, --dry-run, shown as a diff)."""
    from mcplock.core import export as core
    from mcplock.errors import UsageError

    if out_file is not None:
        raise UsageError("--output is for --format mcp-lock-v1", hint="the hosts' files are written in place")
    command = _guard_command(cli) if guard else "mcplock"
    given = _policy_to_record(cli, policy)
    plan = core.plan(lock, cli.lockfile, hosts, guard=guard, command=command, org=org, policy=given)
    if not plan.changes:
        cli.info("no host config found in this project; name one with --host " + "|".join(core.EXPORTERS))
        return 0
    _say_notes(cli, plan)
    if dry_run:
        return _show_diff(cli, plan)
    written = core.write(plan)
    for c in plan.changes:
        say_change(cli, c)
    _register_with_driver(cli, plan)
    if not written:
        cli.info("everything was already in sync with the lock")
    return 0


def _register_with_driver(cli: context.Cli, plan: Plan) -> None:
    """Where git merges the lock with mcplock's driver, the host files exported to get it too."""
    from mcplock.core.merge_install import register_exports

    for line in register_exports(cli.lockfile, sorted(plan.states)):
        shown = safe_text(line, keep_newlines=False)
        cli.say(Text("added `").append_text(shown).append("` to .gitattributes (commit it)"))


def _guard_command(cli: context.Cli) -> str:
    """The command host entries launch the guard with: `mcplock`, or this one's path when the
    `mcplock` on PATH is another (said: a teammate cannot use such an entry)."""
    from mcplock.core.export_guard import guard_command

    command = guard_command()
    if command != "mcplock":
        cli.note(
            f"the `mcplock` on PATH is not this one (or there is none): host entries launch {command}, "
            "a path of this machine; put this mcplock on PATH and export again for entries a teammate "
            "can use"
        )
    return command


def _policy_to_record(cli: context.Cli, policy: str | None) -> str | None:
    """The --policy the export record will name; said when it is not the one the last export used."""
    from mcplock.core import export_record
    from mcplock.core.export_policy import policy_to_record

    recorded = export_record.load(cli.lockfile).policy
    given = policy_to_record(cli.lockfile, policy)
    if recorded is not None and given != recorded:
        cli.note(
            f"the last export used --policy {recorded}; this one uses "
            + (f"--policy {given}" if given else "none")
            + " (the export record now says so)"
        )
    return given


def _say_notes(cli: context.Cli, plan: Plan) -> None:
    for c in plan.changes:
        for n in c.notes:
            cli.note(n)
        for n in c.contradictions:
            cli.note(f"{c.path}: {n} (your own setting: mcplock leaves it; `mcplock check` reports it)")


def _show_diff(cli: context.Cli, plan: Plan) -> int:
    """--dry-run: each change as a diff (and whether the export record would change); 1 when
    anything would."""
    for c in plan.changes:
        if c.changed:
            cli.out.print(safe_text(c.diff()), end="")
    if plan.record_before != plan.record_after:
        cli.info(f"the export record {plan.record} would be updated")
    return 1 if plan.changed else 0


def say_change(cli: context.Cli, c: FileChange, why: str = "") -> None:
    """One line per host file: updated, unchanged, removed (empty), or none needed."""
    path = safe_text(c.path, keep_newlines=False)
    if c.remove:
        cli.say(Text("removed ").append_text(path).append(f" ({c.host}): nothing to write there{why}"))
    elif c.absent:
        cli.say(Text("no file for ").append_text(path).append(f" ({c.host}): nothing to write there"))
    else:
        cli.say(Text("updated " if c.changed else "unchanged ").append_text(path).append(f" ({c.host}){why}"))


NO_EXPORT = typer.Option(
    False,
    "--no-export",
    help="Leave the exported host settings as they are (by default a project that ran `mcplock export` "
    "gets them rewritten to match; `mcplock check` then reports them until you export).",
)


def keep_in_step(cli: context.Cli, no_export: bool, policy: str | None = None) -> int:
    """After a command changed the lock's flags: rewrite the host settings of a project that has
    exported (the hosts and policy its export record names) and say what was rewritten. 0, or
    2 when a host file cannot be written (the lock is written already; the error says so)."""
    from mcplock.core import export as core
    from mcplock.core.export_policy import policy_hint
    from mcplock.errors import McplockError
    from mcplock.lock.read import load

    try:
        lock = load(cli.lockfile)
        found = core.in_step(lock, cli.lockfile, policy)
        if found is None:
            return 0
        plan, used = found
        if no_export:
            _say_left(cli, plan, used, lock)
            return 0
        core.write(plan)
    except McplockError as err:
        cli.error(
            f"the lock is written, but its exported host settings were not kept in step: {err.message}",
            err.hint or f"fix that, then run `mcplock export{policy_hint(policy)}`",
        )
        return 2
    for c in plan.changes:
        if c.changed:
            say_change(cli, c, ": exported flags kept in step with the lock")
    if any(c.changed and c.before is None for c in plan.changes):
        _register_with_driver(cli, plan)  # a host file written for the first time
    return 0


def _say_left(cli: context.Cli, plan: Plan, used: str | None, lock: Lock) -> None:
    """--no-export: said when the exported host settings are now behind the lock (the lock's
    repair named first while it fails its hashes: until then `mcplock export` refuses it)."""
    from mcplock.core.check import integrity, repair_hint
    from mcplock.core.export_policy import policy_hint

    if any(c.changed for c in plan.changes):
        first = ""
        if integrity(lock):  # `mcplock export` refuses a lock that fails its hashes
            first = f"restore the lock from git ({repair_hint(lock)}: it fails its hashes), then "
        cli.info(
            "left the exported host settings as they were (--no-export): `mcplock check` reports "
            f"them until you {first}run `mcplock export{policy_hint(used)}`"
        )


def _export_v1(cli: context.Cli, lock: Lock, out_file: str | None, dry_run: bool) -> int:
    import os
    import sys

    from mcplock.interop import digests, produce
    from mcplock.lock.store import write_atomic

    doc, notes = produce.document(lock)
    for n in notes:
        cli.note(n)
    if out_file == "-":
        sys.stdout.write(produce.dumps(doc).decode("ascii"))
        return 0
    path = out_file or os.path.join(cli.lock_dir, "mcp-lock.json")
    if out_file:
        cli.check_output(out_file)
    same = _compare_with_written(path, doc)
    shown = safe_text(path, keep_newlines=False)
    if dry_run:
        sys.stdout.write(produce.dumps(doc).decode("ascii"))
        return 0 if same else 1
    if same:
        cli.say(Text("unchanged ").append_text(shown).append(" (mcp-lock/1: the lock has not changed)"))
        return 0
    write_atomic(path, produce.dumps(doc))
    cli.say(
        Text("wrote ")
        .append_text(shown)
        .append(f" (mcp-lock/1, {len(doc['entries'])} entries; lock digest {digests.whole_lock_digest(doc)})")
    )
    return 0


def _compare_with_written(path: str, doc: dict[str, Any]) -> bool:
    """Whether the mcp-lock/1 document at ``path`` pins the same lock as ``doc``; when it pins
    another, ``doc`` keeps the time that one was first written."""
    before = _written(path)
    if before is None:
        return False
    same = _same_lock(before, doc)
    if not same:
        _keep_generated_at(before, doc)
    return same


def _written(path: str) -> dict[str, Any] | None:
    """The mcp-lock/1 document at ``path`` now (None: none there, or not one)."""
    from mcplock.interop import canonical
    from mcplock.model.files import DOCUMENT_MAX, read_bounded

    try:
        before = canonical.loads(read_bounded(path, DOCUMENT_MAX))
    except (OSError, canonical.DocumentError):
        return None
    return before if isinstance(before, dict) else None


def _same_lock(before: dict[str, Any], doc: dict[str, Any]) -> bool:
    """The two documents pin the same lock (their whole-lock digests; the timestamps aside)."""
    from mcplock.interop import digests

    try:
        return digests.whole_lock_digest(before) == digests.whole_lock_digest(doc)
    except (ValueError, KeyError):
        return False


def _keep_generated_at(before: dict[str, Any], doc: dict[str, Any]) -> None:
    """A changed document keeps the time it was first written (updatedAt says when it last changed)."""
    from mcplock.interop import reader

    generated = before.get("generatedAt")
    if isinstance(generated, str) and not reader.check({**doc, "generatedAt": generated}):
        doc["generatedAt"] = generated


def register(app: typer.Typer) -> None:
    app.command("export")(cmd_export)
