"""`mcplock add`: lock new servers (one spec, or imported from a host config)."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import typer
from rich.text import Text

from mcplock.cli import context, progress
from mcplock.cli.commands.registry import REGISTRY, confirm_remote_variables, registry_spec
from mcplock.cli.context import Cli
from mcplock.cli.flags import check_args, check_transport, parse_env, parse_headers, parse_pass_env
from mcplock.cli.options import PASS_ENV, POLICY, TRUST, YES, ProbeArgs, probing
from mcplock.cli.progress import report_failure
from mcplock.cli.trust import ask, terminal
from mcplock.core import add as core_add
from mcplock.core.add import Findings, Staged
from mcplock.core.probing import Results
from mcplock.errors import SecretError, UntrustedError, UsageError
from mcplock.lock.model import POLICIES, Entry, ServerEntry
from mcplock.lock.spec import TRANSPORTS, ServerSpec, Transport
from mcplock.lock.targets import label
from mcplock.lock.templates import looks_secret
from mcplock.model import severity
from mcplock.model.documents import dynamic_skills
from mcplock.packages.mcp_registry import is_name
from mcplock.text.untrusted import safe_text, shell_word

if TYPE_CHECKING:
    from mcplock.errors import ProbeError
    from mcplock.lint import LintFinding


def check_policy(policy: str) -> None:
    if policy not in POLICIES:
        raise UsageError(f"--policy takes one of {', '.join(POLICIES)}")


@probing(oauth=True)
def cmd_add(
    ctx: typer.Context,
    name: str | None = typer.Argument(None, help="Name of the server in the lock, or an MCP Registry name."),
    target: list[str] | None = typer.Argument(None, help="URL, or `-- CMD [ARG…]` for a stdio server."),
    from_file: str | None = typer.Option(
        None,
        "--from",
        metavar="FILE",
        help="Import from a host config (.mcp.json, .vscode/mcp.json, .codex/config.toml, …).",
    ),
    transport: str | None = typer.Option(
        None, "--transport", help="http (Streamable HTTP, default for URLs) or sse (legacy)."
    ),
    header: list[str] = typer.Option([], "--header", help="'Name: value' for a remote server; secrets as ${VAR}."),
    env: list[str] = typer.Option([], "--env", help="KEY=VALUE for a stdio server; secrets as ${VAR}."),
    cwd: str | None = typer.Option(None, "--cwd", help="Working directory of a stdio server (relative to the lock)."),
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
        help="The server's name in the lock, for `add REGISTRY_NAME` (default: the registry name's last part).",
    ),
    registry: str | None = REGISTRY,
    allow_code_env: list[str] = typer.Option(
        [],
        "--allow-code-env",
        metavar="VAR",
        help="For `add REGISTRY_NAME`: accept this variable the entry sets although it loads code "
        "(NODE_OPTIONS, LD_PRELOAD, PYTHONPATH …); repeat for each.",
    ),
    *,
    probe: ProbeArgs,
) -> int:
    """Add servers: `add REGISTRY_NAME[@VERSION]` (the MCP Registry), `add NAME -- CMD…`, `add NAME URL`,
    or `add --from FILE [NAME…]`."""
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
        found = core_add.from_config(from_file, named, cli.lock_dir)
    else:
        given = Given(transport, header, env, cwd, pin_resources, server_name, registry, allow_code_env)
        spec = _command_line_spec(cli, name, target, given, trust, probe)
        found = core_add.Found(specs=[(_with_pass_env(spec, pass_env), None)])
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
    new, clash = core_add.new_only(specs, cli.lockfile, explicit=explicit)
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


class Asks(core_add.Hooks):
    """`add`'s and `init`'s side of :func:`mcplock.core.add.add_servers`: the warnings, the
    trust question, the progress lines, and per new server "accept all of them?" (a yes with
    --yes; asked only at a terminal)."""

    def __init__(self, cli: Cli, yes: bool, interactive: bool, environ: Mapping[str, str] | None) -> None:
        self.cli, self.yes, self.interactive = cli, yes, interactive
        self.progress = progress.Progress(cli, environ)

    def lookalike(self, spec: ServerSpec, finding: LintFinding) -> None:
        row = Text(f"warning: {finding.severity} {finding.rule} in ", style=severity.style(finding.severity))
        row.append_text(safe_text(spec.name, keep_newlines=False)).append(": ")
        self.cli.err.print(row.append_text(safe_text(finding.message, keep_newlines=False)))

    def trust(self, refused: UntrustedError) -> bool:
        if not terminal():
            raise refused
        return ask(self.cli, refused)

    def pinning(self, spec: ServerSpec) -> None:
        self.cli.info(
            Text("pinning ").append_text(safe_text(spec.name, keep_newlines=False)).append(": resolving its package")
        )

    def probing(self, specs: list[ServerSpec]) -> None:
        self.progress.announce(specs)

    def event(self, name: str, what: str) -> None:
        self.progress.event(name, what)

    def say(self, text: str) -> None:
        progress.say_plain(text)

    def probed(self, results: Results) -> None:
        progress.show_skipped(self.cli, results)

    def confirm(self, entry: ServerEntry, findings: Findings) -> bool:
        _warn_findings(self.cli, entry, findings)
        return self.yes or (self.interactive and _confirm(self.cli, entry, findings))


def hold_code_env(cli: Cli, specs: list[Staged], named: list[str]) -> list[Staged]:
    """A bulk consent (``--trust``/``--yes`` over a whole host config or project) never covers a
    server whose launch sets a variable that loads code (:mod:`mcplock.packages.envcode`): it is left
    out with a note, for a person to add by name (docs/pins.md, "Variables that load code")."""
    from mcplock.packages.envcode import of_spec

    out: list[Staged] = []
    for sp, chash in specs:
        names = of_spec(sp)
        if names and sp.name not in named:
            cli.err.print(
                Text("skipped ", style="yellow").append_text(
                    safe_text(
                        f"`{sp.name}`: it sets {', '.join(names)}, which loads code "
                        f"outside the package pin (critical); "
                        f"a bulk --trust/--yes does not cover it: review it, then add it by name "
                        f"(`mcplock add --from FILE {shell_word(sp.name)} --trust`)",
                        keep_newlines=False,
                    )
                )
            )
            continue
        out.append((sp, chash))
    return out


def lock_specs(
    cli: Cli, specs: list[Staged], policy: str, yes: bool, args: ProbeArgs, *, consent: bool, how: str
) -> int:
    """`add` and `init` end here: :func:`mcplock.core.add.add_servers`, then what it did, then
    (at a terminal) the offer to walk what is left pending."""
    from mcplock.cli.walk import review_now

    opts = args.options(cli)
    interactive = not yes and sys.stdin.isatty() and sys.stdout.isatty()
    client = args.client() if args.client_name != "mcplock" else None  # the default identity is not pinned
    asks = Asks(cli, yes, interactive, opts.environ)
    done = core_add.add_servers(
        specs,
        lockfile=cli.lockfile,
        policy=policy,
        opts=opts,
        login=args.login,
        client=client,
        consent=consent,
        how=how,
        hooks=asks,
    )
    _report_added(cli, done)
    pending = done.pending()
    code = review_now(cli, pending, interactive) if pending else 0
    return code if code else failure_code(done.failed) if done.failed else 0


def _report_added(cli: Cli, done: core_add.Added) -> None:
    """What :func:`~mcplock.core.add.add_servers` did: each failure, each server locked, and the
    MCP Registry names the packages claim (said once, shortly)."""
    for name, err in done.failed.items():
        report_failure(cli, name, err)
    for entry in done.entries:
        _report_locked(cli, entry, done.held.get(entry.name, []))
    if done.claims:
        listed = ", ".join(f"{name} ({got})" for name, _package, got in done.claims)
        cli.note(
            f"in the MCP Registry: {listed}; `mcplock add REGISTRY_NAME --name NAME` instead lets "
            "`mcplock outdated` follow its releases"
        )


def failure_code(failed: dict[str, ProbeError]) -> int:
    """2 when a package, version or registry name does not exist (the registry said so: an input
    error, the typo a CI that tolerates outages must not pass), else 3 (nothing answered)."""
    from mcplock.packages.errors import NOT_FOUND

    return 2 if any(err.kind in NOT_FOUND for err in failed.values()) else 3


def _report_locked(cli: Cli, entry: ServerEntry, held: list[str]) -> None:
    left = entry.pending_count()
    name = safe_text(entry.name, keep_newlines=False)
    cli.say(_locked_line(entry, name, left))
    for key in dynamic_skills(entry):
        cli.say(
            Text("  dynamic skill ", style="yellow")
            .append_text(safe_text(key, keep_newlines=False))
            .append(
                ": its files are generated by the server and cannot be pinned; only its entry (URI, frontmatter) is"
            )
        )
    for target in held:
        cli.info(
            Text("  left pending (critical lint finding): ", style="bold red").append_text(
                safe_text(target, keep_newlines=False)
            )
        )
    if left:
        cli.info(
            Text("review with `mcplock show ")
            .append_text(name)
            .append("`, then `mcplock accept ")
            .append_text(name)
            .append("/…` or `mcplock reject ")
            .append_text(name)
            .append("/…`")
        )


def _locked_line(entry: ServerEntry, name: Text, left: int) -> Text:
    """A new server's line: the tools accepted (and what else it offers), or, with none accepted,
    the items left pending review."""
    n = sum(1 for t in entry.tools.values() if t.definition is not None)
    if not n and left:
        return Text("added ").append_text(name).append(f": {left} items pending review")
    line = Text("locked ").append_text(name).append(f": {n} tools accepted ({_extras(entry)})")
    if left:
        line.append(f", {left} left pending", style="yellow")
    return line


def _extras(entry: ServerEntry) -> str:
    parts = [f"{len(entry.items['prompt'])} prompts", f"{len(entry.items['resource-template'])} resource templates"]
    for kind, what in (("ui", "App documents"), ("skill", "skills"), ("content", "documents")):
        if entry.items[kind]:
            dynamic = len(dynamic_skills(entry)) if kind == "skill" else 0
            parts.append(f"{len(entry.items[kind])} {what}" + (f" ({dynamic} dynamic)" if dynamic else ""))
    if entry.instructions is not None:
        parts.append("instructions")
    return ", ".join(parts)


def _warn_findings(cli: Cli, entry: ServerEntry, findings: Findings) -> None:
    for e in entry.entries():
        for f in findings.get((entry.name, e.kind, e.key), []):
            if not severity.at_least(f.severity, severity.HIGH):
                continue
            row = Text(f"warning: {f.severity} {f.rule} in ", style=severity.style(f.severity))
            row.append_text(safe_text(label(entry, e), keep_newlines=False))
            row.append(": ").append_text(safe_text(f.message, keep_newlines=False))
            cli.err.print(row)


def _confirm(cli: Cli, entry: ServerEntry, findings: Findings) -> bool:
    out = cli.out
    out.print(
        Text("server ", style="bold")
        .append_text(safe_text(entry.name, keep_newlines=False))
        .append(f" offers {len(entry.tools)} tools:")
    )
    for key, e in sorted(entry.tools.items()):
        out.print(_tool_row(key, e, findings.get((entry.name, "tool", key))))
    if entry.instructions is not None and entry.instructions.pending is not None:
        text = str(entry.instructions.pending.definition)[:200]
        out.print(Text("  instructions: ").append_text(safe_text(text, keep_newlines=False)))
    crit = core_add.has_critical(entry, findings)
    question = (
        "accept all of them? [y/N] " if not crit else "accept all but the critical ones (they stay pending)? [y/N] "
    )
    from mcplock.cli.prompt import confirm

    return confirm(out, question)


def _tool_row(key: str, e: Entry, found: list[LintFinding] | None) -> Text:
    """A tool offered: its name, the first line of its description, its lint findings."""
    d = e.pending.definition if e.pending else e.definition
    desc = d.get("description", "") if isinstance(d, dict) else ""
    first = desc.strip().split("\n")[0] if isinstance(desc, str) else ""
    row = Text("  ").append_text(safe_text(key, "bold", keep_newlines=False)).append("  ")
    row.append_text(safe_text(first[:120], keep_newlines=False))
    if found:
        row.append("  [" + ", ".join(sorted({f"{f.severity} {f.rule}" for f in found})) + "]", style="bold red")
    return row


def register(app: typer.Typer) -> None:
    app.command("add")(cmd_add)
