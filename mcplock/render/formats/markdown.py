"""``--format markdown`` of ``diff`` and ``check``: for ``$GITHUB_STEP_SUMMARY`` and PR
comments. Untrusted text is inert Markdown (:func:`md_text`) or a code span (:func:`md_code`)."""

from __future__ import annotations

import html
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from mcplock.model.severity import rank
from mcplock.render.formats.common import (
    KIND_TITLE,
    attr,
    changes_count,
    finding_severity,
    ident,
    lint_rule,
    plain,
    shown_status,
    summary_counts,
    target,
)
from mcplock.text.untrusted import shell_word

if TYPE_CHECKING:  # pragma: no cover
    from mcplock.core.check import Finding
    from mcplock.errors import ProbeError
    from mcplock.lint.compare import Change, Cloaked, PendingItem, ServerDiff
    from mcplock.lock.model import Lock

# Backslash-escape the ASCII punctuation that Markdown (GFM) or GitHub gives a meaning inside a
# line: emphasis, code, links and images, HTML and entities (`&#x202e;` would smuggle a bidi
# control back in), table cells, headings, autolinks (`https\://`), strikethrough, math (`$`).
_MD_SPECIAL = set("\\`*_{}[]<>#!|~&:$")
_MENTION = re.compile(r"@(?=[A-Za-z0-9_])")


def md_text(s: object) -> str:
    """Untrusted text as inert Markdown on one line (fit for a table cell)."""
    out: list[str] = []
    for ch in plain(s):
        out.append("\\" + ch if ch in _MD_SPECIAL else ch)
    # `@user` / `@org/team` pings people in a PR comment; an `@` in a code span does not.
    return _MENTION.sub("`@`", "".join(out))


def longest_backticks(text: str) -> int:
    """The longest run of backticks in ``text`` (a code span's or block's fence must be longer)."""
    return max((len(m) for m in re.findall(r"`+", text)), default=0)


def md_code(s: object, *, table: bool = False) -> str:
    """Untrusted text as a Markdown code span on one line (in a table cell: pipes escaped,
    which GFM undoes inside the span)."""
    text = plain(s)
    if table:
        text = text.replace("|", "\\|")
    fence = "`" * (longest_backticks(text) + 1)
    if text.startswith(("`", " ")) or text.endswith(("`", " ")) or not text:
        text = f" {text} "
    return f"{fence}{text}{fence}"


def _md_fields(fields: list[str]) -> str:
    return ", ".join(md_text(f) for f in fields)


def _md_kind(kind: str) -> str:
    return KIND_TITLE.get(kind, md_text(kind))


def _md_finding(f: Any, indent: str) -> str:
    """One security finding: its severity and rule, where, its message and excerpt."""
    line = f"{indent}- **{md_text(finding_severity(f))}** {md_code(lint_rule(f))}"
    where = attr(f, "where")
    if where:
        line += f" in {md_code(where)}"
    line += f": {md_text(attr(f, 'message', str(f)))}"
    excerpt = attr(f, "excerpt")
    if excerpt:
        line += f" — {md_code(excerpt)}"
    return line


def _finding_order(f: Any) -> tuple[int, str]:
    """Top severity first, then by rule."""
    return (rank(str(attr(f, "severity") or "")), lint_rule(f))


def _md_findings(findings: Iterable[Any], indent: str) -> list[str]:
    return [_md_finding(f, indent) for f in sorted(findings, key=_finding_order)]


_DIFF_LIMIT = 4000  # characters of one text's word diff (a PR comment holds 65536 in all)


def _text_changes(c: Any) -> list[tuple[str, str]]:
    """(field, plain word diff) of each text ``c`` changes or adds: ``[-old-]`` / ``{+new+}``,
    hidden characters made visible."""
    from mcplock.render.documents import plain_diff

    if c.change == "removed":
        return []
    old, new = c.locked, c.live
    if isinstance(new, str):
        return [(c.kind, plain_diff(old if isinstance(old, str) else "", new))]
    if not isinstance(new, dict):
        return []
    return _field_texts(_diffed_fields(c, new), old if isinstance(old, dict) else {}, new)


def _diffed_fields(c: Any, new: dict[str, Any]) -> list[str]:
    """The fields whose text a change shows: those it changed, or each field of a new item but its key."""
    from mcplock.model.snapshot import KEY_FIELD

    if c.change == "changed":
        return list(c.fields)
    return [f for f in sorted(new) if f != KEY_FIELD.get(c.kind)]


