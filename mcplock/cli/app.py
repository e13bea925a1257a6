"""The root of the CLI: global options, the commands, one error handler.

Each command module (``cli/commands/``) parses its arguments, calls :mod:`mcplock.core`,
renders, and returns an exit code. The state of a run is a :class:`~mcplock.cli.context.Cli`
in typer's ``ctx.obj``. Heavy modules (probe, hosts, jsonschema, deepdiff) are imported
inside the commands that need them.
"""

from __future__ import annotations

import signal
from typing import Any

import typer
from rich.text import Text

# typer bundles its own click: these are the exceptions its parser raises (a separately
# installed click has other classes, which never match).
from typer._click.exceptions import ClickException

from mcplock._version import __version__
from mcplock.cli.context import Cli
from mcplock.cli.streams import guard_stdout
from mcplock.errors import McplockError, trap_termination

HELP = """\
mcplock pins the tool definitions of your MCP servers in a reviewed lock file
(mcp.lock) and catches upstream changes — rug pulls — before they reach the model.

Start with `mcplock init` (import the host configs of this project) or
`mcplock add NAME -- CMD…`; commit mcp.lock; run `mcplock diff` in CI and
`mcplock check` in a pre-commit hook.

Exit codes: 0 clean · 1 findings (drift, pending review, out of sync) · 2 usage or
input error (also a server's command or script not on this machine) · 3 a server
could not be reached · 130 interrupted (143 SIGTERM, 129 SIGHUP).
"""

app = typer.Typer(
    name="mcplock",
    help=HELP,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
    rich_markup_mode=None,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"mcplock {__version__}")
        raise typer.Exit(0)


@app.callback()
def root(
    ctx: typer.Context,
    lockfile: str | None = typer.Option(
        None,
        "--lockfile",
        envvar="MCPLOCK_LOCKFILE",
        metavar="PATH",
        help="The lock file (default: ./mcp.lock, else the nearest one above, up to the repository root).",
    ),
    no_color: bool = typer.Option(
        False, "--no-color", help="No colour (also NO_COLOR, or when stdout is not a terminal)."
    ),
    quiet: bool = typer.Option(False, "-q", "--quiet", help="Print only results and errors."),
    verbose: bool = typer.Option(False, "-v", "--verbose", help="More detail (skipped server output, timings)."),
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Show the version and exit."
    ),
) -> None:
    if not isinstance(ctx.obj, Cli):
        ctx.obj = Cli()
    from mcplock.model.lockpath import find_lock, found_above

    used = lockfile or find_lock()
    ctx.obj.configure(lockfile=used, no_color=no_color, quiet=quiet, verbose=verbose)
    if lockfile is None and found_above(used):
        ctx.obj.info(f"using {used}: the nearest mcp.lock above this directory (up to the repository root)")


# Which module registers each command, in the order `mcplock --help` lists them. A run imports only
# the module of the command it names (importing every command module costs more than most commands
# do: mcplock.cli.commands.add alone pulls in the probe's planning and OAuth); `--help`, no command
# or an unknown one registers them all. tests/test_cli_lazy.py holds the table to what the modules
# register.
COMMANDS: dict[str, tuple[str, ...]] = {
    "listing": ("list", "show"),
    "check": ("check",),
    "audit": ("audit",),
    "review": ("enable", "disable", "approval", "accept", "reject"),
    "remove": ("remove",),
    "add": ("add",),
    "refresh": ("refresh",),
    "update": ("outdated", "update"),
    "update_pr": ("update-pr",),
    "diff": ("diff",),
    "inspect": ("inspect",),
    "init": ("init",),
    "trust": ("trust",),
    "auth": ("auth",),
    "run": ("run", "call"),
    "export": ("export",),
    "merge": ("resolve", "merge-driver"),
    "registry": ("search",),
    "interop": ("verify-lock", "sign", "verify-signature", "fingerprint"),
    "org": ("inventory", "fleet"),
    "publish": ("surface",),
}
_MODULE_OF = {name: module for module, names in COMMANDS.items() for name in names}
_registered: list[str] = []  # the modules registered on `app`, in registration order


def command_name(args: list[str]) -> str | None:
    """The command ``args`` name (the first word that is not a global option or its value), or None
    when an option comes first (``--help``, a typo'd flag: typer answers those with every command)."""
    from mcplock.model.argv import GLOBAL_FLAGS, GLOBAL_VALUED

    skip = False
    for a in args:
        if skip:
            skip = False
        elif a in GLOBAL_VALUED:
            skip = True
        elif a in GLOBAL_FLAGS or a.split("=", 1)[0] in GLOBAL_VALUED:
            continue
        else:
            return None if a.startswith("-") else a
    return None


def _register(args: list[str] | None = None) -> None:
    """Register the module of the command ``args`` name on ``app``, or every module (in the table's
    order, so `--help` lists them as always) when it names none that is known."""
    import importlib

    module = _MODULE_OF.get(command_name(args) or "") if args is not None else None
    wanted = [module] if module is not None else list(COMMANDS)
    if module is None and _registered and _registered != wanted[: len(_registered)]:
        app.registered_commands.clear()  # a command registered alone earlier: start again, in order
        app.registered_groups.clear()
        _registered.clear()
    for name in wanted:
        if name not in _registered:
            importlib.import_module(f"mcplock.cli.commands.{name}").register(app)
            _registered.append(name)


