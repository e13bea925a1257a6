"""`mcplock init`: find the host configs of this project and lock every server they name."""

from __future__ import annotations

import typer
from rich.text import Text

from mcplock.cli import context
from mcplock.cli.commands.add import check_policy
from mcplock.cli.commands.merge import offer_driver
from mcplock.cli.locking import hold_code_env, lock_specs
from mcplock.cli.options import POLICY, TRUST, YES, ProbeArgs, probing
from mcplock.core import add_sources
from mcplock.text.untrusted import safe_text


@probing(login=False)
def cmd_init(
    ctx: typer.Context,
    policy: str = POLICY,
    yes: bool = YES,
    trust: bool = TRUST,
    *,
    probe: ProbeArgs,
) -> int:
    """Find the MCP host configs of this project and lock every server they name."""
    from mcplock.lock.store import check_directory

    cli = context.of(ctx)
    check_policy(policy)
    check_directory(cli.lockfile)
    found = add_sources.from_project(cli.lock_dir, add_sources.locked_names(cli.lockfile))
    for rel, host, names in found.configs:
        cli.err.print(
            Text("found ")
            .append_text(safe_text(f"{rel} ({host}): ", keep_newlines=False))
            .append_text(safe_text(", ".join(names) or "no servers", keep_newlines=False))
        )
    for n in found.notes:
        cli.note(n)
    if not found.specs:
        cli.info("every server is already locked; `mcplock refresh` re-probes them")
        offer_driver(cli)
        return 0
    # the commands of a config are shown and trusted before anything runs (--trust, --yes, a yes)
    specs = hold_code_env(cli, found.specs, []) if trust or yes else found.specs
    code = lock_specs(cli, specs, policy, yes, probe, consent=trust or yes, how="mcplock init --trust")
    if code != 130:  # interrupted: stop asking
        offer_driver(cli)
    return code


def register(app: typer.Typer) -> None:
    app.command("init")(cmd_init)
