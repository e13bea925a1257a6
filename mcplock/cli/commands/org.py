"""`mcplock inventory` and `mcplock fleet`: the organisation's view (docs/organisation.md). Both
are offline: nothing is launched, no connection is opened."""

from __future__ import annotations

import re
from datetime import timedelta

import typer

from mcplock.cli import context
from mcplock.cli.options import ORG_POLICY

INVENTORY_FORMATS = ("json", "cyclonedx")
FLEET_FORMATS = ("text", "json")
_DURATION = re.compile(r"(\d+(?:\.\d+)?)([dhm])")


def cmd_inventory(
    ctx: typer.Context,
    user: bool = typer.Option(
        False,
        "--user",
        help="This machine instead of the project: the user-level configs of the hosts mcplock knows "
        "(Claude Code, Claude Desktop, Cursor, VS Code, Windsurf, Codex, Gemini CLI, opencode).",
    ),
    fmt: str = typer.Option("json", "--format", help="json (mcplock's inventory, version 1) or cyclonedx (1.6 JSON)."),
    output: str | None = typer.Option(None, "-o", "--output", metavar="FILE", help="Write it to FILE, not stdout."),
    project: str | None = typer.Option(
        None,
        "--project",
        metavar="NAME",
        help="The name the inventory gives the project (default: $GITHUB_REPOSITORY, else the lock's directory; "
        "with --user, this machine's host name).",
    ),
    policy: str | None = ORG_POLICY,
) -> int:
    """What this project (its mcp.lock and host configs) or this machine (--user) runs: servers, the
    package and version each launches, the reviewed surfaces and the review state of every item.

    Launches nothing, connects nowhere, carries no secret (no env or header values, no arguments
    beyond a package and its version, URLs without user info, query or fragment, the home
    directory written ~). Feed it to Dependency-Track (--format cyclonedx) or to `mcplock fleet`."""
    from mcplock.org import inventory
    from mcplock.trust import org_policy

    cli = context.of(ctx)
    cli.report_format("inventory", fmt, INVENTORY_FORMATS)
    cli.check_output(output)
    if user:
        inv = inventory.user(name=project)
    else:
        inv = inventory.project(cli.lockfile, name=project, policy=org_policy.resolve(policy))
    if fmt == "cyclonedx":
        from mcplock.org.cyclonedx import dumps

        text = dumps(inv)
    else:
        import json

        from mcplock.text.untrusted import json_text

        text = json_text(json.dumps(inv, indent=2, ensure_ascii=False)) + "\n"
    cli.emit_report(text, output, "json", 0)  # (its own line below, not emit_report's)
    if output:
        cli.info(f"wrote the inventory to {output}: {len(inv['servers'])} servers")
    for note in inv["notes"]:
        cli.note(note)
    return 0


def parse_age(value: str) -> timedelta | None:
    """``30d``, ``12h``, ``90m`` (``none``: no maximum)."""
    from mcplock.errors import UsageError

    if value.strip().lower() in ("none", "off", "0"):
        return None
    m = _DURATION.fullmatch(value.strip())
    if m is None:
        raise UsageError(f"--max-age takes a duration such as 30d, 12h or 90m, not `{value}`", hint="--max-age 30d")
    n = float(m.group(1))
    return {"d": timedelta(days=n), "h": timedelta(hours=n), "m": timedelta(minutes=n)}[m.group(2)]


def cmd_fleet(
    ctx: typer.Context,
    paths: list[str] = typer.Argument(
        ...,
        metavar="PATH…",
        help="Lock files, inventories (json or cyclonedx) or directories of them (checkouts, CI artifacts).",
    ),
    fmt: str = typer.Option("text", "--format", help="text or json."),
    html_file: str | None = typer.Option(
        None, "--html", metavar="FILE", help="Also write the report as one self-contained HTML page (no script)."
    ),
    max_age: str = typer.Option(
        "30d", "--max-age", metavar="AGE", help="An inventory older than this is stale (30d, 12h, 90m; none: no limit)."
    ),
    advisories: bool = typer.Option(
        False,
        "--advisories",
        help="Also ask OSV ($MCPLOCK_OSV_URL, default api.osv.dev) about every exact release the projects pin or "
        "launch: malware first, then vulnerabilities; no answer is `unknown`, never `none`. Only package names "
        "and versions leave the machine.",
    ),
    policy: str | None = ORG_POLICY,
) -> int:
    """Join many projects' locks and inventories into one report of counts, never a score: servers
    by projects and versions, unpinned launches, items pending, disabled or accepted with a high or
    critical finding, one package version locked with different surfaces in two projects (critical),
    unsigned locks where signing is required, policy violations, stale inventories. A file that is
    not a lock or an inventory is set aside with the reason.

    Exit 0: nothing critical; 1: a package version locked with different surfaces, or (--advisories)
    a release reported as malware; 2: no lock or inventory could be read from the paths; 3 (with
    --advisories, nothing critical): OSV did not answer about a release."""
    from mcplock.errors import UsageError
    from mcplock.org import fleet, sources
    from mcplock.trust import org_policy

    cli = context.of(ctx)
    cli.report_format("fleet", fmt, FLEET_FORMATS)
    age = parse_age(max_age)
    cli.check_output(html_file)
    org = org_policy.resolve(policy)
    inputs = sources.load(paths, policy=org)
    if not inputs.projects:
        for r in inputs.set_aside:
            cli.note(f"{r['path']}: {r['reason']}")
        raise UsageError(
            "no lock or inventory could be read from " + ", ".join(paths),
            hint="give mcp.lock files, inventories (`mcplock inventory -o FILE`) or directories holding them",
        )
    report = fleet.join(inputs, max_age=age, policy=org, advisories=fleet.osv if advisories else None)
    code = fleet.exit_code(report)
    if html_file:
        from mcplock.org.fleet_html import page

        cli.emit_report(page(report), html_file, "html", code)
    if fmt == "json":
        cli.write_json({"command": "fleet", "exit_code": code, **report})
    else:
        from mcplock.render.fleet import details, summary

        for line in [*summary(report), *details(report)]:
            cli.out.print(line)
    return code


def register(app: typer.Typer) -> None:
    app.command("inventory")(cmd_inventory)
    app.command("fleet")(cmd_fleet)
