"""The title, commit message and body of a pull request that `mcplock update-pr` opens.

The body is the Markdown report (:func:`mcplock.render.formats.markdown.server_markdown`, the
same escaping: untrusted text is inert Markdown or a code span, word diffs in fenced blocks):
the version move with the registry's release link, each staged item with its severity, top
severity first, its findings and word diff, then what the reviewer runs. It is cut to
GitHub's limit (65,536 characters) with a note, never in the middle of a code block or a
``<details>``, and the review instructions at its end are always kept.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from mcplock.lock.targets import format_target
from mcplock.model.severity import rank
from mcplock.render.formats.markdown import longest_backticks, md_code, md_text, server_markdown
from mcplock.text.untrusted import shell_word, visible

LIMIT = 65536  # characters GitHub takes in a pull request body
CUT_NOTE = (
    "**This report is cut short here**: the whole of it is longer than GitHub's 65,536-character limit "
    "for a pull request body. On the branch, `mcplock diff` and `mcplock show SERVER/TOOL` show every change."
)


def _plain(s: object) -> str:
    return visible(str(s), keep_newlines=False)


def _top(d: Any) -> str | None:
    """The top severity of what a server's diff stages or changes (None: no diff, or nothing in it)."""
    if d is None:
        return None
    sevs = [p.detail.severity for p in d.pending if p.detail is not None] + [c.severity for c in d.changes]
    return min(sevs, key=rank) if sevs else None


def _by_severity(d: Any) -> Any:
    """``d`` with its pending items and changes ordered top severity first (stable otherwise)."""
    pending = sorted(d.pending, key=lambda p: rank(p.detail.severity if p.detail is not None else None))
    changes = sorted(d.changes, key=lambda c: rank(c.severity))
    return dataclasses.replace(d, pending=pending, changes=changes)


def move_words(m: dict[str, Any]) -> str:
    """``memory`` @scope/pkg 1.0.0 → 1.1.0 (plain text; escape it for the output)."""
    return f"{m['server']} {m['package']} {m['from'] or 'unpinned'} → {m['to']}"


def title(moves: list[dict[str, Any]]) -> str:
    if len(moves) == 1:
        m = moves[0]
        return _plain(f"mcplock: update {m['server']} ({m['package']} {m['from'] or 'unpinned'} → {m['to']})")[:250]
    return f"mcplock: update {len(moves)} MCP servers"


def commit_message(moves: list[dict[str, Any]], trailer: str) -> str:
    lines = [title(moves), ""]
    lines += [
        f"- {_plain(move_words(m))}: {len(m['changed'])} changed, {len(m['new'])} new, {len(m['removed'])} removed"
        for m in moves
    ]
    lines += [
        "",
        "The new releases' definitions are staged in the lock as pending review (changed tools "
        "disabled) until a person accepts them.",
        "",
    ]
    lines += [f"{trailer}: {_plain(m['server'])}@{_plain(m['to'])}" for m in moves]
    return "\n".join(lines) + "\n"


def _fence(text: str, lang: str = "") -> list[str]:
    fence = "`" * max(3, longest_backticks(text) + 1)
    return [f"{fence}{lang}", text, fence]


def _release(m: dict[str, Any], links: dict[str, str]) -> str:
    to = md_text(m["to"])
    link = links.get(m["server"])
    return f"[{to}]({link})" if link else to


def _heading(moves: list[dict[str, Any]]) -> str:
    if len(moves) != 1:
        return f"## mcplock: update {len(moves)} MCP servers"
    m = moves[0]
    return (
        f"## mcplock: update {md_code(m['server'])} ({md_code(m['package'])} "
        f"{md_text(m['from'] or 'unpinned')} → {md_text(m['to'])})"
    )


def _move_row(m: dict[str, Any], top: str | None, links: dict[str, str]) -> str:
    """One pin's row of the table: where it moved, what it stages, its top severity."""
    return (
        f"| {md_code(m['server'], table=True)} | {md_text(m['registry'])} "
        f"{md_code(m['package'], table=True)} | {md_text(m['from'] or 'unpinned')} | {_release(m, links)} "
        f"| {len(m['changed'])} | {len(m['new'])} | {len(m['removed'])} | "
        f"{f'**{top}**' if top else 'none'} |"
    )


def _staged_note(staged: int, lockfile: str) -> list[str]:
    """What the update leaves for a person: ``staged`` items pending review, or only the pin."""
    if staged:
        return [
            "",
            f"The new release's definitions are staged in {md_code(lockfile)} as **pending review** "
            f"({staged} item{'s' if staged != 1 else ''}): changed tools are disabled there until a person "
            "accepts them, and the `mcplock diff` / `mcplock check` job fails on this pull request until "
            "then. Nothing was accepted on anyone's behalf.",
        ]
    return [
        "",
        "The new release offers exactly the definitions the lock accepted: only the package pin "
        f"moves in {md_code(lockfile)}. The code behind the tools changed all the same — read the "
        "release notes before merging.",
    ]


def _review_commands(servers: list[str], diffs: list[Any], branch: str) -> list[str]:
    """What the reviewer runs on the branch: switch to it, show the first three staged items (top
    severity first), accept, commit."""
    cmds = [f"git fetch origin {shell_word(branch)} && git switch {shell_word(branch)}"]
    shown = [(d.name, p) for d in map(_by_severity, diffs) if d.name in servers for p in d.pending][:3]
    cmds += [f"mcplock show {shell_word(format_target(server, p.kind, p.name))}" for server, p in shown]
    cmds.append(f"mcplock accept {' '.join(shell_word(s) for s in servers)}   # on a terminal: a walk, item by item")
    cmds.append("git commit -am 'mcplock: accept the update' && git push")
    return cmds


