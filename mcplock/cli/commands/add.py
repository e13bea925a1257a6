"""`mcplock add`: lock new servers (one spec, or imported from a host config)."""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import typer

from mcplock.cli import context
from mcplock.cli.commands.registry import REGISTRY, confirm_remote_variables, registry_spec
from mcplock.cli.context import Cli
from mcplock.cli.flags import check_args, check_transport, parse_env, parse_headers, parse_pass_env
from mcplock.cli.help_sections import LAUNCH
from mcplock.cli.locking import hold_code_env, lock_specs
from mcplock.cli.options import PASS_ENV, POLICY, TRUST, YES, ProbeArgs, probing
from mcplock.core import add_sources
from mcplock.core.add_sources import Staged
from mcplock.errors import SecretError, UsageError
from mcplock.lock.model import POLICIES
from mcplock.lock.spec import TRANSPORTS, ServerSpec, Transport
from mcplock.lock.templates import looks_secret
from mcplock.packages.mcp_registry import is_name
from mcplock.text.untrusted import safe_text, shell_word

if TYPE_CHECKING:
    pass


def check_policy(policy: str) -> None:
    if policy not in POLICIES:
        looks_like_a_file = policy.endswith(".toml") or "/" in policy or os.path.exists(policy)
        raise UsageError(
            f"`add --policy` takes one of {', '.join(POLICIES)} (which of the server's tools start enabled)",
            hint=(
                "an organisation's policy file goes to the commands that enforce it: "
                f"`mcplock check --policy {policy}` (or MCPLOCK_POLICY), `diff`, `export`, `sign` (docs/policy.md)"
                if looks_like_a_file
                else "e.g. `--policy writes` (read-only tools enabled, the rest disabled until you enable them)"
            ),
        )


@probing(oauth=True)
def cmd_add(
    ctx: typer.Context,
    name: str | None = typer.Argument(None, help="Name of the server in the lock, or an MCP Registry name."),
    target: list[str] | None = typer.Argument(None, help="URL, or `-- CMD [ARG…]` for a stdio server."),
    from_file: str | None = typer.Option(
        None,
        "--from",
        metavar="FILE",
        help="Import from a host config (.mcp.json, …).",
    ),
    transport: str | None = typer.Option(
        None, "--transport", help="http (Streamable HTTP, the default) or sse (legacy).", rich_help_panel=LAUNCH
    ),
    header: list[str] = typer.Option(
        [], "--header", help="'Name: value' for a remote server; secrets as ${VAR}.", rich_help_panel=LAUNCH
    ),
    env: list[str] = typer.Option(
        [], "--env", help="KEY=VALUE for a stdio server; secrets as ${VAR}.", rich_help_panel=LAUNCH
    ),
    cwd: str | None = typer.Option(
        None, "--cwd", help="A stdio server's directory (relative to the lock).", rich_help_panel=LAUNCH
    ),
    pass_env: list[str] = PASS_ENV,
    policy: str = POLICY,
    pin_resources: bool = typer.Option(
        False, "--pin-resources", help="Also pin resources/list (usually data that changes)."
    ),
    yes: bool = YES,
    trust: bool = TRUST,
    server_name: str | None = typer.Option(
        None,
        "--name",
        help="The name in the lock for `add REGISTRY_NAME`.",
    ),
    registry: str | None = REGISTRY,
    allow_code_env: list[str] = typer.Option(
        [],
        "--allow-code-env",
        metavar="VAR",
        help="Accept this code-loading variable (docs/pins.md).",
    ),
    *,
    probe: ProbeArgs,
) -> int:
    """Lock new servers, everything they offer reviewed before a host sees it.

    \b
      mcplock add REGISTRY_NAME[@VERSION]   a server of the MCP Registry
      mcplock add NAME -- CMD [ARG…]        a stdio server
      mcplock add NAME URL                  a remote server (Streamable HTTP)
      mcplock add --from FILE [NAME…]       the servers of a host config

    Adding, step by step: docs/usage.md; OAuth: docs/oauth.md."""
    from mcplock.lock.store import check_directory

    cli = context.of(ctx)
    check_policy(policy)
    check_directory(cli.lockfile)  # before probing: a missing directory is the lock's, not a server's cwd
    if transport is not None and transport not in TRANSPORTS:
        raise UsageError("--transport takes stdio, http or sse")
    target = list(target or [])
    named = ([name] if name else []) + target  # with --from: the servers of the file to add
    if from_file:
        _check_import_flags(allow_code_env, pass_env)
        found = add_sources.from_config(from_file, named, cli.lock_dir)
    else:
        given = Given(transport, header, env, cwd, pin_resources, server_name, registry, allow_code_env)
        spec = _command_line_spec(cli, name, target, given, trust, probe)
        found = add_sources.Found(specs=[(_with_pass_env(spec, pass_env), None)])
    for n in found.notes:
        cli.note(n)
    specs = _not_locked(cli, found.specs, explicit=not from_file)
    if not specs:
        cli.info("nothing to add")
        return 0
    if from_file:
        return _add_imported(cli, specs, named, from_file, policy, yes=yes, trust=trust, probe=probe)
    return lock_specs(cli, specs, policy, yes, probe, consent=True, how="")  # trusted by typing it here


def _add_imported(
    cli: Cli,
    specs: list[Staged],
    named: list[str],
    from_file: str,
    policy: str,
    *,
    yes: bool,
    trust: bool,
    probe: ProbeArgs,
) -> int:
    """`add --from FILE`: a server of a host config runs with --trust, --yes or a yes at the
    question (a launch that loads code through a variable: only when named). 2 when every one
    is held back for that."""
    if trust or yes:
        specs = hold_code_env(cli, specs, named)
        if not specs:
            return 2
    how = f"mcplock add --from {shlex.quote(from_file)} --trust"
    return lock_specs(cli, specs, policy, yes, probe, consent=trust or yes, how=how)


