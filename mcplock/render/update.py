"""The report of `mcplock update`: pins moved and definition changes staged (text, JSON,
Markdown — the body of the pull request a scheduled update workflow opens)."""

from __future__ import annotations

import json
from typing import Any

from rich.text import Text

from mcplock.text.untrusted import safe_text, sanitize


def _staged_items(res: Any) -> dict[str, list[str]]:
    """What the update staged for review (``res``: a :class:`~mcplock.lock.review.StageResult`, or None)."""
    return {
        "new": list(res.new) if res else [],
        "changed": list(res.changed) if res else [],
        "removed": list(res.removed) if res else [],
    }


def _version_to(r: Any) -> Any:
    """The version a moved pin moves to: a server from the MCP Registry moves from one entry
    version to another (`from` is the entry's too), any other to its package's new version."""
    return r.new_ref.version if r.new_ref is not None else r.new_pin.version


def _status(r: Any, moved: bool, failed: dict[str, Any]) -> Any:
    if moved:
        return "moved"
    return "failed" if r.server in failed else r.status


def _move(r: Any, staged: dict[str, Any], failed: dict[str, Any]) -> dict[str, Any]:
    """One server's row of the report: its pin from and to, its status, what the move staged, its error."""
    moved = r.new_pin is not None and r.server in staged
    return {
        "server": r.server,
        "registry": r.registry,
        "package": r.package,
        "from": r.current,
        "to": _version_to(r) if moved else None,
        "status": _status(r, moved, failed),
        "integrity": r.new_pin.stored().get("integrity") if moved else None,
        **_staged_items(staged.get(r.server)),
        "error": failed[r.server].as_json() if r.server in failed else None,
    }


def moves_of(rows: list[Any], staged: dict[str, Any], failed: dict[str, Any]) -> list[dict[str, Any]]:
    """Each server that runs a registry package (not a local one), as :func:`_move` reports it."""
    return [_move(r, staged, failed) for r in rows if r.status != "local"]


def _move_line(m: dict[str, Any]) -> Text:
    """One server: its pin moved (and what that staged), up to date, or why not."""
    line = Text().append_text(safe_text(m["server"], keep_newlines=False)).append(": ")
    if m["status"] == "up-to-date":
        return line.append_text(safe_text(f"{m['package']} {m['from']}", keep_newlines=False)).append(
            " up to date", style="green"
        )
    if m["status"] != "moved":
        return line.append(m["status"], style="red")
    what = (
        f"{m['package']} {m['to']} pinned afresh"
        if m["from"] == m["to"]
        else f"{m['package']} {m['from'] or 'unpinned'} → {m['to']}"
    )
    return line.append_text(safe_text(what, keep_newlines=False)).append(*_staged_note(m))


def _staged_note(m: dict[str, Any]) -> tuple[str, str]:
    """What a moved pin staged for review, and its style; or that its definitions did not change."""
    if not len(m["new"]) + len(m["changed"]) + len(m["removed"]):
        return " (definitions unchanged)", "green"
    return (
        f" ({len(m['new'])} new, {len(m['changed'])} changed, {len(m['removed'])} removed — pending review)",
        "yellow",
    )


def render_update(
    rows: list[Any], staged: dict[str, Any], failed: dict[str, Any], fmt: str, *, lockfile: str, exit_code: int
) -> Any:
    moves = moves_of(rows, staged, failed)
    if fmt == "json":
        return (
            json.dumps(
                {"version": 1, "command": "update", "lockfile": lockfile, "exit_code": exit_code, "servers": moves},
                indent=2,
                ensure_ascii=False,
            )
            + "\n"
        )
    if fmt == "markdown":
        return _markdown(moves)
    out = Text()
    for m in moves:
        out.append_text(_move_line(m)).append("\n")
    out.rstrip()
    return out if moves else Text("no server runs a registry package (nothing to update)")


def _cell(v: Any) -> str:
    return sanitize(str(v)).replace("|", "\\|").replace("`", "'")


def _md_moved(moved: list[dict[str, Any]]) -> list[str]:
    """The pins that moved in a table, then each staged item to review."""
    lines = ["| server | package | from | to | new | changed | removed |", "|---|---|---|---|---|---|---|"]
    for m in moved:
        lines.append(
            f"| `{_cell(m['server'])}` | `{_cell(m['package'])}` | {_cell(m['from'] or 'unpinned')} | "
            f"{_cell(m['to'])} | {len(m['new'])} | {len(m['changed'])} | {len(m['removed'])} |"
        )
    lines += [
        "",
        "Changed tools are disabled until a person accepts them. Review each change with "
        "`mcplock diff` or `mcplock show SERVER/TOOL`, then `mcplock accept` or `mcplock reject`:",
        "",
    ]
    for m in moved:
        lines += _md_staged(m)
    return lines


def _md_staged(m: dict[str, Any]) -> list[str]:
    """Each item a moved pin staged for review: the changed ones, the new, the removed."""
    return [f"- {what}: `{_cell(target)}`" for what in ("changed", "new", "removed") for target in m[what]]


def _md_outcome(moves: list[dict[str, Any]]) -> list[str]:
    """The pins that moved and what to review, or why none did."""
    moved = [m for m in moves if m["status"] == "moved"]
    if moved:
        return _md_moved(moved)
    if not moves:
        return ["No server of this lock runs a registry package: nothing to update."]
    return ["Every pinned server is up to date." if not any(m["error"] for m in moves) else "No pin moved."]


def _markdown(moves: list[dict[str, Any]]) -> str:
    lines = ["## mcplock update", "", *_md_outcome(moves)]
    lines += [
        f"- :warning: `{_cell(m['server'])}` not updated: {_cell(m['error']['message'])}" for m in moves if m["error"]
    ]
    return "\n".join(lines) + "\n"
