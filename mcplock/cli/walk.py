"""The interactive review walk of `mcplock accept` on a terminal, and the tally every accept prints.

One proposal at a time: its diff and findings, then a key (one keypress at a terminal,
:mod:`mcplock.cli.keys`; a line with the key elsewhere). ``a`` accepts (an item with a critical
lint finding only once its name is typed), ``r`` rejects, ``s`` skips, ``A`` accepts the rest of
this server (never a critical item), ``q`` stops, ``?`` shows the keys. Ctrl-C stops too and keeps
what was decided: the walk returns normally, so the lock is written with the decisions made.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text

from mcplock.cli import keys
from mcplock.cli.context import Cli
from mcplock.cli.prompt import choose_key, confirm, how_to_answer, interruptible, read_line
from mcplock.core.review import Ask, Tally, accept
from mcplock.lock import targets
from mcplock.lock.model import Entry, ServerEntry
from mcplock.text.untrusted import safe_name, safe_text, shell_word

if TYPE_CHECKING:
    from mcplock.trust.org_policy import OrgPolicy

KEYS = (
    ("a", "accept this item (an item with critical findings asks for its name)"),
    ("r", "reject it: seen and refused, the tool stays disabled"),
    ("s", "skip it: it stays pending"),
    ("A", "accept the rest of this server (items with critical findings stay pending)"),
    ("q", "quit: keep what was decided, leave the rest pending"),
    ("?", "show these keys"),
)
EXIT_INTERRUPTED = 130


def summary(cli: Cli, tally: Tally) -> int:
    """The closing lines of an accept, once the lock is written; the exit code (130 after
    Ctrl-C, the decisions kept)."""
    for result, target in tally.done:
        cli.say(Text(f"{result} ").append_text(safe_name(target)))
    cli.info(
        f"{tally.accepted} accepted, {tally.removed} removed, {tally.rejected} rejected; {tally.left} still pending"
    )
    for worst, named in (("critical", tally.critical), ("high", tally.high)):
        if named:
            line = _targets_line(f"accepted {len(named)} item(s) with {worst} findings: ", named)
            cli.info(line.append(" (`mcplock show` reads them; `mcplock disable` hides a tool)"))
    if tally.held:
        _say_held(cli, tally.held)
    if tally.interrupted:
        cli.info("interrupted: the decisions made so far are kept in the lock; `mcplock accept` resumes the review")
        cli.said_interrupted = True  # the one "interrupted" of this run
        return EXIT_INTERRUPTED
    return 0


def _targets_line(head: str, names: list[str]) -> Text:
    """``head`` (in yellow) and the review targets ``names``, comma-separated."""
    line = Text(head, style="yellow")
    for i, target in enumerate(names):
        line.append(", " if i else "").append_text(safe_name(target))
    return line


def _say_held(cli: Cli, held: list[str]) -> None:
    """The items held back for their critical findings, and how to accept the first by name."""
    first = shell_word(held[0])  # as typed, it reaches that item and not a look-alike
    cli.info(_targets_line(f"held {len(held)} item(s) with critical findings (never accepted in bulk): ", held))
    cli.info(
        Text("review each with `mcplock show ")
        .append_text(safe_text(first, keep_newlines=False))
        .append("`, then accept it by name (`mcplock accept ")
        .append_text(safe_text(first, keep_newlines=False))
        .append("`) or pass --include-critical")
    )


def review_now(cli: Cli, pending: list[ServerEntry], interactive: bool) -> int:
    """The end of `init` / `add` with items left pending: the first run ends in a lock that passes
    `check`. At a terminal, offer the walk of what is pending; elsewhere (or on a no) say what to
    run before committing. The exit code of the walk (130 after Ctrl-C), else 0."""
    n = sum(e.pending_count() for e in pending)
    if interactive and confirm(cli.out, f"review the {n} pending item(s) now, one by one? [Y/n] ", default=True):
        from mcplock.trust import org_policy

        return accept_pending(
            cli, [e.name for e in pending], all_=False, interactive=True, org=org_policy.resolve(None)
        )
    cli.info(
        Text(
            f"{n} item(s) pending review: `mcplock check` (and its pre-commit hook) fails until they are "
            "reviewed. Walk them with `mcplock accept` on a terminal, or accept them with `mcplock accept "
            "--all` (critical findings stay pending for you to name), then commit mcp.lock.",
            style="yellow",
        )
    )
    return 0


def accept_pending(
    cli: Cli,
    items: list[str],
    *,
    all_: bool,
    interactive: bool,
    approval: str | None = None,
    org: OrgPolicy | None = None,
    include_critical: bool = False,
) -> int:
    """Accept what ``items`` name (or everything, ``all_``): walked one by one when
    ``interactive``, else in bulk with critical items held. The exit code (130 after Ctrl-C)."""
    tally = accept(
        cli.lockfile,
        items,
        all_=all_,
        approval=approval,
        org=org,
        include_critical=include_critical,
        ask=asker(cli) if interactive else None,
        note=cli.note,
    )
    if tally is None:
        cli.say("nothing pending")
        return 0
    return summary(cli, tally)


def asker(cli: Cli) -> Ask:
    """The walk's question at this terminal, for :func:`mcplock.core.review.accept`."""

    def ask(
        srv: ServerEntry, e: Entry, n: int, total: int, critical: bool, approval: str | None
    ) -> tuple[str, str | None]:
        try:
            return _ask(cli, srv, e, n, total, critical, approval)
        except KeyboardInterrupt:
            cli.out.print()  # off the question's line; the core stops the walk, the decisions kept
            raise

    return ask