def _field_texts(fields: list[str], old: dict[str, Any], new: dict[str, Any]) -> list[tuple[str, str]]:
    """(field, plain word diff) of each of ``fields`` whose text changed (or was added)."""
    from mcplock.render.documents import plain_diff

    out = []
    for f in fields:
        was, now = old.get(f, ""), new.get(f)
        if isinstance(now, str) and isinstance(was, str) and now != was:
            out.append((f, plain_diff(was, now)))
    return out


def _md_details(server: str, c: Any) -> list[str]:
    """The word diff of each changed text, collapsed in ``<details>``: the text in a fenced code
    block (inert: no links, mentions or HTML), names HTML-escaped in ``<code>``."""
    out: list[str] = []
    where = f"{_md_kind(c.kind)} <code>{html.escape(plain(target(server, c.kind, c.name)))}</code>"
    for f, diff in _text_changes(c):
        if len(diff) > _DIFF_LIMIT:
            diff = diff[:_DIFF_LIMIT] + f"\n… ({len(diff) - _DIFF_LIMIT} more characters: `mcplock show` has it all)"
        fence = "`" * max(3, 1 + longest_backticks(diff))
        out += [
            "",
            f"<details><summary><code>{html.escape(plain(f))}</code> of {where} ({c.change}): "
            "word diff, [-removed-] {+added+}</summary>",
            "",
            f"{fence}text",
            diff,
            fence,
            "",
            "</details>",
        ]
    return out


def _md_error(error: ProbeError) -> list[str]:
    """An unreachable server's error quoted: one quoted line per line of the message (a server's
    stderr tail) with hard line breaks, then the hint."""
    first, *more = error.message.splitlines() or [""]
    quote = [f"**{md_text(error.kind)}**: {md_text(first)}", *(md_text(m) for m in more)]
    out = ["", *(f"> {q}\\" for q in quote[:-1]), f"> {quote[-1]}"]
    if error.hint:
        out += [">", f"> hint: {md_text(error.hint)}"]
    return out


def _md_change_row(c: Change) -> str:
    """A change's row of the table: severity, change, kind, name, the fields it changed, why."""
    fields = _md_fields(c.fields) if c.change == "changed" else ""
    return (
        f"| **{c.severity}** | {c.change} | {md_text(c.kind)} | {md_code(c.name, table=True)} "
        f"| {fields} | {md_text(getattr(c, 'reason', ''))} |"
    )


def _md_changes_findings(changes: list[Change]) -> list[str]:
    """The security findings on the changes' new text, change by change (nothing when there are none)."""
    with_findings = [c for c in changes if c.findings]
    if not with_findings:
        return []
    out = ["", "Security findings on the new text:", ""]
    for c in with_findings:
        out.append(f"- {_md_kind(c.kind)} {md_code(c.name)} ({c.change})")
        out += _md_findings(c.findings, "  ")
    return out


def _md_changes(server: str, changes: list[Change]) -> list[str]:
    """The table of changes, the security findings on their new text, their word diffs."""
    out = ["", "| severity | change | kind | name | fields | why |", "|---|---|---|---|---|---|"]
    out += [_md_change_row(c) for c in changes]
    out += _md_changes_findings(changes)
    for c in changes:
        out += _md_details(server, c)
    return out


def _md_cloaked(cloaked: list[Cloaked]) -> list[str]:
    out = ["", "Cloaking probe (`--cloak`): what a well-known host saw that the first answer did not:", ""]
    for k in cloaked:
        out.append(f"- **{k.severity}** {md_text(k.kind)} {md_code(k.name)}: {md_text(k.message)}")
    return out


def _md_pending_item(server: str, p: PendingItem) -> list[str]:
    """A staged item: its change and target, its severity and why (as text and JSON say), its findings."""
    sev = ""
    if p.detail is not None:
        sev = f" (**{p.detail.severity}**)" + (f" — {md_text(p.detail.reason)}" if p.detail.reason else "")
    out = [f"- {md_text(p.change)} {_md_kind(p.kind)} {md_code(target(server, p.kind, p.name))}{sev}"]
    if p.detail is not None:
        out += _md_findings(p.detail.findings, "  ")
    return out


def _md_pending(server: str, pending: list[PendingItem]) -> list[str]:
    """The items pending review, then the word diffs of those that have one."""
    typed = md_text(shell_word(server))
    out = ["", f"Pending review (staged in the lock; review with `mcplock accept {typed}`):", ""]
    for p in pending:
        out += _md_pending_item(server, p)
    for p in pending:
        if p.detail is not None:
            out += _md_details(server, p.detail)
    return out


def _md_head(d: ServerDiff, heading: str) -> str:
    """A server's heading: its name and status (with drift, how many changes)."""
    head = f"{heading} {md_code(d.name)}: {shown_status(d)}"
    return head + f" ({changes_count(d)})" if d.status == "drift" else head


