"""`mcplock run NAME` and `mcplock call SERVER/TOOL`: the lock binding at run time."""

from __future__ import annotations

import json
import os
import sys
from typing import TYPE_CHECKING, Any

import typer

from mcplock.cli import context
from mcplock.cli.options import ORG_POLICY
from mcplock.errors import UsageError
from mcplock.text.untrusted import shell_word

if TYPE_CHECKING:
    from mcplock.cli.context import Cli
    from mcplock.guard.elicit import Elicitor
    from mcplock.guard.session import Approver, GuardedSession

RUN_HELP = """Serve a locked server to an MCP host over stdio, enforcing the lock.

Put `mcplock run NAME` where the host config launches the server. The host sees only the
accepted definitions of enabled tools, byte for byte from mcp.lock; a tool that changed
upstream, is unknown, disabled or pending is neither listed nor callable. Diagnostics go to
stderr. Exit 0 when the host closes the session, 3 when the server cannot be reached.
"""

CALL_HELP = """Call one locked tool under the lock: connect, verify, call, close.

The result is printed as JSON on stdout. Exit 0 result, 1 refused by the lock or the tool
returned isError, 2 usage or invalid arguments, 3 the server could not be reached.
Tools with approval = "always" ask on a terminal; off a terminal they need --approve.
A server that wants an OAuth login, or more scopes for this call (403 insufficient_scope),
gets it in the browser on a terminal or with --login (within --timeout); otherwise the
error names the command that logs in.
A question the server asks during the call (elicitation) is asked on a terminal, field by
field with the server's defaults pre-filled (Enter takes one; Ctrl-C cancels the question);
off a terminal it is declined, or with --answer-defaults answered with the form's defaults.
"""


def cmd_run(
    ctx: typer.Context,
    name: str = typer.Argument(..., metavar="NAME", help="The locked server to serve."),
    strict: bool = typer.Option(
        False,
        "--strict",
        help="Refuse approval-always calls when the host cannot be asked "
        "(it declared no elicitation) instead of relying on its own prompt.",
    ),
    timeout: float = typer.Option(30.0, "--timeout", help="Seconds to start and verify the server (default 30)."),
    request_timeout: float = typer.Option(
        120.0, "--request-timeout", help="Seconds the server may take to answer one request (default 120)."
    ),
    client_name: str | None = typer.Option(None, "--client-name", help="Connect as this client (default: as locked)."),
    client_version: str | None = typer.Option(None, "--client-version", help="The version for --client-name."),
    policy: str | None = ORG_POLICY,
) -> int:
    from mcplock.guard import run_guard
    from mcplock.text.untrusted import safe_text

    cli = context.of(ctx)
    if request_timeout <= 0:
        raise UsageError("--request-timeout must be a positive number of seconds")

    def say(text: str) -> None:
        cli.err.print(safe_text(text))

    return run_guard(
        cli.lockfile,
        name,
        timeout=timeout,
        request_timeout=request_timeout,
        strict=strict,
        client_name=client_name,
        client_version=client_version,
        verbose=cli.verbose,
        say=say,
        policy=policy,
    )