def _ask(
    cli: Cli, srv: ServerEntry, e: Entry, n: int, total: int, critical: bool, approval: str | None
) -> tuple[str, str | None]:
    """Show one proposal (diff and findings) and ask for a key, then (for a tool) the approval."""
    from mcplock.lock.review import proposed_approval
    from mcplock.render.show import render_show

    cli.out.print(Text(f"\n[{n}/{total}]", style="bold"))
    cli.out.print(render_show(srv, [e], whole_server=False, color=cli.color()))
    answer = _choose(cli)
    if answer != "a":
        return answer, None
    if critical and not _named_back(cli, srv, e):
        cli.out.print(Text("not accepted: the name did not match; it stays pending"))
        return "s", None
    if e.kind != "tool" or e.pending is None or e.pending.change == "removed":
        return "a", None
    return "a", _approval(cli, approval or proposed_approval(srv, e))


def _choose(cli: Cli) -> str:
    """The key for a proposal (``?`` lists what each one does, and asks again)."""
    question = "accept / reject / skip / accept rest of server / quit / help? [a/r/s/A/q/?] "
    choices = ("a", "r", "s", "A", "q", "?")
    while True:
        if keys.available():  # one key, no Enter (the README's "asks a key")
            answer = _key(cli, question, {c: c for c in choices}, default="q")
        else:
            answer = _prompt(cli, question, choices, default="q")
        if answer != "?":
            return answer
        for key, what in KEYS:
            cli.out.print(Text(f"  {key}  ", style="bold").append(what))


def _named_back(cli: Cli, srv: ServerEntry, e: Entry) -> bool:
    """An item with critical findings is accepted only when the person types its name."""
    name = targets.label(srv, e)
    cli.out.print(
        Text("this item has critical findings (above); to accept it, type its name ", style="yellow").append_text(
            safe_name(name)
        )
    )
    typed = _line(cli, "name? [Enter skips] ")
    return typed in (name, e.key)


def _approval(cli: Cli, proposed: str) -> str:
    """An accepted tool's approval: always, never, or Enter for ``proposed``."""
    if keys.available():
        got = _key(
            cli,
            f"approval: ask before each call? [a = always, n = never, Enter = {proposed}] ",
            {"a": "always", "n": "never", keys.ENTER: ""},
            default="",
            enter=proposed,
        )
    else:
        got = _prompt(
            cli,
            f"approval: ask before each call? [always/never, Enter = {proposed}] ",
            ("always", "never", ""),
            default="",
        )
    return got or proposed


def _key(cli: Cli, question: str, choices: dict[str, str], *, default: str, enter: str = "") -> str:
    """One key at a terminal (no Enter after it): the answer ``choices`` maps it to."""
    help_key = "?" if "?" in choices else None
    return choose_key(cli.out, question, choices, default=default, help_key=help_key, enter=enter)


def _line(cli: Cli, question: str) -> str | None:
    keys.drop_typeahead()  # the Enter after the key before is no answer to this
    with interruptible():  # before the question shows: a Ctrl-C typed as soon as it does counts
        cli.out.print(Text(question, style="bold"), end="")
        line = read_line()
    return line.strip() if line else None


def _prompt(cli: Cli, question: str, choices: tuple[str, ...], *, default: str) -> str:
    while True:
        answer = _line(cli, question)
        if answer is None:  # end of input
            return default
        chosen = _typed_choice(answer, choices)
        if chosen is not None:
            return chosen
        shown = ", ".join(c for c in choices if c)
        cli.out.print(how_to_answer(choices, "?") if "?" in choices else Text(f"answer one of: {shown}"))


def _typed_choice(answer: str, choices: tuple[str, ...]) -> str | None:
    """The choice a typed line names: as typed, in lower case, or (one-letter choices) by its
    first letter; None: none."""
    if answer in choices:
        return answer
    low = answer.lower()
    if low in choices:
        return low
    if low and low[:1] in choices and len(choices[0]) == 1:
        return low[:1]
    return None
