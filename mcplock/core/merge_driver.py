"""The git merge driver for the lock: run it on a merge, and resolve the conflicts it leaves
(docs/merging.md; installing it in a repository: :mod:`mcplock.core.merge_install`).

git runs ``DRIVER %O %A %B %P`` for a path whose ``merge`` attribute names it: the common
ancestor's version, ours (where the result goes), theirs, and the path. The driver merges the
three locks as data (:mod:`mcplock.lock.merge`) and writes the canonical lock into ``%A``; it
exits 0 when the merge is clean and 1 when it left conflicts, as git's merge-driver contract
asks. Versions it cannot read as locks (a hand-edited file, markers already in it) get git's
own line merge instead (``git merge-file``), so nothing of either side is ever dropped.
"""

from __future__ import annotations

import subprocess
from typing import TYPE_CHECKING

from mcplock.errors import LockfileError, McplockError, UsageError

if TYPE_CHECKING:
    from mcplock.lock.conflict import Region
    from mcplock.lock.model import Lock


def _read(path: str) -> str:
    from mcplock.model.files import DOCUMENT_MAX, read_bounded

    try:
        return read_bounded(path, DOCUMENT_MAX).decode("utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise LockfileError(f"cannot read this version of the lock: {e}", path=path) from None


def run_driver(base: str, ours: str, theirs: str, pathname: str | None = None) -> tuple[int, str]:
    """Merge the three files, the result into ``ours``. Returns (exit status, what happened)."""
    from mcplock.lock.conflict import render
    from mcplock.lock.merge import merge
    from mcplock.lock.store import write_atomic

    name = pathname or "mcp.lock"
    if name.endswith(".exports.json"):
        return _merge_record(base, ours, theirs, name)
    from mcplock.core.merge_exports import host_format

    fmt = host_format(name)
    if fmt is not None:
        return _merge_host_file(base, ours, theirs, name, fmt)
    try:
        base_lock, ours_lock, theirs_lock = _read_three(base, ours, theirs, name)
    except McplockError as e:
        return _line_merge(base, ours, theirs), f"merged line by line (git merge-file): {e.message}"
    merged = merge(base_lock, ours_lock, theirs_lock)
    write_atomic(ours, render(merged).encode("utf-8"))
    if merged.clean:
        return 0, "merged cleanly"
    from mcplock.lock.conflict import target_of

    names = ", ".join(target_of(c) for c in merged.conflicts)
    return 1, f"{len(merged.conflicts)} conflicted entr{'y' if len(merged.conflicts) == 1 else 'ies'}: {names}"


def _read_three(base: str, ours: str, theirs: str, name: str) -> tuple[Lock | None, Lock, Lock]:
    """The three versions read as locks (an empty base, a lock both sides added: None)."""
    from mcplock.lock.read import loads

    texts = [_read(p) for p in (base, ours, theirs)]
    base_lock = loads(texts[0], f"{name} (base)") if texts[0].strip() else None
    return base_lock, loads(texts[1], f"{name} (ours)"), loads(texts[2], f"{name} (theirs)")


def _merge_record(base: str, ours: str, theirs: str, name: str) -> tuple[int, str]:
    """The export record (``mcp.lock.exports.json``): always clean, as data
    (:func:`mcplock.core.export_record.merge`); ``mcplock check`` then tells whether the host
    files match the merged lock, and names the export that regenerates them."""
    from mcplock.core import export_record
    from mcplock.lock.store import write_atomic

    try:
        texts = [_read(p) for p in (base, ours, theirs)]
        base_rec = export_record.loads(texts[0], f"{name} (base)") if texts[0].strip() else None
        merged = export_record.merge(
            base_rec, export_record.loads(texts[1], f"{name} (ours)"), export_record.loads(texts[2], f"{name} (theirs)")
        )
    except McplockError as e:
        return _line_merge(base, ours, theirs), f"merged line by line (git merge-file): {e.message}"
    write_atomic(ours, export_record.dumps(merged).encode("utf-8"))
    return 0, "merged cleanly (`mcplock check` tells whether the host files match the merged lock)"


def _merge_host_file(base: str, ours: str, theirs: str, name: str, fmt: str) -> tuple[int, str]:
    """An exported host file (``.claude/settings.json``, ``opencode.json``, ``.codex/config.toml``,
    …): its settings merged as data (:mod:`mcplock.core.merge_exports`); two different changes to
    one value, or a version that does not read, get git's line merge."""
    from mcplock.core.merge_exports import Conflict, merge_texts
    from mcplock.lock.store import write_atomic

    try:
        texts = [_read(p) for p in (base, ours, theirs)]
        merged = merge_texts(texts[0], texts[1], texts[2], fmt, name)
    except (Conflict, McplockError, ValueError) as e:
        why = f"both branches changed `{e}`" if isinstance(e, Conflict) else getattr(e, "message", str(e))
        if _line_merge(base, ours, theirs) == 0:
            return 0, "merged line by line"
        return 1, f"{why}: left to git's line merge; resolve it, then `mcplock export` writes mcplock's rules again"
    write_atomic(ours, merged.encode("utf-8"))
    return 0, "merged as data (`mcplock check` tells whether it matches the merged lock)"


def _line_merge(base: str, ours: str, theirs: str) -> int:
    """git's own three-way line merge into ``ours``: 0 clean, 1 conflicts (never lost)."""
    try:
        proc = subprocess.run(
            ["git", "merge-file", "-L", "ours", "-L", "base", "-L", "theirs", ours, base, theirs],
            capture_output=True,
            check=False,
        )
    except FileNotFoundError:
        return 1
    return 0 if proc.returncode == 0 else 1


def resolve(lock_path: str, targets: list[str], side: str, *, every: bool = False) -> tuple[list[str], list[str]]:
    """Keep ``side`` ("ours" | "theirs") of the named conflicted entries (all of them with
    ``every``). Returns (the entries resolved, the entries still in conflict). When none is left
    the lock is read whole and written in its canonical form."""
    from mcplock.lock import conflict
    from mcplock.lock.store import exclusive, write_atomic
    from mcplock.lock.text import read_text

    with exclusive(lock_path):
        text = read_text(lock_path)
        found = _driver_regions(text, lock_path)
        names = [r.target for r in found]
        if not found:
            if targets:
                raise UsageError(
                    "the lock has no conflicted entries",
                    hint="`mcplock check` tells what else is off",
                    code="no-conflict",
                )
            return [], []
        chosen = names if every else _named_conflicts(names, targets)
        new, left = conflict.resolve(text, dict.fromkeys(chosen, side))
        write_atomic(lock_path, _checked(new, left, lock_path).encode("utf-8"))
        return chosen, [r.target for r in left]


def _driver_regions(text: str, lock_path: str) -> list[Region]:
    """The conflicted entries the merge driver marked in ``text``; markers it did not write
    (git's line-by-line merge) are refused."""
    from mcplock.lock import conflict

    found = conflict.regions(text)
    if found is None:
        raise LockfileError(
            "git conflict markers that mcplock did not write (a line-by-line merge)",
            path=lock_path,
            hint="install the merge driver (`mcplock merge-driver install`) and merge again, or take one "
            "side (`git checkout --theirs -- mcp.lock` or `--ours`) and `mcplock refresh`",
            code="conflict",
        )
    return found


def _checked(new: str, left: list[Region], lock_path: str) -> str:
    """The lock's text after a resolution: with no conflict ``left``, read whole as any lock and
    written canonically; else as it is, once what is left reads as a lock whichever side is taken."""
    from mcplock.lock import conflict
    from mcplock.lock.read import loads
    from mcplock.lock.write import dumps

    if not left:
        return dumps(loads(new, lock_path))
    trial, _ = conflict.resolve(new, {r.target: "ours" for r in left})
    loads(trial, lock_path)
    return new


def _named_conflicts(names: list[str], targets: list[str]) -> list[str]:
    """The conflicted entries ``targets`` names (each once), when every one of them is one."""
    if not targets:
        raise UsageError(
            "name the conflicted entries to resolve, or pass --all", hint=f"conflicted: {', '.join(names)}"
        )
    unknown = [t for t in targets if t not in names]
    if unknown:
        raise UsageError(
            f"not a conflicted entry: {', '.join(unknown)}",
            hint=f"conflicted: {', '.join(names)} (as `mcplock check` names them)",
        )
    return list(dict.fromkeys(targets))
