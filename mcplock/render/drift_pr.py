"""The pull request for drift without a version (docs/updates.md, "Drift without a version"): a
remote server, or one whose launch names no version, that serves something else than the lock
accepted. Title, body (the Markdown report, as an update's) and commit message."""

from __future__ import annotations

from typing import Any

from mcplock.render.formats.markdown import md_code
from mcplock.render.update_pr import LIMIT, fit, review_tail, sections, top_severity


def title(server: str) -> str:
    return f"mcplock: {server} changed upstream (no version to move)"


def commit_message(server: str, trailer: str, digest: str) -> str:
    return (
        f"mcplock: refresh {server} (drift without a version)\n\n"
        f"What {server} serves changed since the lock accepted it; the changes are staged pending review.\n\n"
        f"{trailer}: {server}@drift-{digest}\n"
    )


def body(server: str, move: dict[str, Any], diff: Any, *, branch: str, lockfile: str, limit: int = LIMIT) -> str:
    top = top_severity(diff)
    staged = len(move["changed"]) + len(move["new"]) + len(move["removed"])
    head = [
        f"## mcplock: {md_code(server)} changed upstream",
        "",
        f"{md_code(server)} has no version to move (a remote server, or a launch that names none), and what "
        f"it serves changed since the lock accepted it. This pull request holds {md_code(lockfile)} refreshed: "
        f"the {staged} change{'s' if staged != 1 else ''} staged as **pending review**, changed tools disabled "
        "until a person accepts them. Nothing was accepted on anyone's behalf; until then the guard keeps "
        "serving only what the lock accepted.",
        "",
        "| server | changed | new | removed | top severity |",
        "|---|---|---|---|---|",
        f"| {md_code(server, table=True)} | {len(move['changed'])} | {len(move['new'])} | {len(move['removed'])} "
        f"| {f'**{top}**' if top else 'none'} |",
    ]
    if move.get("no_word"):
        head += [
            "",
            "**This change touches no word**: every changed item holds the same words as before — only "
            "numbers, whitespace, punctuation or order differ. The review takes seconds.",
        ]
    return fit(head, sections([server], {server: diff}), review_tail([server], [diff], branch), limit)
