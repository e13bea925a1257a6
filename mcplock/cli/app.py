"""The root of the CLI: global options, command registration, one error handler.

Each command module parses its arguments, calls the core, renders, and returns an
exit code; nothing below ``cli/`` prints or exits. Heavy modules (probe, hosts,
jsonschema, deepdiff) are imported inside the commands that need them.
"""

from __future__ import annotations

from typing import Optional

import click
import typer

from mcplock import __version__
from mcplock.cli import output
from mcplock.errors import McplockError

HELP = """\
mcplock pins the tool definitions of your MCP servers in a reviewed lock file
(mcp.lock) and catches upstream changes — rug pulls — before they reach the model.

Start with `mcplock init` (import the host configs of this project) or
`mcplock add NAME -- CMD…`; commit mcp.lock; run `mcplock diff` in CI and
`mcplock check` in a pre-commit hook.

Exit codes: 0 clean · 1 findings (drift, pending review, out of sync) · 2 usage or
input error · 3 a server could not be probed · 130 interrupted.
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

# Set by a command that prints machine output, so errors come out as JSON too.
json_command: Optional[str] = None
# The arguments as given (click swallows `--`, which tells `add NAME -- CMD` from `add NAME URL`).
raw_args: list[str] = []


def _version(value: bool) -> None:
    if value:
        typer.echo(f"mcplock {__version__}")
        raise typer.Exit(0)


@app.callback()
def root(
    lockfile: str = typer.Option(
        "mcp.lock", "--lockfile", envvar="MCPLOCK_LOCKFILE", metavar="PATH", help="The lock file (default ./mcp.lock)."
    ),
    no_color: bool = typer.Option(False, "--no-color", help="No colour (also NO_COLOR, or when stdout is not a terminal)."),
    quiet: bool = typer.Option(False, "-q", "--quiet", help="Print only results and errors."),
    verbose: bool = typer.Option(False, "-v", "--verbose", help="More detail (skipped server output, timings)."),
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Show the version and exit."),
) -> None:
    output.configure(lockfile=lockfile, no_color=no_color, quiet=quiet, verbose=verbose)


def _register() -> None:
    from mcplock.cli import offline, probing

    offline.register(app)
    probing.register(app)
    __import__("mcplock.cli.auth_cmds", fromlist=["register"]).register(app)  # mcplock auth login|logout|status


_register()


def run(args: list[str]) -> int:
    global json_command, raw_args
    json_command = None
    raw_args = list(args)
    command = typer.main.get_command(app)
    try:
        rv = command.main(args, prog_name="mcplock", standalone_mode=False)
    except click.exceptions.Exit as e:
        return e.exit_code
    except click.exceptions.Abort:
        output.settings().err.print("interrupted")
        return 130
    except KeyboardInterrupt:
        output.settings().err.print("interrupted")
        return 130
    except click.exceptions.ClickException as e:
        e.show()
        return 2
    except McplockError as e:
        output.print_error(e, json_mode=json_command is not None, command=json_command)
        return e.exit_code
    except BrokenPipeError:
        return 1
    except Exception as e:  # a bug: say so plainly, the traceback only with -v
        from rich.text import Text

        from mcplock.untrusted import safe_text

        s = output.settings()
        s.err.print(Text("error: ", style="bold red").append_text(
            safe_text(f"mcplock failed unexpectedly: {type(e).__name__}: {e}", keep_newlines=False)))
        if s.verbose:
            import traceback

            s.err.print(Text(traceback.format_exc()))
        else:
            s.err.print(Text("hint: this is a bug in mcplock; run again with -v for details and report it", style="dim"))
        return 2
    if isinstance(rv, int):
        return rv
    return 0
