"""The MCP Registry at the command line: `mcplock search TEXT`, `inspect REGISTRY_NAME`, and the
spec `add REGISTRY_NAME[@VERSION]` locks (its logic: mcplock/core/registry.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer
from rich.text import Text

from mcplock.cli import context
from mcplock.cli.context import Cli
from mcplock.lock.spec import ServerSpec, Transport
from mcplock.text.untrusted import safe_text, sanitize

if TYPE_CHECKING:
    from mcplock.packages.mcp_registry import Entry
    from mcplock.packages.server_json import Launch

REGISTRY = typer.Option(
    None,
    "--registry",
    metavar="URL",
    help="The MCP Registry (default: $MCPLOCK_REGISTRY_URL, else the official one).",
)


def registry_spec(
    cli: Cli, ref: str, name: str | None, registry: str | None, allow_code_env: tuple[str, ...] = ()
) -> ServerSpec:
    """The spec of the entry ``ref`` names (deleted: refused; deprecated: warned; what it needs named)."""
    from mcplock.core import registry as core_registry
    from mcplock.packages.mcp_registry import base_url

    base = base_url(registry)
    cli.info(
        Text("resolving ").append_text(safe_text(ref, keep_newlines=False)).append(f" in the MCP Registry at {base}")
    )
    warn_plain_http(cli, base)
    got = core_registry.resolve(ref, name=name, registry=base, allow_code_env=allow_code_env)
    cli.info(
        Text("entry ")
        .append_text(safe_text(got.entry.name, keep_newlines=False))
        .append(f" {sanitize(got.entry.version, 60)} ({sanitize(got.entry.status, 20)})")
    )
    for w in got.warnings:
        cli.err.print(Text("warning: ", style="yellow").append_text(safe_text(w, keep_newlines=False)))
    if got.launch.required:
        cli.info(
            f"{got.spec.name} needs {', '.join(got.launch.required)} (set in the environment when it runs; "
            "the lock holds ${VAR} templates only)"
        )
    return got.spec


def confirm_remote_variables(cli: Cli, spec: ServerSpec, ref: str, trust: bool) -> None:
    """A remote entry's URL and headers send the values of the variables they template to that
    remote: they are named before the first request, and sent only when the user confirms — a
    yes at a terminal, or ``--trust`` — never filled from the environment unasked. Off a
    terminal without ``--trust``: refused (exit 2), naming the flag."""
    from mcplock.core.trust import received

    if spec.stdio:
        return
    names = received(spec)
    if not names:
        return
    where = _templated_places(spec)
    cli.err.print(
        Text("the remote of ", style="bold")
        .append_text(safe_text(ref, keep_newlines=False))
        .append_text(
            safe_text(
                f" sends the values of {', '.join(names)} ({', '.join(where)}) to {spec.url}", keep_newlines=False
            )
        )
    )
    if not trust:
        _confirm_sending(cli, spec, ref, names)


def _templated_places(spec: ServerSpec) -> list[str]:
    """Where a remote spec carries templated values: each header, the URL."""
    where = [f"header {k}" for k, v in sorted(spec.headers.items()) if "${" in v]
    return where + (["the URL's path"] if spec.url and "${" in spec.url else [])


def _confirm_sending(cli: Cli, spec: ServerSpec, ref: str, names: list[str]) -> None:
    """A yes at a terminal to sending ``names`` to the remote; refused (nothing requested) on a
    no, or off a terminal."""
    import shlex

    from mcplock.cli.trust import terminal
    from mcplock.errors import UntrustedError

    hint = f"if that is where they belong, run `mcplock add {shlex.quote(ref)} --trust` (it sends them)"
    if not terminal():
        raise UntrustedError(
            f"not sent: {', '.join(names)} would go to {spec.url}, and nobody confirmed it (nothing was requested)",
            specs=[spec],
            hint=hint,
        )
    from mcplock.cli.prompt import confirm

    if not confirm(cli.err, "send them there? [y/N] "):
        raise UntrustedError("not sent: nothing was requested", specs=[spec], hint=hint)


def warn_plain_http(cli: Cli, base: str) -> None:
    """A registry over plain HTTP: anyone on the path can answer for it (a warning, not a refusal:
    a private registry on a trusted network is a choice)."""
    if base.lower().startswith("http://"):
        cli.err.print(
            Text("warning: ", style="yellow").append_text(
                safe_text(
                    f"the MCP Registry at {base} is reached over plain HTTP: anyone on the network path can change "
                    "its answers (use an https:// URL)",
                    keep_newlines=False,
                )
            )
        )


def _package_of(server: dict[str, Any]) -> str:
    from mcplock.packages.server_json import pick_package

    p = pick_package(server) or next(iter(server.get("packages") or []), None)
    if isinstance(p, dict):
        return _package_label(p)
    remote = next(iter(server.get("remotes") or []), None)
    return f"remote {remote.get('url', '?')}" if isinstance(remote, dict) else "-"


def _package_label(p: dict[str, Any]) -> str:
    """A package of an entry as ``REGISTRY IDENTIFIER@VERSION`` (the version once: not again
    when the identifier ends with it)."""
    ident, v = str(p.get("identifier", "?")), p.get("version")
    versioned = isinstance(v, str) and v and not ident.endswith((f"@{v}", f":{v}"))
    return f"{p.get('registryType', '?')} {ident}" + (f"@{v}" if versioned else "")


def _row(e: Entry) -> dict[str, object]:
    return {
        "name": e.name,
        "version": e.version,
        "status": e.status,
        "package": _package_of(e.server),
        "description": e.description,
        "is_latest": e.is_latest,
        "published": e.published,
    }


def _table(cli: Cli, rows: list[dict[str, object]], cols: tuple[str, ...]) -> None:
    cells = [[sanitize(str(r[c]), 80) for c in cols] for r in rows]
    widths = _widths(cols, cells)
    cli.out.print(Text("  ".join(c.upper().ljust(w) for c, w in zip(cols, widths, strict=True)).rstrip(), style="bold"))
    for row in cells:
        cli.out.print(Text("  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)).rstrip()))


def _widths(cols: tuple[str, ...], cells: list[list[str]]) -> list[int]:
    """Each column as wide as its heading or its widest cell."""
    if not cells:
        return [len(c) for c in cols]
    return [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(cols)]


def cmd_search(
    ctx: typer.Context,
    text: str = typer.Argument(..., help="What to look for in server names."),
    registry: str | None = REGISTRY,
    limit: int = typer.Option(50, "--limit", min=1, max=1000, help="At most this many servers."),
    fmt: str = typer.Option("text", "--format", help="text or json."),
) -> int:
    """Search the MCP Registry: name, version, package, status of each match."""
    from mcplock.packages import mcp_registry

    cli = context.of(ctx)
    cli.report_format("search", fmt, ("text", "json"))
    base = mcp_registry.base_url(registry)
    warn_plain_http(cli, base)
    rows = [_row(e) for e in mcp_registry.search(text, base, limit=limit)]
    if fmt == "json":
        cli.write_json({"version": 1, "command": "search", "registry": base, "exit_code": 0, "servers": rows})
        return 0
    if not rows:
        cli.info(f"no server in the MCP Registry at {base} matches {text!r}")
        return 0
    _table(cli, rows, ("name", "version", "package", "status"))
    cli.info("add one with `mcplock add NAME` (NAME as above)")
    return 0


def inspect_entry(cli: Cli, ref: str, registry: str | None, fmt: str) -> int:
    """`inspect REGISTRY_NAME[@VERSION]`: the entry, the launch it becomes, its versions."""
    from mcplock.core import registry as core_registry
    from mcplock.packages import mcp_registry, server_json

    base = mcp_registry.base_url(registry)
    warn_plain_http(cli, base)
    rname, version = core_registry.split_ref(ref)
    entry = mcp_registry.get(rname, version, base)
    launch, why = _launch_or_why(entry)
    others = [_row(e) for e in mcp_registry.versions(rname, base)]
    if fmt == "json":
        cli.write_json(
            {
                "version": 1,
                "command": "inspect",
                "registry": base,
                "exit_code": 0,
                "server": {**_row(entry), "repository": server_json.repository(entry.server)},
                "launch": _launch_json(launch) if launch is not None else None,
                "not_addable": why,
                "versions": others,
            }
        )
        return 0
    _say_entry(cli, entry, launch, why, others)
    return 0


def _launch_or_why(entry: Entry) -> tuple[Launch | None, str | None]:
    """The launch an entry becomes, or why it cannot be added."""
    from mcplock.packages import server_json

    try:
        return server_json.launch_of(entry.server), None
    except server_json.EntryError as e:
        return None, str(e)


def _say_entry(cli: Cli, entry: Entry, launch: Launch | None, why: str | None, others: list[dict[str, object]]) -> None:
    """The entry as text: name, version, status, description, repository, the launch (or why
    none), and every version."""
    from mcplock.packages import server_json

    out = cli.out
    out.print(
        Text("")
        .append_text(safe_text(entry.name, "bold", keep_newlines=False))
        .append(f" {sanitize(entry.version, 60)}  ({sanitize(entry.status, 20)})")
    )
    if entry.description:
        out.print(Text("  ").append_text(safe_text(entry.description[:300], keep_newlines=False)))
    repo = server_json.repository(entry.server)
    if repo:
        out.print(Text("  repository: ").append_text(safe_text(repo, keep_newlines=False)))
    if launch is not None:
        _say_launch(cli, launch)
    else:
        out.print(Text("  cannot be added: ", style="yellow").append_text(safe_text(str(why), keep_newlines=False)))
    out.print(
        Text(
            "  versions: "
            + ", ".join(
                f"{sanitize(str(r['version']), 40)}" + ("" if r["status"] == "active" else f" ({r['status']})")
                for r in others
            )
        )
    )


def _launch_json(launch: Launch) -> dict[str, object]:
    return {
        "transport": launch.transport,
        "command": launch.command,
        "args": launch.args,
        "env": launch.env,
        "pass_env": launch.pass_env,
        "url": launch.url,
        "headers": launch.headers,
        "required": launch.required,
    }


def _say_launch(cli: Cli, launch: Launch) -> None:
    """What the entry runs: the command line and its variables, or the remote URL; what it needs."""
    if launch.transport == Transport.STDIO:
        import shlex

        cli.out.print(
            Text("  runs: ").append_text(
                safe_text(shlex.join([str(launch.command), *launch.args]), keep_newlines=False)
            )
        )
        for k, v in sorted(launch.env.items()):
            cli.out.print(Text(f"  env {k}=").append_text(safe_text(v, keep_newlines=False)))
    else:
        cli.out.print(
            Text(f"  remote ({launch.transport}): ").append_text(safe_text(str(launch.url), keep_newlines=False))
        )
    if launch.required:
        cli.out.print(Text(f"  needs: {', '.join(launch.required)}"))


def register(app: typer.Typer) -> None:
    app.command("search")(cmd_search)
