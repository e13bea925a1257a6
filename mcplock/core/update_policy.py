"""The policy's keys about updates (docs/updates.md, docs/policy.md), read from every file of the
policy in effect (as :mod:`mcplock.publish.publishers` reads ``[publishers]``):

- ``updates.min-age = DAYS`` (default 7): a release younger than this is not proposed yet;
  several files: the largest holds (each file's rule holds). ``--min-age DAYS`` on the command line
  wins over the policy, as a person running it chose.
- ``ci.proposed-drift = "warn"`` (default ``"fail"``): `diff` lets drift pass (exit 0, a warning)
  when an open update-pr pull request already proposes exactly it; any file saying ``"fail"`` wins.
"""

from __future__ import annotations

import tomllib
from typing import Any

from mcplock.errors import ConfigError

DEFAULT_MIN_AGE = 7.0


def _tables(org: Any) -> list[tuple[str, dict[str, Any]]]:
    from mcplock.model.files import SMALL_MAX, read_bounded

    out: list[tuple[str, dict[str, Any]]] = []
    for part in org.parts if org is not None else ():
        try:
            out.append((part.path, tomllib.loads(read_bounded(part.path, SMALL_MAX).decode("utf-8"))))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
            raise ConfigError(f"policy {part.path}: cannot be read again: {e}", code="policy") from None
    return out


def min_age(org: Any, flag: float | None) -> float:
    """The minimum release age in days: ``--min-age``, else the policy's largest, else 7."""
    if flag is not None:
        if flag < 0:
            raise ConfigError("--min-age must be a number of days, 0 or more", code="usage")
        return flag
    found: list[float] = []
    for path, data in _tables(org):
        value = (data.get("updates") or {}).get("min-age")
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ConfigError(
                f"policy {path}: `updates.min-age` must be a whole number of days, 0 or more",
                code="policy",
                hint="e.g. `[updates]` `min-age = 7`",
            )
        found.append(float(value))
    return max(found) if found else DEFAULT_MIN_AGE


def proposed_drift(org: Any) -> str:
    """``"warn"`` when the policy lets drift an open pull request proposes pass `diff`; else ``"fail"``."""
    said: list[str] = []
    for path, data in _tables(org):
        value = (data.get("ci") or {}).get("proposed-drift")
        if value is None:
            continue
        if value not in ("fail", "warn"):
            raise ConfigError(
                f'policy {path}: `ci.proposed-drift` must be "fail" or "warn", not {value!r}', code="policy"
            )
        said.append(value)
    return "warn" if said and all(v == "warn" for v in said) else "fail"
