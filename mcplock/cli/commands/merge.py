"""`mcplock merge-driver install|run` and `mcplock resolve`: merging locks in git (docs/merging.md)."""

from __future__ import annotations

import sys

import typer
from rich.text import Text

from mcplock.cli import context
from mcplock.text.untrusted import safe_text


def cmd_install(ctx: typer.Context) -> int:
    """Let git merge the lock as data: the .gitattributes lines and this clone's git config.

    The lock, its export record and the host files the export wrote all merge as data.
    Commit .gitattributes; each clone runs this once (git keeps drivers in .git/config)."""
    install_driver(context.of(ctx))
    return 0


def offer_driver(cli: context.Cli) -> None:
    """After `init`: in a git repository without the driver, offer it on a terminal (a hint otherwise)."""
    import os

    from mcplock.core.merge_install import installed, repo_top
    from mcplock.errors import UsageError

    if not os.path.exists(cli.lockfile) or installed(cli.lockfile):
        return
    try:
        repo_top(cli.lock_dir)
    except UsageError:
        return  # not in git: nothing to merge
    if sys.stdin.isatty() and sys.stderr.isatty():
        from mcplock.cli.prompt import confirm

        if confirm(cli.err, "let git merge mcp.lock as data (`mcplock merge-driver install`)? [Y/n] ", default=True):
            install_driver(cli)
        return
    cli.info("hint: `mcplock merge-driver install` lets git merge mcp.lock branches as data")


def install_driver(cli: context.Cli) -> None:
    from mcplock.core.merge_install import install

    done = install(cli.lockfile)
    for line in done.lines:
        cli.say(
            Text("added `")
            .append_text(safe_text(line, keep_newlines=False))
            .append("` to ")
            .append_text(safe_text(done.attributes, keep_newlines=False))
            .append(" (commit it)")
        )
    if done.config_changed:
        cli.say(
            Text("set merge.mcplock.driver in the repository's git config: ").append_text(
                safe_text(done.driver, keep_newlines=False)
            )
        )
    if not done.attributes_added and not done.config_changed:
        cli.say("the merge driver is already installed")


def cmd_run(
    base: str = typer.Argument(..., metavar="BASE", help="%O: the common ancestor's version"),
    ours: str = typer.Argument(..., metavar="OURS", help="%A: ours; the result is written here"),
    theirs: str = typer.Argument(..., metavar="THEIRS", help="%B: theirs"),
    pathname: str | None = typer.Argument(None, metavar="PATH", help="%P: the lock's path in the repository"),
) -> int:
    """What git runs on a merge (set up by `mcplock merge-driver install`): exit 0 merged, 1 conflicts."""
    from mcplock.core.merge_driver import run_driver
    from mcplock.core.merge_exports import host_format

    code, what = run_driver(base, ours, theirs, pathname)
    name = pathname or "mcp.lock"
    if code == 0 or host_format(name) is not None:
        sys.stderr.write(f"mcplock: {name}: {what}\n")
    else:
        sys.stderr.write(
            f"mcplock: {name}: {what}; `mcplock check` names them, "
            "`mcplock resolve ENTRY --ours|--theirs` takes a side\n"
        )
    return code


def cmd_resolve(
    ctx: typer.Context,
    targets: list[str] | None = typer.Argument(
        None, metavar="ENTRY…", help="conflicted entries as `mcplock check` names them"
    ),
    ours: bool = typer.Option(False, "--ours", help="keep the version of the branch you are on"),
    theirs: bool = typer.Option(False, "--theirs", help="keep the version of the branch being merged"),
    every: bool = typer.Option(False, "--all", help="every conflicted entry"),
) -> int:
    """Take one side of entries the merge driver left in conflict (in a rebase, ours is the
    branch you rebase onto). Then `mcplock check`, and accept or reject what is pending."""
    from mcplock.core.merge_driver import resolve
    from mcplock.errors import UsageError

    cli = context.of(ctx)
    if ours == theirs:
        raise UsageError(
            "say which side to keep: --ours or --theirs",
            hint="`mcplock check` shows each conflicted entry; the file holds both sides",
        )
    side = "ours" if ours else "theirs"
    done, left = resolve(cli.lockfile, list(targets or []), side, every=every)
    if not done:
        cli.say("no conflicted entries: nothing to resolve")
        return 0
    for t in done:
        cli.say(Text(f"kept {side} of ").append_text(safe_text(t, keep_newlines=False)))
    if left:
        cli.info(Text(f"{len(left)} still in conflict: ").append_text(safe_text(", ".join(left), keep_newlines=False)))
    else:
        cli.info(Text("no conflicts left: run `mcplock check`, then `git add` the lock"))
    return 0


def register(app: typer.Typer) -> None:
    group = typer.Typer(
        help="A git merge driver that merges mcp.lock as data (docs/merging.md).",
        no_args_is_help=True,
        rich_markup_mode=None,
    )
    group.command("install")(cmd_install)
    group.command("run")(cmd_run)
    app.add_typer(group, name="merge-driver")
    app.command("resolve")(cmd_resolve)