def _review_tail(servers: list[str], diffs: list[Any], branch: str) -> list[str]:
    """What the reviewer runs on the branch (the first three staged items shown), and the footer."""
    tail = ["", "### Review it", "", "On this branch:", ""]
    tail += _fence("\n".join(_plain(c) for c in _review_commands(servers, diffs, branch)), "sh")
    tail += [
        "",
        "`mcplock accept SERVER/TOOL` accepts one item, `mcplock reject SERVER/TOOL` refuses one (it stays "
        "disabled). A lock signed with `mcplock sign` needs signing again once it changed. The merge driver "
        "(`mcplock merge-driver install`) merges this lock with one changed on the default branch meanwhile.",
        "",
        "---",
        "<sub>Opened by <code>mcplock update-pr</code>. A newer release updates this pull request "
        "(branch and body); a commit of yours on the branch is never overwritten. Close it to skip this "
        "release.</sub>",
    ]
    return tail


def _sections(servers: list[str], by_name: dict[str, Any]) -> list[str]:
    """The report of each moved server with something staged, changed or failing, top severity first."""
    sections: list[str] = []
    for server in servers:
        d = by_name.get(server)
        if d is not None and _has_news(d):
            sections += server_markdown(_by_severity(d))
    return sections


def _has_news(d: Any) -> bool:
    """A server's diff has something to report: staged items, changes or an error."""
    return bool(d.pending or d.changes or d.error is not None)


def body(
    moves: list[dict[str, Any]],
    diffs: list[Any],
    *,
    branch: str,
    lockfile: str,
    links: dict[str, str] | None = None,
    failed: dict[str, Any] | None = None,
    limit: int = LIMIT,
    screened: list[str] | None = None,
) -> str:
    """The pull request body for ``moves`` (the pins that moved: :func:`mcplock.render.update.moves_of`)
    and ``diffs`` (their servers compared with the updated lock: the staged items in ``pending``);
    ``screened``: the lines that say what was screened (:func:`mcplock.render.screening.markdown`)."""
    by_name = {d.name: d for d in diffs}
    tops = {m["server"]: _top(by_name.get(m["server"])) for m in moves}
    moves = sorted(moves, key=lambda m: (rank(tops[m["server"]]), m["server"]))
    head = _head(moves, tops, links or {}, lockfile, failed or {}) + (screened or [])
    servers = [m["server"] for m in moves]
    return fit(head, _sections(servers, by_name), _review_tail(servers, diffs, branch), limit)


def _head(
    moves: list[dict[str, Any]],
    tops: dict[str, str | None],
    links: dict[str, str],
    lockfile: str,
    failed: dict[str, Any],
) -> list[str]:
    """The body's head: the heading, a row per moved pin, what the update leaves for a person, the
    servers not updated."""
    head = [
        _heading(moves),
        "",
        "| server | package | from | to | changed | new | removed | top severity |",
        "|---|---|---|---|---|---|---|---|",
    ]
    head += [_move_row(m, tops[m["server"]], links) for m in moves]
    head += _staged_note(sum(len(m["changed"]) + len(m["new"]) + len(m["removed"]) for m in moves), lockfile)
    for name, err in failed.items():
        head += ["", f"- :warning: {md_code(name)} was not updated: {md_text(err.message)}"]
    return head


_FENCE = re.compile(r"^(`{3,})")


def _closers(lines: list[str]) -> list[str]:
    """The lines that close what ``lines`` leave open: a code fence, then each ``<details>``."""
    fence: str | None = None
    details = 0
    for line in lines:
        if fence is not None:  # inside a code block only its closing fence counts
            fence = None if line.strip() == fence else fence
            continue
        m = _FENCE.match(line)
        if m:
            fence = m[1]
        else:
            details += _details_step(line)
    return ([fence] if fence else []) + ["", "</details>"] * max(0, details)


def _details_step(line: str) -> int:
    """How a line outside code moves the count of open ``<details>``: +1 opens one, -1 closes one."""
    if line.startswith("<details>"):
        return 1
    return -1 if line.strip() == "</details>" else 0


def _first_lines(lines: list[str], room: int) -> list[str]:
    """The whole lines of ``lines`` that fit in ``room`` characters (each with its newline)."""
    kept: list[str] = []
    used = 0
    for line in lines:
        if used + len(line) + 1 > room:
            break
        kept.append(line)
        used += len(line) + 1
    return kept


def fit(head: list[str], sections: list[str], tail: list[str], limit: int = LIMIT) -> str:
    """``head``, ``sections`` and ``tail`` as one body of at most ``limit`` characters: when too
    long, ``sections`` is cut at a line, an open code fence and ``<details>`` closed, and a note
    says so; ``head`` and ``tail`` are always whole."""
    whole = "\n".join([*head, *sections, *tail]) + "\n"
    if len(whole) <= limit:
        return whole
    fixed = len("\n".join([*head, *tail]) + "\n") + len(CUT_NOTE) + 200  # the closers and the note's lines
    kept = _first_lines(sections, max(0, limit - fixed))
    out = "\n".join([*head, *kept, *_closers(kept), "", CUT_NOTE, *tail]) + "\n"
    return out[:limit] if len(out) > limit else out


# what the drift pull request (mcplock.render.drift_pr) shares with an update's
top_severity = _top
sections = _sections
review_tail = _review_tail
