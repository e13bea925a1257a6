"""Where `add` and `init` end (:func:`lock_specs`): the servers staged are probed and locked by
:func:`mcplock.core.add.add_servers`, with this terminal's side of it (:class:`Asks`: the
warnings, the trust question, progress, "accept all of them?"), then what was locked is reported
and what is left pending offered for review. Servers whose environment may run code are held
first (:func:`hold_code_env`)."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING

from rich.text import Text

from mcplock.cli import progress
from mcplock.cli.context import Cli
from mcplock.cli.fast_check import counted
from mcplock.cli.options import ProbeArgs
from mcplock.cli.progress import report_failure
from mcplock.cli.trust import ask, terminal
from mcplock.core import add as core_add
from mcplock.core.add import Findings
from mcplock.core.add_sources import Staged
from mcplock.core.probing import Results
from mcplock.errors import UntrustedError
from mcplock.lock.model import Entry, ServerEntry
from mcplock.lock.spec import ServerSpec
from mcplock.lock.targets import label
from mcplock.model import severity
from mcplock.model.documents import dynamic_skills
from mcplock.text.untrusted import safe_text, shell_word

if TYPE_CHECKING:
    from mcplock.errors import ProbeError
    from mcplock.lint import LintFinding


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
    if done.interrupted:
        return _interrupted(cli, done)
    pending = done.pending()
    code = review_now(cli, pending, interactive) if pending else 0
    return code if code else failure_code(done.failed) if done.failed else 0


def _interrupted(cli: Cli, done: core_add.Added) -> int:
    """Ctrl-C at a server's question: what was probed is in the lock, pending where not answered
    (:func:`mcplock.core.add._accept_and_write`); said once, exit 130."""
    cli.out.print()  # off the question's line
    cli.info(
        Text(
            f"interrupted: the servers probed are kept in {os.path.basename(cli.lockfile)}, "
            "what was not accepted left pending review "
            "(`mcplock check` fails until it is reviewed); `mcplock accept` resumes the review, and running "
            "this again probes nothing",
            style="yellow",
        )
    )
    cli.said_interrupted = True
    return 130


def _report_added(cli: Cli, done: core_add.Added) -> None:
    """What :func:`~mcplock.core.add.add_servers` did: each failure, each server locked, and the
    MCP Registry names the packages claim (said once, shortly)."""
    for name, err in done.failed.items():
        report_failure(cli, name, err)
    for entry in done.entries:
        _report_locked(cli, entry, done.held.get(entry.name, []), done.forbidden.get(entry.name, []))
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

    return 2 if any(err.kind in NOT_FOUND or err.exit_code == 2 for err in failed.values()) else 3


def _report_locked(cli: Cli, entry: ServerEntry, held: list[str], forbidden: list[str]) -> None:
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
    for target in forbidden:
        cli.info(
            Text("  left pending (the organisation's policy forbids it): ", style="bold red").append_text(
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
    line = Text("locked ").append_text(name).append(f": {counted(n, 'tool')} accepted ({_extras(entry)})")
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


def _excerpt(text: str, chars: int = 400, lines: int = 6) -> list[str]:
    """The start of a server's instructions as lines (a line break is a line, not an escape that
    reads as an attack: issue 42.10), at most ``lines`` of them and ``chars`` characters."""
    out = text[:chars].splitlines()[:lines] or [""]
    if len(text) > chars or len(text.splitlines()) > lines:
        out[-1] += " …"
    return out


def _confirm(cli: Cli, entry: ServerEntry, findings: Findings) -> bool:
    out = cli.out
    out.print(
        Text("server ", style="bold")
        .append_text(safe_text(entry.name, keep_newlines=False))
        .append(f" offers {counted(len(entry.tools), 'tool')}:")
    )
    for key, e in sorted(entry.tools.items()):
        out.print(_tool_row(key, e, findings.get((entry.name, "tool", key))))
    if entry.instructions is not None and entry.instructions.pending is not None:
        out.print(Text("  instructions:"))
        for line in _excerpt(str(entry.instructions.pending.definition)):
            out.print(Text("    ").append_text(safe_text(line, keep_newlines=False)))
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
