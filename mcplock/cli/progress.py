"""What a probing command shows on stderr: which server is being probed, which failed,
why, and (with -v) how long each probe took and the non-JSON-RPC lines a server wrote on stdout."""

from __future__ import annotations

import sys
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING

from rich.text import Text

from mcplock.cli.context import Cli
from mcplock.errors import McplockError, ProbeError
from mcplock.lock.spec import ServerSpec, Transport
from mcplock.text.untrusted import safe_text, visible

if TYPE_CHECKING:
    from mcplock.core.probing import Results
    from mcplock.lock.model import Lock, ServerEntry
    from mcplock.probe import ProbeOptions


def say_plain(text: str) -> None:
    """A line for the user to copy (an authorization URL): plain, no markup, no wrapping,
    hidden characters escaped (the URL comes from the authorization server)."""
    sys.stderr.write(visible(text) + "\n")
    sys.stderr.flush()


def _name(name: str) -> Text:
    return safe_text(name, keep_newlines=False)


def check_variables(cli: Cli, specs: list[ServerSpec], environ: Mapping[str, str] | None) -> None:
    """A ``${VAR}`` that is unset and has no default expands to nothing: a warning naming it
    (a fork's pull request has no secrets), an error with --strict, before anything runs."""
    from mcplock.errors import UsageError
    from mcplock.lock.spec import missing_variables

    for spec in specs:
        names = missing_variables(spec, environ)
        if not names:
            continue
        listed = ", ".join(f"${{{n}}}" for n in names)
        what = f"server `{spec.name}` uses {listed}: unset and without a default"
        if cli.strict:
            raise UsageError(
                what,
                hint=f"export {' '.join(names)} (or write ${{{names[0]}:-default}}); "
                "without --strict it expands to empty, with a warning",
            )
        cli.err.print(
            Text("warning: ", style="yellow").append_text(
                safe_text(
                    f"{what}, so {'they expand' if len(names) > 1 else 'it expands'} to empty "
                    "(--strict makes this an error)",
                    keep_newlines=False,
                )
            )
        )


class Progress:
    """One server is announced before its probe; several as each one starts."""

    def __init__(self, cli: Cli, environ: Mapping[str, str] | None = None) -> None:
        self.cli = cli
        self.environ = environ
        self.many = False
        self.started: dict[str, float] = {}

    def announce(self, specs: list[ServerSpec]) -> None:
        check_variables(self.cli, specs, self.environ)
        for spec in specs:  # it still works; it reads as what it is
            if spec.transport is Transport.SSE and not self.cli.quiet:
                self.cli.err.print(
                    Text("note: ", style="yellow")
                    .append_text(_name(spec.name))
                    .append(
                        " uses legacy HTTP+SSE, a deprecated transport (MCP 2026-07-28): lock the server's Streamable "
                        "HTTP endpoint instead when it has one (`--transport http`, usually its /mcp URL)"
                    )
                )
        self.many = len(specs) > 1
        if len(specs) == 1 and not self.cli.quiet:
            self.cli.err.print(Text("probing ", style="dim").append_text(_name(specs[0].name)))

    def event(self, name: str, what: str) -> None:
        if what == "start":
            self.started[name] = time.monotonic()
        if self.cli.quiet:
            return
        if what == "start" and self.many:
            self.cli.err.print(Text("probing ", style="dim").append_text(_name(name)))
        elif what == "failed":
            self.cli.err.print(Text("failed  ", style="red").append_text(_name(name)))
        if what in ("done", "failed") and self.cli.verbose:
            self._say_time(name, what)

    def _say_time(self, name: str, what: str) -> None:
        """-v: how long the probe of ``name`` took, once it is done or failed."""
        if name not in self.started:
            return
        ms = (time.monotonic() - self.started.pop(name)) * 1000
        verb = "probed in" if what == "done" else "failed after"
        self.cli.err.print(_name(name).append(f": {verb} {ms:.0f} ms", style="dim"))


def probe(cli: Cli, specs: list[ServerSpec], opts: ProbeOptions, *, login: bool) -> Results:
    """Probe ``specs`` through the core, showing progress; then the -v details."""
    from mcplock.core.probing import probe as core_probe

    p = Progress(cli, opts.environ)
    p.announce(specs)
    results = core_probe(specs, opts, lockfile=cli.lockfile, login=login, on_event=p.event, say=say_plain)
    show_skipped(cli, results)
    return results


def load_and_probe(
    cli: Cli, names: list[str], opts: ProbeOptions, *, use_stored_client: bool, login: bool
) -> tuple[Lock, list[ServerEntry], Results]:
    """Read the lock and probe the named servers (overlapped by the core), showing progress."""
    from mcplock.core.probing import load_and_probe as core_load_and_probe

    p = Progress(cli, opts.environ)
    lock, selected, results = core_load_and_probe(
        cli.lockfile,
        names,
        opts,
        use_stored_client=use_stored_client,
        login=login,
        on_event=p.event,
        say=say_plain,
        before_probe=p.announce,
    )
    show_skipped(cli, results)
    return lock, selected, results


def show_skipped(cli: Cli, results: Results) -> None:
    if not cli.verbose:
        return
    for name, r in results.items():
        if not isinstance(r, ProbeError) and r.skipped_lines:
            cli.err.print(
                _name(name).append(f": skipped {len(r.skipped_lines)} non-JSON-RPC line(s) on stdout:", style="dim")
            )
            for line in r.skipped_lines[:20]:
                cli.err.print(Text("  ").append_text(safe_text(line, keep_newlines=False)))


def report_failure(cli: Cli, name: str, err: McplockError) -> None:
    cli.error(f"{name}: {err.message}", err.hint)
