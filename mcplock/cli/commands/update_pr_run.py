"""`mcplock update-pr`'s run, below the command and its two process sides: the command line's choices
(:class:`How`), what the run got to (:class:`Done`), each branch's step and its outcome said, and the
building process started without the API token (:func:`build_in_child`, docs/updates.md, "What a
probed release can reach"). :mod:`.update_pr`, :mod:`.update_pr_build` and :mod:`.update_pr_drift`
all read it; it reads none of them."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rich.text import Text

from mcplock.cli import context
from mcplock.cli.progress import report_failure
from mcplock.errors import McplockError
from mcplock.text.untrusted import safe_text

if TYPE_CHECKING:
    from mcplock.core.github import GitHub
    from mcplock.core.update_pr import Outcome, Pending, Prepared
    from mcplock.core.update_pr_build import Built
    from mcplock.errors import ProbeError

PLAN_VARIABLE = "MCPLOCK_UPDATE_PR_PLAN"  # set only by update-pr for the process it starts
PLAN = "plan.json"
BUILT = "built.json"


def outcome_line(o: Outcome) -> Text:
    names = ", ".join(o.servers)
    what = ", ".join(f"{m['package']} {m['from'] or 'unpinned'} → {m['to']}" for m in o.moves)
    pr = f"#{o.pr.number} {o.pr.url}" if o.pr is not None else ""
    words = {
        "opened": (f"opened {pr} from {o.branch}: {what}", "green"),
        "updated": (f"updated {pr} (pushed {o.branch} anew): {what}", "green"),
        "unchanged": (f"{pr or o.branch} {o.note} (nothing to do)", ""),
        "declined": (o.note, "yellow"),
        "kept": (f"{pr}: {o.note}", "yellow"),
        "would-open": (f"would open a pull request from {o.branch}: {o.title}", "yellow"),
        "would-update": (f"would update {pr} (push {o.branch} anew): {o.title}", "yellow"),
        "pushed": (f"pushed {o.branch} (no pull request: --push-only): {what}", "green"),
        "failed": (o.note, "red"),
        "refreshed": (
            f"refreshed {pr} (pushed {o.branch} at {(o.commit or '')[:12]}, report commented): {what}",
            "green",
        ),
        "commented": (f"{pr}: report commented ({o.note})", ""),
        "refused": (o.note, "red"),
        "would-refresh": (f"would push to {o.branch} and comment on {o.title}: {what}", "yellow"),
    }
    text, style = words.get(o.action, (o.action, ""))
    return (
        Text()
        .append_text(safe_text(names, keep_newlines=False))
        .append(": ")
        .append_text(safe_text(text, style, keep_newlines=False))
    )


@dataclass(frozen=True)
class How:
    """The command line's choices."""

    servers: list[str]
    group: bool
    dry_run: bool
    text: bool
    policy: str | None
    allow_code_env: tuple[str, ...]
    min_age: float | None
    drift: bool = False


@dataclass
class Done:
    """What the run got to (it may stop at an error): the servers selected and checked, the
    pull requests dealt with, the error that stopped it."""

    prep: Prepared | None = None
    outcomes: list[Outcome] = field(default_factory=list)
    failure: McplockError | None = None
    secrets: tuple[str, ...] = ()  # every value known to be secret: never printed, pushed or posted

    @property
    def errors(self) -> dict[str, ProbeError]:
        """The servers whose pin could not be checked against its registry."""
        return dict(self.prep.errors) if self.prep is not None else {}

    def exit_code(self, dry_run: bool) -> int:
        """The error's own code; 3 when a registry or a pull request failed; with --dry-run, 1
        when there is a pull request to open or update; else 0."""
        if self.failure is not None:
            return self.failure.exit_code
        failed = [o.error.exit_code for o in self.outcomes if o.action == "failed" and o.error is not None]
        if failed:
            return max(failed)
        if self.errors or any(o.action == "failed" for o in self.outcomes):
            return 3
        if any(o.action == "refused" for o in self.outcomes):
            return 1  # --renovate: a release screening refuses is what the pull request proposes
        if dry_run and any(o.action.startswith("would-") for o in self.outcomes):
            return 1
        return 0


def each(cli: context.Cli, done: Done, how: How, branch: str, servers: list[str], step):  # type: ignore[no-untyped-def]
    """``step()``; its McplockError recorded as the branch's failure (None returned), except a
    token or rights GitHub refused, which stops the run."""
    from mcplock.core.github import GitHubError
    from mcplock.core.update_pr import Outcome
    from mcplock.core.update_pr_deliver import scrub_error

    try:
        return step()
    except McplockError as e:
        e = scrub_error(e, done.secrets)
        if done.failure is None:
            done.failure = e
        if isinstance(e, GitHubError) and e.status in (401, 403):
            raise e from None
        record(cli, done, how, Outcome(branch, servers, "failed", note=e.message, error=e))
        return None


def record(cli: context.Cli, done: Done, how: How, o: Outcome) -> None:
    done.outcomes.append(o)
    if how.text:
        say_outcome(cli, o)


def child_env(environ: dict[str, str], secrets: tuple[str, ...]) -> dict[str, str]:
    """The building process's environment: this one without the API token (under any name)."""
    env = {k: v for k, v in environ.items() if k != "MCPLOCK_GITHUB_TOKEN"}
    return {k: v for k, v in env.items() if not (v and v in secrets)}


def build_in_child(
    cli: context.Cli,
    gh: GitHub | None,
    done: Done,
    prep: Prepared,
    pending: list[Pending],
    dry_run: bool,
    *,
    drift: bool = False,
) -> dict[str, Built]:
    """Run `update-pr` again as the building process (the plan's directory in PLAN_VARIABLE),
    without the token; its output relayed with the secrets
    scrubbed; what it built, per branch (a branch it did not report: failed)."""
    import shutil
    import subprocess
    import tempfile

    from mcplock.core.update_pr_build import Built, Plan, error_json, read_results
    from mcplock.core.update_pr_deliver import scrub
    from mcplock.errors import ProbeError

    where = tempfile.mkdtemp(prefix="mcplock-update-pr-")
    try:
        branches = [(p.branch, [r.server for r in p.rows]) for p in pending]
        Plan(prep.base, prep.base_sha, prep.lock_path, branches, dry_run, prep.min_age, drift, prep.versions).dump(
            os.path.join(where, PLAN)
        )
        api = gh.secrets if gh is not None else ()
        argv = [sys.executable, "-m", "mcplock", *cli.args]
        proc = subprocess.Popen(
            argv,
            env={**child_env(dict(os.environ), api), PLAN_VARIABLE: where},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            errors="replace",
        )
        assert proc.stdout is not None
        for line in proc.stdout:
            cli.err.file.write(scrub(line, done.secrets))
            cli.err.file.flush()
        code = proc.wait()
        built, failure = read_results(os.path.join(where, BUILT))
    finally:
        shutil.rmtree(where, ignore_errors=True)
    if failure is not None:
        raise failure
    by_branch = {b.branch: b for b in built}
    lost = ProbeError("update", f"the building process ended (exit {code}) before this branch was built")
    return {
        p.branch: by_branch.get(p.branch) or Built(p.branch, error=error_json(lost), note=lost.message) for p in pending
    }


def say_outcome(cli: context.Cli, o: Outcome) -> None:
    """The pull request's line, its error, and with --dry-run the body it would have."""
    cli.say(outcome_line(o))
    if o.error is not None:
        report_failure(cli, ", ".join(o.servers), o.error)
    if o.action.startswith("would-"):
        cli.say(Text(f"--- body of {o.branch} ---", style="dim"))
        cli.say(safe_text(o.body))
