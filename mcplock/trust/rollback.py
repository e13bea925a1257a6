"""Rollback protection for the lock's signature (docs/signing.md, "Rollback").

The attack: a pusher without the key restores an earlier ``mcp.lock`` together with the earlier
``mcp.lock.sig`` that signed it (a server the reviewers later removed, a tool they later
disabled). The old signature is valid — it is over exactly that lock — so a check of the
signature alone passes.

The answer: every signature mcplock makes carries ``sequence``, an integer inside the signed
payload, one more than the highest sequence of any ``mcp.lock.sig`` this repository's history
holds (and the one on disk). Verification (``check``, ``diff``, the guard, every launch under
``[signing] require``) refuses a signature whose sequence is lower than the highest one in the
recent history of ``mcp.lock.sig`` (the last :data:`DEPTH` commits that changed it, read with one
``git log -p``): a restored signature is older than one the history already saw. Restoring an
earlier lock on purpose is fine: a key holder signs it again, with a new sequence.

What it does not answer: a repository without git history (a shallow clone of depth 1, an
exported tarball) shows no earlier signature, so nothing is compared — fetch the history
(``fetch-depth: 0``); a key holder can always sign an old lock again (a signature is approval);
and an attacker who can rewrite the branch's history itself (force-push) removes the evidence —
branch protection answers that, not a file in the branch.
"""

from __future__ import annotations

import os
import re
import subprocess

SEQUENCE = "sequence"  # the envelope member (an integer ≥ 1; absent in older signatures: 0)
DEPTH = 100  # how many changes of mcp.lock.sig back the history is read
_SEQ = re.compile(r'^[-+ ]\s*"sequence"\s*:\s*(\d{1,18})\s*,?\s*$')


def of(env: dict[str, object]) -> int:
    """The sequence an envelope carries (0 for none)."""
    value = env.get(SEQUENCE)
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def history(sig_path: str) -> int | None:
    """The highest sequence among the versions of ``sig_path`` in its recent git history; None
    when there is no history to read (not a git work tree, git missing, nothing committed)."""
    directory = os.path.dirname(os.path.abspath(sig_path))
    try:
        proc = subprocess.run(
            [
                "git",
                "log",
                f"-n{DEPTH}",
                "-p",
                "--no-color",
                "--no-ext-diff",
                "--format=%H",
                "--",
                os.path.basename(sig_path),
            ],
            cwd=directory,
            capture_output=True,
            text=True,
            timeout=30,
            env={**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_TERMINAL_PROMPT": "0"},
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if proc.returncode != 0 or not proc.stdout:
        return None
    found = [int(m.group(1)) for line in proc.stdout.splitlines() if (m := _SEQ.match(line))]
    return max(found) if found else 0


def next_sequence(sig_path: str, on_disk: dict[str, object] | None) -> int:
    """The sequence a new signature gets: one more than the highest the history and the file hold."""
    return max(history(sig_path) or 0, of(on_disk) if on_disk is not None else 0) + 1


def rolled_back(sig_path: str, env: dict[str, object]) -> tuple[int, int] | None:
    """(this signature's sequence, the highest in the history) when the history holds a newer
    signature than this one: the lock and its signature were restored from an earlier state."""
    seen = history(sig_path)
    mine = of(env)
    return (mine, seen) if seen is not None and seen > mine else None


def refuse_rolled_back(lockfile: str, where: str, env: dict[str, object]) -> None:
    """A signature older than one the repository's history holds is refused (trust/rollback.py)."""
    from mcplock.trust.signing_keys import SignatureError

    back = rolled_back(where, env)
    if back is not None:
        mine, seen = back
        raise SignatureError(
            f"{where} is an earlier signature (sequence {mine}) than one this repository's history holds "
            f"(sequence {seen}): {lockfile} and its signature were restored from an earlier state (a rollback)",
            hint="review the lock (`git log -p mcp.lock`, `mcplock list`); if going back is intended, sign it "
            "again: `mcplock sign --key KEY`",
        )
