"""`mcplock surface`: a server's own CI writes its whole surface as `mcp-surface.json`, says what the
release does to every client that pinned the previous one (`--against`), and signs it (`--sign`).
docs/publishers.md."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import typer

from mcplock.cli import context, options, progress
from mcplock.cli.flags import check_transport, parse_env, parse_headers, parse_pass_env
from mcplock.cli.options import PASS_ENV, ProbeArgs, probing
from mcplock.core.probing import result_of
from mcplock.errors import ProbeError, UsageError
from mcplock.lock.spec import ServerSpec, Transport

if TYPE_CHECKING:
    from mcplock.model.snapshot import Snapshot
    from mcplock.probe import ProbeOptions
    from mcplock.publish.impact import Impact
    from mcplock.publish.statement import Statement

AGAINST_HELP = (
    "The previous release to compare with: a file (an mcp-surface.json, or a lock), or a published "
    "package, npm:NAME[@VERSION] or pypi:NAME[==VERSION] (its shipped mcp-surface.json, else the "
    "release installed into mcplock's cache and probed). Reports what this release does to every "
    "client that pinned it."
)
FAIL_ON_HELP = "With --against: exit 1 when a change is SEVERITY or worse (critical, high, medium, low, info)."
SIGN_HELP = "Also write a detached signature, OUTPUT.sig (an ed25519 key: --key)."
KEY_HELP = "The private key to sign with: OpenSSH ed25519 or PKCS#8 PEM (passphrase: MCPLOCK_KEY_PASSPHRASE)."
REPORT_HELP = "Also write the report as FORMAT=FILE (json or markdown; repeatable), e.g. markdown=$GITHUB_STEP_SUMMARY."


@probing(oauth=True)
def cmd_surface(
    ctx: typer.Context,
    target: list[str] = typer.Argument(..., metavar="URL | -- CMD [ARG…]"),
    output: str = typer.Option("mcp-surface.json", "--output", "-o", metavar="FILE", help="Where to write it."),
    name: str | None = typer.Option(
        None, "--name", help="The server's name in the statement (default: serverInfo.name)."
    ),
    against: str | None = typer.Option(None, "--against", metavar="PREVIOUS", help=AGAINST_HELP),
    fail_on: str | None = typer.Option(None, "--fail-on", metavar="SEVERITY", help=FAIL_ON_HELP),
    sign: bool = typer.Option(False, "--sign", help=SIGN_HELP),
    key: str | None = typer.Option(None, "--key", metavar="KEY", help=KEY_HELP),
    fmt: str = typer.Option("text", "--format", help="The report on stdout: text, json or markdown."),
    report_to: list[str] = typer.Option([], "--report", metavar="FORMAT=FILE", help=REPORT_HELP),
    transport: str | None = typer.Option(None, "--transport", help="http or sse for a URL."),
    header: list[str] = typer.Option([], "--header", help="'Name: value' (values may use ${VAR})."),
    env: list[str] = typer.Option([], "--env", help="KEY=VALUE for a stdio server."),
    pass_env: list[str] = PASS_ENV,
    *,
    probe: ProbeArgs,
) -> int:
    """Probe the server being built and write its whole surface to mcp-surface.json (tools, prompts,
    resources, templates, instructions, App documents, skills; the mcp-lock/1 surface digest and
    mcplock's hashes). --against PREVIOUS: what this release does to every pinned client. Exit 1 with
    --fail-on when a change is that severe, 2 on bad input, 3 when the server cannot be probed."""
    cli = context.of(ctx)
    cli.report_format("surface", fmt, ("text", "json", "markdown"))
    severity = options.fail_on_severity(fail_on, "mcplock surface --against OLD.json --fail-on high …")
    extra = _reports(cli, report_to)
    if sign and not key:
        raise UsageError("--sign needs --key KEY", hint="e.g. `mcplock surface --sign --key ~/.ssh/id_ed25519 -- CMD…`")
    cli.check_output(output)
    spec = _spec(cli, target, transport, header, env, pass_env, probe)
    opts = probe.options(cli)
    previous = _previous(cli, against, opts, probe) if against else None  # bad input: before the probe
    st = _statement(_probed(cli, spec, opts, probe), name)
    from mcplock.publish.statement import write

    write(st, output)
    signature = _sign(cli, st, output, key) if sign and key else None
    cli.info(_head(st, output))
    imp = _impact(previous, st) if previous is not None else None
    code = 1 if imp is not None and imp.fails(severity) else 0
    for f, path in extra:
        _write_report(cli, f, path, imp, st, output, code, signature)
    _emit(cli, fmt, imp, st, output, code, signature)
    return code


def _head(st: Statement, output: str) -> str:
    from mcplock.render.surface import head_line

    return head_line(st, output)


def _reports(cli: context.Cli, values: list[str]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for v in values:
        fmt, sep, path = v.partition("=")
        if not sep or not path or fmt not in ("json", "markdown"):
            raise UsageError(
                f"--report takes FORMAT=FILE, not `{v}`",
                hint="FORMAT is json or markdown, e.g. --report markdown=summary.md",
            )
        cli.check_output(path)
        out.append((fmt, path))
    return out


def _spec(
    cli: context.Cli,
    target: list[str],
    transport: str | None,
    header: list[str],
    env: list[str],
    pass_env: list[str],
    probe: ProbeArgs,
) -> ServerSpec:
    """The server being built: a URL, or the command after `--` run in the current directory (every
    resource listed: the statement is the whole surface)."""
    if not cli.had_dashdash and len(target) == 1 and "://" in target[0]:
        if env or pass_env:
            raise UsageError("--env and --pass-env are for stdio servers")
        return ServerSpec(
            name="surface",
            transport=check_transport(transport, remote=True),
            url=target[0],
            headers=parse_headers(header, refuse_secrets=False),
            pin_resources=True,
            auth=probe.auth(),
        )
    check_transport(transport, remote=False)
    if header:
        raise UsageError("--header is for remote servers")
    return ServerSpec(
        name="surface",
        transport=Transport.STDIO,
        command=target[0],
        args=tuple(target[1:]),
        env=parse_env(env, refuse_secrets=False),
        cwd=os.getcwd(),
        pin_resources=True,
        pass_env=parse_pass_env(pass_env),
    )


def _probed(cli: context.Cli, spec: ServerSpec, opts: ProbeOptions, probe: ProbeArgs) -> Snapshot:
    from mcplock.model.snapshot import Snapshot

    r = result_of(progress.probe(cli, [spec], opts, login=probe.login), spec.name)
    if isinstance(r, ProbeError):
        raise r
    assert isinstance(r, Snapshot)
    return r


def _statement(snap: Snapshot, name: str | None) -> Statement:
    from mcplock.publish.statement import build

    return build(snap, name)


def _previous(cli: context.Cli, against: str, opts: ProbeOptions, probe: ProbeArgs) -> tuple[Statement, str]:
    """The previous release as a statement, and how the report names it."""
    from mcplock.publish.previous import package_spec, read_previous, shipped_or_none

    if os.path.isfile(against):
        return read_previous(against), against
    spec = package_spec(against)
    if spec is None:
        raise UsageError(
            f"--against {against}: no such file, and not a package (npm:NAME[@VERSION], pypi:NAME[==VERSION])",
            hint="give the previous release's mcp-surface.json, or its package, e.g. --against npm:my-server@1.2.0",
        )
    cli.info(f"fetching {against} into mcplock's cache")
    shipped, ready = shipped_or_none(spec, opts.environ)
    label = f"{against} ({ready.package.label})" if ready.package is not None else against
    if shipped is not None:
        cli.info(f"{label} ships mcp-surface.json: comparing with it")
        return shipped, label
    cli.info(f"{label} ships no mcp-surface.json: probing it")
    return _statement(_probed(cli, ready, opts, probe), None), label


def _impact(previous: tuple[Statement, str], st: Statement) -> Impact:
    from mcplock.publish.impact import impact

    return impact(previous[0], st, previous[1])


def _sign(cli: context.Cli, st: Statement, output: str, key: str) -> str:
    from mcplock.publish.signature import sign_statement

    path, fingerprint = sign_statement(st, output, key)
    cli.info(f"signed {output} with the key {fingerprint}: {path}")
    return path


def _render(fmt: str, imp: Impact | None, st: Statement, output: str, code: int, signature: str | None) -> str:
    from mcplock.render.surface import json_report, render_markdown

    if fmt == "markdown":
        return render_markdown(imp, st, output, code)
    from mcplock.render.formats.json import dumps

    return dumps(json_report(imp, st, output, code, signature))


def _write_report(
    cli: context.Cli, fmt: str, path: str, imp: Impact | None, st: Statement, output: str, code: int, sig: str | None
) -> None:
    """A report into FILE: appended to a job summary (`$GITHUB_STEP_SUMMARY` collects), else written."""
    mode = "a" if path == os.environ.get("GITHUB_STEP_SUMMARY") else "w"
    try:
        with open(path, mode, encoding="utf-8") as fh:
            fh.write(_render(fmt, imp, st, output, code, sig))
    except OSError as e:
        raise UsageError(f"cannot write the report to {path}: {e.strerror}", hint="check the path") from None
    cli.info(f"wrote the {fmt} report to {path}")


def _emit(
    cli: context.Cli, fmt: str, imp: Impact | None, st: Statement, output: str, code: int, sig: str | None
) -> None:
    if fmt != "text":
        import sys

        sys.stdout.write(_render(fmt, imp, st, output, code, sig))
        return
    if imp is None:
        return
    from mcplock.render.surface import render_text

    cli.out.print(render_text(imp, color=cli.color()))


def register(app: typer.Typer) -> None:
    app.command("surface")(cmd_surface)