def server_markdown(d: ServerDiff, *, heading: str = "###") -> list[str]:
    """One server's section of the report (its lines, each starting a new line): the error of
    an unreachable server, the table of changes with their findings and word diffs, the items
    pending review with theirs, an identity change. `update-pr` builds its bodies from these."""
    out = ["", _md_head(d, heading)]
    if d.error is not None:
        out += _md_error(d.error)
    if d.changes:
        out += _md_changes(d.name, d.changes)
    if d.cloaked:
        out += _md_cloaked(d.cloaked)
    if d.pending:
        out += _md_pending(d.name, d.pending)
    if d.identity is not None:
        out += ["", _md_identity(d.identity)]
    return out


def _md_identity(identity: dict[str, Any]) -> str:
    """The server's identity, locked → live: reported apart, not drift."""
    return (
        f"Server identity {md_code(ident(identity['locked']))} → "
        f"{md_code(ident(identity['live']))} (reported apart, not drift)"
    )


_VERDICT = {0: ("✅", "clean"), 1: ("❌", "changes need review"), 3: ("⚠️", "servers could not be probed")}


def _md_next(n: dict[str, int]) -> list[str]:
    """What to run next: drift is staged by `refresh`, what is staged awaits `accept`/`reject`."""
    if n["drift"]:
        return [
            "",
            "Next: `mcplock refresh` stages the drift for review, `mcplock show SERVER/TOOL` shows it, "
            "`mcplock accept` / `mcplock reject` decides.",
        ]
    if n["pending"]:
        return [
            "",
            "Next: `mcplock accept` reviews what is staged (a walk on a terminal), "
            "`mcplock reject SERVER/TOOL` refuses an item.",
        ]
    return []


def _in_sync(d: ServerDiff) -> bool:
    """A server with nothing to report: no drift, nothing pending, no identity change, no cloaking."""
    return d.status == "ok" and not d.pending and d.identity is None and not d.cloaked


def diff_markdown(diffs: list[ServerDiff], lockfile: str, exit_code: int) -> str:
    n = summary_counts(diffs)
    icon, verdict = _VERDICT.get(exit_code, ("❌", "failed"))
    out = [f"## {icon} mcplock diff: {verdict} (exit {exit_code})", ""]
    out.append(
        f"Lock file {md_code(lockfile)} · {n['servers']} server(s) · {n['drift']} with drift · "
        f"{n['unreachable']} unreachable · {n['pending']} pending review"
    )
    quiet = [d for d in diffs if _in_sync(d)]
    if quiet:
        out += ["", "In sync: " + ", ".join(md_code(d.name) for d in quiet)]
    for d in diffs:
        if d not in quiet:
            out += server_markdown(d)
    return "\n".join(out + _md_next(n)) + "\n"


def _md_warnings(warnings: list[Finding]) -> list[str]:
    if not warnings:
        return []
    out = ["", f"### ⚠️ {len(warnings)} warning(s) (they do not fail the gate)", ""]
    for w in warnings:
        item = f" {md_code(target(w.server, w.kind, w.name or ''))}" if w.kind else f" {md_code(w.server)}"
        out.append(f"- **{md_text(w.code)}**{item}: {md_text(w.message)}. Fix: {md_text(w.hint)}")
    return out


def check_markdown(
    findings: list[Finding], lock: Lock, lockfile: str, exit_code: int, *, warnings: list[Finding] | None = None
) -> str:
    """Problems in a table, then ``warnings`` (they never fail the gate) in a list."""
    tools = sum(len(s.tools) for s in lock.servers.values())
    if not findings:
        out = [
            f"## ✅ mcplock check: clean (exit {exit_code})",
            "",
            f"Lock file {md_code(lockfile)} · {len(lock.servers)} server(s) · {tools} tool(s): "
            "every hash matches, nothing pending, in sync with the host configs.",
        ]
        return "\n".join(out + _md_warnings(warnings or [])) + "\n"
    out = [
        f"## ❌ mcplock check: {len(findings)} problem(s) (exit {exit_code})",
        "",
        f"Lock file {md_code(lockfile)} · {len(lock.servers)} server(s) · {tools} tool(s)",
        "",
        "| problem | server | item | message | fix |",
        "|---|---|---|---|---|",
    ]
    out += [_md_problem_row(f) for f in findings]
    return "\n".join(out + _md_warnings(warnings or [])) + "\n"


def _md_problem_row(f: Finding) -> str:
    """A problem's row of the table: its code, server, item, message and fix."""
    item = md_code(target(f.server, f.kind, f.name or ""), table=True) if f.kind else ""
    return (
        f"| {md_text(f.code)} | {md_code(f.server, table=True)} | {item} | {md_text(f.message)} | {md_text(f.hint)} |"
    )