def run(args: list[str]) -> int:
    """Run the CLI on ``args``; the one place errors become messages and exit codes."""
    guard_stdout()  # a closed pipe (`mcplock check | head -1`) keeps the real exit code
    cli = Cli(args=list(args))
    _register(list(args))
    command = root_command()
    previous = _trap_termination()
    _received.clear()
    try:
        rv, stopped = _main(command, args, cli)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if stopped is not None:
        return stopped
    if _received or rv == INTERRUPTED:  # typer turns a KeyboardInterrupt into exit code 130
        return _interrupted(cli)
    _signing_reminder(cli, args)
    return rv if isinstance(rv, int) else 0


def root_command() -> Any:
    """The click command of ``app`` as registered, each option's value named in its help by
    what it is (``--timeout SECONDS``, ``--format FORMAT``) where typer would show its Python
    type (``<float>``, ``<str>``) — issue 42.12."""
    from mcplock.cli import help_sections, summaries

    command = typer.main.get_command(app)
    _name_values(command)
    summaries.apply(command)
    help_sections.apply(command)
    return command


def _name_values(command: Any) -> None:
    for param in getattr(command, "params", ()):
        if getattr(param, "metavar", None) is None and not getattr(param, "is_flag", False) and param.opts:
            long = max(param.opts, key=len).lstrip("-")
            param.metavar = _value_name(long, getattr(param.type, "name", ""))
    for sub in getattr(command, "commands", {}).values():
        _name_values(sub)


def _value_name(option: str, type_name: str) -> str:
    """What an option's value is, from its name: ``timeout`` → SECONDS, ``client-name`` → NAME."""
    if "timeout" in option or option.endswith("seconds"):
        return "SECONDS"
    if type_name in ("integer", "int") and not option.endswith(("count", "limit", "pages")):
        return "N"
    return option.split("-")[-1].upper()


def _main(command: Any, args: list[str], cli: Cli) -> tuple[Any, int | None]:
    """Run the command: (what it returned, None), or (None, the exit code) when it raised —
    the error said here."""
    try:
        return command.main(args, prog_name="mcplock", standalone_mode=False, obj=cli), None
    except typer.Exit as e:
        return None, e.exit_code
    except (typer.Abort, KeyboardInterrupt):
        return None, _interrupted(cli)
    except ClickException as e:  # usage: unknown option or command, missing value, bad choice
        _show_usage_error(e)
        return None, e.exit_code
    except McplockError as e:
        cli.print_error(e)
        return None, e.exit_code
    except OSError as e:  # a file mcplock had to read or write: the OS said no; say which and why
        cli.print_error(_os_error(e))
        return None, 2
    except Exception as e:  # a bug: say so plainly, the traceback only with -v
        _bug(cli, e)
        return None, 2


# the commands that change the lock: after one, a signature that no longer matches says so
WRITERS = frozenset(
    {"add", "init", "refresh", "accept", "reject", "enable", "disable", "approval", "remove", "update", "resolve"}
)


def _signing_reminder(cli: Cli, args: list[str]) -> None:
    import os

    if command_name(args) not in WRITERS or not os.path.exists(cli.lockfile + ".sig"):
        return
    from mcplock.trust.signing import stale

    said = stale(cli.lockfile)
    if said:
        cli.note(said)


INTERRUPTED = 130  # no command returns it: it means Ctrl-C
_received: list[int] = []  # SIGTERM / SIGHUP received in this run


def _trap_termination() -> dict[int, Any]:
    """SIGTERM and SIGHUP stop a run the way Ctrl-C does (a KeyboardInterrupt, so the same
    cleanup kills the servers' process groups). Returns the handlers to restore."""
    return trap_termination(_received)


def _interrupted(cli: Cli) -> int:
    """Ctrl-C: 130; SIGTERM/SIGHUP: 128 + the signal number (143, 129), as a shell reports
    them. Any server still running is killed first (the probe's own cleanup has run)."""
    import sys

    if "mcplock.probe" in sys.modules:  # no server ran when the probe package was never imported
        from mcplock.probe import kill_all_live

        kill_all_live()
    if not _received:
        if not cli.said_interrupted:
            cli.err.print(Text("\ninterrupted"))
        return INTERRUPTED
    cli.err.print(Text(f"\nterminated by {signal.Signals(_received[0]).name}"))
    return 128 + _received[0]


def _show_usage_error(e: ClickException) -> None:
    """click's message, hidden characters escaped (it quotes the arguments as given)."""
    import io
    import sys

    from mcplock.text.untrusted import visible

    buf = io.StringIO()
    e.show(file=buf)
    sys.stderr.write(visible(buf.getvalue()))


def _os_error(e: OSError) -> McplockError:
    import errno

    what = f" {e.filename}" if e.filename else ""
    hints = {
        errno.EACCES: "check the permissions of the file and its directory",
        errno.EPERM: "check the permissions of the file and its directory",
        errno.EROFS: "the file system is read-only: work in a writable copy",
        errno.ENOSPC: "the disk is full: free some space and run the command again",
        errno.ENOENT: "check the path: a file or directory in it does not exist",
    }
    return McplockError(
        f"cannot use{what}: {e.strerror or type(e).__name__}",
        hint=hints.get(e.errno or 0, "check the file and its directory, then run the command again"),
        code="os-error",
    )


def _bug(cli: Cli, e: Exception) -> None:
    from mcplock.text.untrusted import safe_text

    cli.err.print(
        Text("error: ", style="bold red").append_text(
            safe_text(f"mcplock failed unexpectedly: {type(e).__name__}: {e}", keep_newlines=False)
        )
    )
    if cli.verbose:
        import traceback

        cli.err.print(Text(traceback.format_exc()))
    else:
        cli.err.print(Text("hint: this is a bug in mcplock; run again with -v for details and report it", style="dim"))
