"""The lock as raw text: read it (UTF-8), find git conflict markers, parse the TOML with
errors that name a line (each table header's line: :mod:`mcplock.lock.headers`).

Conflict markers are looked for on the raw lines before parsing, because inside a multi-line
string they would still parse; tomllib's "at end of document" becomes the last line.
"""

from __future__ import annotations

import os
import re
import tomllib
from typing import Any

from mcplock.errors import LockfileError
from mcplock.text.untrusted import shell_word

_CONFLICT = re.compile(r"^(<{7}|={7}|>{7})(?:[ \t].*)?$")
# the line breaks ``str.splitlines`` knows: a marker after one of them starts a line
_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
_TOML_POS = re.compile(r"\(at line (\d+), column (\d+)\)")


def read_text(path: str | os.PathLike[str]) -> str:
    """The lock's text: a missing, unreadable or non-UTF-8 file is a :class:`LockfileError`."""
    from mcplock.model.files import DOCUMENT_MAX, read_bounded

    p = os.fspath(path)
    try:
        raw = read_bounded(p, DOCUMENT_MAX)
    except FileNotFoundError:
        raise LockfileError(
            "no lock file here", path=p, hint="create one with `mcplock add NAME …` or `mcplock init`", code="missing"
        ) from None
    except OSError as e:
        raise LockfileError(
            f"cannot read: {e.strerror}", path=p, hint="restore it from git (`git checkout -- mcp.lock`)"
        ) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw[: e.start].count(b"\n") + 1
        raise LockfileError("not UTF-8 text", path=p, line=line, hint="restore the file from git") from None
    if text.startswith("\ufeff"):
        # an editor's doing, never mcplock's: the lock is generated, so refuse rather than guess
        raise LockfileError(
            "starts with a UTF-8 byte-order mark (BOM, the bytes EF BB BF): an editor added it",
            path=p,
            line=1,
            hint=f"remove it: save the file as UTF-8 without BOM, or run `sed -i '1s/^\\xEF\\xBB\\xBF//' {p}`",
            code="bom",
        )
    return text


def _syntax_error(e: tomllib.TOMLDecodeError, text: str, path: str) -> LockfileError:
    """tomllib's error with its line (the end of a truncated file's), and what to do: restore
    the file, or delete a key or table that a bad merge wrote twice."""
    msg, at = _located(str(e), text)
    # restoring the committed lock is the whole repair: its hashes are the reviewed ones, so no
    # refresh (which would probe and stage what the servers say now) is needed; `check` confirms
    hint = f"restore the file from git (`git checkout -- {path}`), then run `mcplock check`"
    if "overwrite" in msg or "twice" in msg:
        hint = "a key or table appears twice (a bad merge?): delete the duplicate, then run `mcplock check`"
    return LockfileError(f"not valid TOML: {msg}", path=path, line=at, hint=hint, code="syntax")


def _located(msg: str, text: str) -> tuple[str, int | None]:
    """tomllib's message without its position, and the line it names ("end of document": the
    last line, and the message says the file looks truncated)."""
    m = _TOML_POS.search(msg)
    if m:
        return _TOML_POS.sub("", msg).strip(), int(m.group(1))
    if "end of document" in msg:
        at = text.count("\n") + (0 if text.endswith("\n") else 1)
        return msg.replace("(at end of document)", "").strip() + " at the end of the file: it looks truncated", at
    return msg, None


def parse_toml(text: str, path: str) -> dict[str, Any]:
    """The TOML document of the lock, or a :class:`LockfileError` with the line: conflict
    markers, syntax errors, duplicate keys, a truncated file."""
    marker = _conflict_line(text)
    if marker is not None:
        merged_conflicts(text, path)
        raise LockfileError(
            "git conflict markers: the lock was merged with conflicts",
            path=path,
            line=marker,
            hint="take one side (`git checkout --theirs mcp.lock` or `--ours`), then run "
            "`mcplock refresh` to re-probe and `mcplock diff` to review; `mcplock merge-driver install` lets "
            "the next merge keep both sides",
            code="conflict",
        )
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise _syntax_error(e, text, path) from None
    except UnicodeDecodeError as e:  # pragma: no cover - loads takes str
        raise LockfileError(f"not UTF-8: {e}", path=path) from None


def _conflict_line(text: str) -> int | None:
    """The 1-based line of the first git conflict marker (None: there is none)."""
    if not _may_hold_marker(text):
        return None
    for i, line in enumerate(text.splitlines(), 1):
        if line.startswith(("<<<<<<<", "=======", ">>>>>>>")) and _CONFLICT.match(line):
            return i
    return None


def _may_hold_marker(text: str) -> bool:
    """Whether a conflict marker may start a line of ``text``: found by ``str.find`` (2,000 tools:
    well under a millisecond, where walking the lines costs ~16 ms on every `check`)."""
    for marker in ("<<<<<<<", "=======", ">>>>>>>"):
        i = text.find(marker)
        while i != -1:
            if i == 0 or text[i - 1] in _BREAKS:
                return True
            i = text.find(marker, i + 1)
    return False


def merged_conflicts(text: str, path: str) -> None:
    """The entries mcplock's merge driver left in conflict, as an error that names each one and
    the command that resolves it (nothing when the markers are not the driver's)."""
    from mcplock.lock.conflict import describe, regions

    found = regions(text)
    if not found:
        return
    lines = "".join(f"\n  {r.target}: {describe(r.units)} (line {r.line})" for r in found)
    first = found[0].target
    raise LockfileError(
        f"the merge left {len(found)} conflicted entr{'y' if len(found) == 1 else 'ies'}, where two branches "
        f"disagree; each region holds both sides:{lines}",
        path=path,
        line=found[0].line,
        hint=f"take a side per entry: `mcplock resolve {shell_word(first)} --ours` (or `--theirs`; `--all` for "
        "every one), "
        "then `mcplock check`; accept or reject what is pending with `mcplock accept`/`mcplock reject`",
        code="merge-conflict",
    )