def _check_import_flags(allow_code_env: list[str], pass_env: list[str]) -> None:
    """With --from, the host config says how each server runs and what it gets."""
    if allow_code_env:
        raise UsageError(
            "--allow-code-env is for `mcplock add REGISTRY_NAME`",
            hint="from a host config, a server that loads code is added by its name: "
            "`mcplock add --from FILE NAME --trust`",
        )
    if pass_env:
        raise UsageError(
            "--pass-env is for a server given on the command line",
            hint="with --from, the host config says what the server gets",
        )


@dataclass(frozen=True)
class Given:
    """The flags that describe one server given on the command line (the last three: for
    `add REGISTRY_NAME` only)."""

    transport: str | None
    header: list[str]
    env: list[str]
    cwd: str | None
    pin_resources: bool
    server_name: str | None
    registry: str | None
    allow_code_env: list[str]


def _command_line_spec(
    cli: Cli, name: str | None, target: list[str], given: Given, trust: bool, probe: ProbeArgs
) -> ServerSpec:
    """The server the command line names: an MCP Registry entry, a URL or a command."""
    if name is not None and _names_registry_entry(cli, name, target):
        return _from_registry(cli, name, given, trust)
    if given.server_name is not None or given.registry is not None or given.allow_code_env:
        raise UsageError("--name, --registry and --allow-code-env are for `mcplock add REGISTRY_NAME`")
    return _one_spec(cli, name, target, given, probe)


def _names_registry_entry(cli: Cli, name: str, target: list[str]) -> bool:
    """`add REGISTRY_NAME[@VERSION]`: a registry name alone (no URL, no `-- CMD`)."""
    return not target and not cli.had_dashdash and is_name(name)


def _from_registry(cli: Cli, name: str, given: Given, trust: bool) -> ServerSpec:
    """`add REGISTRY_NAME[@VERSION]`: the spec the registry entry describes, its templated
    variables confirmed before anything is sent, then the --env given."""
    if given.transport or given.header or given.cwd:
        raise UsageError(
            "--transport, --header and --cwd are for `mcplock add NAME URL` or `mcplock add NAME -- CMD…`",
            hint="the registry entry says how the server runs",
        )
    spec = replace(
        registry_spec(cli, name, given.server_name, given.registry, tuple(given.allow_code_env)),
        pin_resources=given.pin_resources,
    )
    confirm_remote_variables(cli, spec, name, trust)  # the entry's templates: named, sent only when confirmed
    return replace(spec, env={**spec.env, **parse_env(given.env)})


def _with_pass_env(spec: ServerSpec, pass_env: list[str]) -> ServerSpec:
    """A stdio server given on the command line gets the --pass-env names too."""
    if not pass_env:
        return spec
    if spec.remote:
        raise UsageError("--pass-env is for stdio servers")
    return replace(spec, pass_env=tuple(sorted({*spec.pass_env, *parse_pass_env(pass_env)})))


def _not_locked(cli: Cli, specs: list[Staged], *, explicit: bool) -> list[Staged]:
    """The specs not locked yet: a name locked already is exit 2 when given on the command line
    (``explicit``), skipped with a line for an import."""
    new, clash = add_sources.new_only(specs, cli.lockfile, explicit=explicit)
    for c in clash:
        cli.err.print(
            safe_text(
                f"skipped `{c}`: already locked (use `mcplock refresh {shell_word(c)}`)", "yellow", keep_newlines=False
            )
        )
    return new


def _one_spec(cli: Cli, name: str | None, target: list[str], given: Given, probe: ProbeArgs) -> ServerSpec:
    """`add NAME URL` or `add NAME -- CMD [ARG…]`."""
    name = _server_name(name)
    if not target:
        raise UsageError(
            "give a URL or `-- CMD [ARG…]`",
            hint=f"e.g. `mcplock add {shell_word(name)} -- npx -y @modelcontextprotocol/server-everything`",
        )
    if not cli.had_dashdash and len(target) == 1 and "://" in target[0]:
        return _remote_spec(name, target[0], given, probe)
    return _stdio_spec(name, target, given)


def _server_name(name: str | None) -> str:
    if not name:
        raise UsageError("name the server: `mcplock add NAME -- CMD…` or `mcplock add NAME URL`")
    if "/" in name or not name.strip():
        raise UsageError(f"`{name}` cannot be a server name (no `/`, not empty)")
    return name


def _remote_spec(name: str, url: str, given: Given, probe: ProbeArgs) -> ServerSpec:
    if looks_secret("url", url) and "${" not in url:
        raise SecretError("the URL holds a literal secret", hint="write it as ${VAR} in the URL and export VAR")
    if given.env or given.cwd:
        raise UsageError("--env and --cwd are for stdio servers")
    return ServerSpec(
        name=name,
        transport=check_transport(given.transport, remote=True),
        url=url,
        headers=parse_headers(given.header),
        pin_resources=given.pin_resources,
        auth=probe.auth(),
    )


def _stdio_spec(name: str, target: list[str], given: Given) -> ServerSpec:
    if given.header:
        raise UsageError("--header is for remote servers")
    check_transport(given.transport, remote=False)
    check_args(target)
    return ServerSpec(
        name=name,
        transport=Transport.STDIO,
        command=target[0],
        args=tuple(target[1:]),
        env=parse_env(given.env),
        cwd=given.cwd,
        pin_resources=given.pin_resources,
    )


def register(app: typer.Typer) -> None:
    app.command("add")(cmd_add)