def cmd_call(
    ctx: typer.Context,
    target: str = typer.Argument(..., metavar="SERVER/TOOL"),
    args_json: str = typer.Option("{}", "--args", metavar="JSON", help="The tool's arguments as a JSON object."),
    approve: bool = typer.Option(False, "--approve", help="Approve an approval-always tool without asking."),
    timeout: float = typer.Option(
        30.0, "--timeout", help="Seconds to connect and verify, and for the call (default 30)."
    ),
    client_name: str | None = typer.Option(None, "--client-name", help="Connect as this client (default: as locked)."),
    client_version: str | None = typer.Option(None, "--client-version", help="The version for --client-name."),
    login: bool = typer.Option(
        False,
        "--login",
        help="Allow an OAuth login in the browser (a first login, or more "
        "scopes for this call) even without a terminal; it counts against --timeout.",
    ),
    answer_defaults: bool = typer.Option(
        False,
        "--answer-defaults",
        help="Answer the server's questions "
        "(elicitation) with their own defaults, without asking, on a terminal or "
        "off it; a question with a required field without a default is declined.",
    ),
    policy: str | None = ORG_POLICY,
) -> int:
    import asyncio

    from mcplock.lock import targets

    cli = context.of(ctx)
    t = targets.parse(target)
    if t.kind != "tool" or not t.key:
        raise UsageError(f"`{target}` does not name a tool", hint="use `mcplock call SERVER/TOOL --args '{…}'`")
    arguments = _arguments(args_json)
    if os.path.exists(cli.lockfile):  # a mistyped tool is said before anything is trusted or run
        from mcplock.lock.read import load

        targets.refuse_mistyped(load(cli.lockfile), t)
    from mcplock.guard.session import open_session

    tty = sys.stdin.isatty() and sys.stderr.isatty()  # a person to ask: approvals and the server's questions
    approver = _approver(cli, approve, tty)
    from mcplock.cli.progress import say_plain
    from mcplock.cli.trust import guarded
    from mcplock.core.oauth import login_allowed

    say = say_plain if login_allowed(login) else None
    elicitor = _elicitor(cli, tty, answer_defaults)
    session = guarded(
        cli,
        lambda: open_session(
            t.server,
            cli.lockfile,
            approve=approver,
            timeout=timeout,
            client_name=client_name,
            client_version=client_version,
            login=say,
            on_elicit=elicitor,
            policy=policy,
        ),
    )
    from mcplock.errors import InvalidArguments

    try:
        res = asyncio.run(_call(session, t.key, arguments, timeout))
    except InvalidArguments as e:  # checked locally, nothing was sent: a usage error
        raise UsageError(
            e.message,
            hint=f"see the tool's locked schema with `mcplock show {shell_word(target)}`",
            code="invalid-arguments",
        ) from None
    cli.write_json(res)
    return 1 if res.get("isError") is True else 0


def _arguments(args_json: str) -> dict[str, Any]:
    """--args: a JSON object."""
    try:
        arguments = json.loads(args_json)
    except ValueError as e:
        raise UsageError(
            f"--args is not valid JSON: {e}", hint='pass an object, e.g. --args \'{"query": "x"}\''
        ) from None
    if not isinstance(arguments, dict):
        raise UsageError("--args must be a JSON object", hint='e.g. --args \'{"query": "x"}\'')
    return arguments


async def _call(session: GuardedSession, tool: str, arguments: dict[str, Any], timeout: float) -> dict[str, Any]:
    async with session:
        return await session.call_tool(tool, arguments, timeout=timeout)


def _approver(cli: Cli, approve: bool, tty: bool) -> bool | Approver:
    """Who approves an approval-always tool: --approve; else the person at the terminal; else
    no one (refused)."""
    if approve:
        return True
    return _ask_on_terminal(cli) if tty else False


def _elicitor(cli: Cli, tty: bool, answer_defaults: bool) -> Elicitor:
    """Who answers the server's questions: the person at the terminal (unless
    --answer-defaults), else the questions' own defaults or a decline."""
    from mcplock.cli import elicit_form

    if tty and not answer_defaults:
        return elicit_form.on_terminal(cli)
    return elicit_form.off_terminal(cli, answer_defaults)


def _ask_on_terminal(cli: Cli) -> Approver:
    def ask(server: str, tool: str, args: object) -> bool:
        from rich.text import Text

        from mcplock.text.untrusted import safe_text

        shown = json.dumps(args, ensure_ascii=False, sort_keys=True)
        question = safe_text(f"call `{server}/{tool}` with {shown}?", keep_newlines=False)
        cli.err.print(Text("approve: ").append_text(question))
        from mcplock.cli.prompt import confirm

        return confirm(cli.err, "run it? [y/N] ")

    return ask


def register(app: typer.Typer) -> None:
    app.command("run", help=RUN_HELP)(cmd_run)
    app.command("call", help=CALL_HELP)(cmd_call)
