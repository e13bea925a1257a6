"""`mcplock inspect`: probe a server and print what it exposes, without a lock."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import typer

from mcplock.cli import context, progress
from mcplock.cli.commands.registry import REGISTRY, inspect_entry
from mcplock.cli.flags import check_transport, parse_env, parse_headers, parse_pass_env
from mcplock.cli.options import PASS_ENV, ProbeArgs, probing
from mcplock.core.probing import result_of
from mcplock.errors import ProbeError, UsageError
from mcplock.lock.spec import ServerSpec, Transport

if TYPE_CHECKING:
    from mcplock.model.snapshot import Snapshot


@probing(oauth=True)
def cmd_inspect(
    ctx: typer.Context,
    target: list[str] = typer.Argument(..., metavar="URL | REGISTRY_NAME[@VERSION] | -- CMD [ARG…]"),
    transport: str | None = typer.Option(None, "--transport", help="http or sse for a URL."),
    header: list[str] = typer.Option([], "--header", help="'Name: value' (values may use ${VAR})."),
    env: list[str] = typer.Option([], "--env", help="KEY=VALUE for a stdio server."),
    pass_env: list[str] = PASS_ENV,
    fmt: str = typer.Option("text", "--format", help="text or json (the raw definitions)."),
    pin_resources: bool = typer.Option(False, "--resources", help="Also list resources."),
    registry: str | None = REGISTRY,
    *,
    probe: ProbeArgs,
) -> int:
    """Probe a server and print what it exposes, without touching a lock; or show an MCP Registry
    entry (`inspect REGISTRY_NAME`: what it runs, what it needs, its versions)."""
    cli = context.of(ctx)
    cli.report_format("inspect", fmt, ("text", "json"))
    kind = _target_kind(cli, target)
    if kind == "registry":
        return inspect_entry(cli, target[0], registry, fmt)
    if kind == "url":
        spec = _remote(target[0], transport, header, env, pass_env, pin_resources, probe)
    else:
        spec = _stdio(target, transport, header, env, pass_env, pin_resources)
    r = result_of(progress.probe(cli, [spec], probe.options(cli), login=probe.login), "inspect")
    if isinstance(r, ProbeError):
        raise r
    if fmt == "json":
        cli.write_json(_snapshot_json(r))
        return 0
    from mcplock.render.diff import render_snapshot

    cli.out.print(render_snapshot(r))
    return 0


def _target_kind(cli: context.Cli, target: list[str]) -> str:
    """What `inspect`'s words name: "registry" (an MCP Registry name), "url", or "command" (any
    other words, and always the words after ``--``)."""
    from mcplock.packages.mcp_registry import is_name

    if cli.had_dashdash or len(target) != 1:
        return "command"
    if "://" in target[0]:
        return "url"
    return "registry" if is_name(target[0]) else "command"


def _remote(
    url: str,
    transport: str | None,
    header: list[str],
    env: list[str],
    pass_env: list[str],
    pin_resources: bool,
    probe: ProbeArgs,
) -> ServerSpec:
    """`inspect URL`: headers as given (a literal secret is fine: nothing is written)."""
    remote = check_transport(transport, remote=True)
    if env:
        raise UsageError("--env is for stdio servers")
    if pass_env:
        raise UsageError("--pass-env is for stdio servers")
    return ServerSpec(
        name="inspect",
        transport=remote,
        url=url,
        headers=parse_headers(header, refuse_secrets=False),
        pin_resources=pin_resources,
        auth=probe.auth(),
    )


def _stdio(
    target: list[str],
    transport: str | None,
    header: list[str],
    env: list[str],
    pass_env: list[str],
    pin_resources: bool,
) -> ServerSpec:
    """`inspect -- CMD [ARG…]`, run in the current directory."""
    check_transport(transport, remote=False)
    if header:
        raise UsageError("--header is for remote servers")
    return ServerSpec(
        name="inspect",
        transport=Transport.STDIO,
        command=target[0],
        args=tuple(target[1:]),
        env=parse_env(env, refuse_secrets=False),
        cwd=os.getcwd(),
        pin_resources=pin_resources,
        pass_env=parse_pass_env(pass_env),
    )


def _snapshot_json(r: Snapshot) -> dict[str, object]:
    doc: dict[str, object] = {
        "version": 1,
        "command": "inspect",
        "exit_code": 0,
        "server_info": r.server_info,
        "protocol_version": r.protocol_version,
        "capabilities": r.capabilities,
        "instructions": r.instructions,
        "tools": r.tools,
        "prompts": r.prompts,
        "resource_templates": r.resource_templates,
    }
    if r.resources is not None:
        doc["resources"] = r.resources
    return doc


def register(app: typer.Typer) -> None:
    app.command("inspect")(cmd_inspect)
