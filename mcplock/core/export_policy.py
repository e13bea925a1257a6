"""Which organisation policy file an export records and names (``mcplock export --policy``): a
path kept relative to the project when inside it, resolved again to open it, and named in every
hint that tells a person to export again."""

from __future__ import annotations

import os


def recorded_policy(lock_path: str, policy: str | None) -> str | None:
    """``policy`` (a path as recorded: relative to the project, or absolute) as a path to open."""
    if policy is None:
        return None
    base = os.path.dirname(os.path.abspath(lock_path))
    return policy if os.path.isabs(policy) else os.path.normpath(os.path.join(base, policy))


def policy_to_record(lock_path: str, policy: str | None) -> str | None:
    """A ``--policy`` path as the record keeps it: relative to the project when inside it
    (a teammate's clone finds it there), else absolute."""
    if policy is None:
        return None
    base = os.path.realpath(os.path.dirname(os.path.abspath(lock_path)))
    full = os.path.realpath(policy)
    return os.path.relpath(full, base) if (full + os.sep).startswith(base + os.sep) else full


def policy_hint(policy: str | None) -> str:
    """`` --policy P`` for a command a hint names, when a policy file is in effect by flag or record."""
    if not policy:
        return ""
    from mcplock.text.untrusted import shell_word

    return f" --policy {shell_word(policy)}"


def policy_in_step(lock_path: str, recorded: str | None, policy: str | None) -> str | None:
    """The policy an export kept in step records: the command's own ``--policy`` (as the record
    keeps a path), else the one the export recorded."""
    return recorded if policy is None else policy_to_record(lock_path, policy)
