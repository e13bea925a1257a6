"""The one severity vocabulary: ``critical`` > ``high`` > ``medium`` > ``low`` > ``info``.

Severity triages risk, not the kind of change: a reviewer reads the top of the list first.
Lint findings, compared changes and every report use these names, this order and these
mappings (SARIF ``level``, GitHub code scanning's ``security-severity``, workflow-command
annotation level, terminal style). Severities stay plain strings, because they are part of
the JSON output; :data:`Severity` is their type where a value is known to be one of them
(:func:`is_severity` tells a string that is apart).

A leaf: stdlib only, imported by ``list`` (through the lint) and by the probe-free reports.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final, Literal, TypeGuard

Severity = Literal["critical", "high", "medium", "low", "info"]
CRITICAL: Final[Severity] = "critical"
HIGH: Final[Severity] = "high"
MEDIUM: Final[Severity] = "medium"
LOW: Final[Severity] = "low"
INFO: Final[Severity] = "info"
SEVERITIES: tuple[Severity, ...] = (CRITICAL, HIGH, MEDIUM, LOW, INFO)
_RANK: dict[str, int] = {s: i for i, s in enumerate(SEVERITIES)}

# SARIF `level`; a severity it does not know reads "warning"
SARIF_LEVEL: dict[str, str] = {CRITICAL: "error", HIGH: "error", MEDIUM: "warning", LOW: "note", INFO: "note"}
# workflow-command name per SARIF level
GITHUB_LEVEL = {"error": "error", "warning": "warning", "note": "notice"}
# GitHub code scanning's `security-severity` (a number as a string; >= 9 critical, >= 7 high …)
SECURITY_SEVERITY: dict[str, str] = {CRITICAL: "9.5", HIGH: "8.0", MEDIUM: "5.5", LOW: "3.0"}
# rich style of a severity in the terminal
STYLE: dict[str, str] = {CRITICAL: "bold white on red", HIGH: "bold red", MEDIUM: "yellow", LOW: "cyan", INFO: "dim"}


def rank(severity: str | None) -> int:
    """0 for critical … 4 for info; anything else ranks below info."""
    return _RANK.get(severity or "", len(SEVERITIES))


def is_severity(value: object) -> TypeGuard[Severity]:
    """Whether ``value`` is one of the severity names."""
    return value in _RANK


def worst(*severities: str) -> Severity:
    """The most severe of ``severities`` (unknown strings ignored); ``info`` when none is known."""
    known = [s for s in severities if is_severity(s)]
    return min(known, key=_RANK.__getitem__) if known else INFO


def worst_of(severities: Iterable[str]) -> str | None:
    """The most severe of an iterable, ``None`` when it is empty."""
    items = list(severities)
    return min(items, key=rank) if items else None


def at_least(severity: str | None, floor: str) -> bool:
    """Whether ``severity`` is ``floor`` or more severe (``at_least(s, HIGH)``: critical or high)."""
    return rank(severity) <= rank(floor)


def sarif_level(severity: str | None) -> str:
    return SARIF_LEVEL.get(severity or "", "warning")


def github_level(severity: str | None) -> str:
    """The workflow command (``error``, ``warning``, ``notice``) of a severity."""
    return GITHUB_LEVEL[sarif_level(severity)]


def style(severity: str | None) -> str:
    return STYLE.get(severity or "", "")
