"""What a launcher's command line says, as values: a :class:`Launch` (the registry package it runs)
or a :class:`NoPin` (why it runs nothing mcplock can pin), and the option scanning every launcher's
parser shares (:mod:`mcplock.packages.launchers`, :mod:`mcplock.packages.oci`). No I/O."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Launch:
    launcher: str  # "npx" | "pnpm dlx" | "uvx" | "pipx run" | "docker run"
    registry: str  # "npm" | "pypi" | "oci"
    name: str  # package name; an OCI image repository as written (``mcp/time``, ``ghcr.io/o/r``)
    requested: str | None = None  # version, range or tag as written (None: the newest / `latest`)
    bin: str | None = None  # the executable of the package to run (None: its default one)
    args: tuple[str, ...] = ()  # the server's own arguments
    options: tuple[str, ...] = ()  # docker run options before the image, as written
    digest: str | None = None  # oci: a digest written on the command line (``sha256:…``)


@dataclass(frozen=True)
class NoPin:
    reason: str


LOCAL = NoPin("no registry pin (local command)")

# --- shared option scanning ------------------------------------------------------------------


def _scan(argv: Sequence[str], valued: frozenset[str]) -> tuple[list[tuple[str, str | None]], int]:
    """Options up to the first positional: ``[(option, value)]`` and the positional's index.
    ``--opt=value`` and ``-o value`` (for options in ``valued``) both read; ``--`` ends options."""
    opts: list[tuple[str, str | None]] = []
    i = 0
    while i < len(argv):
        if argv[i] == "--":
            return opts, i + 1
        if not _is_option(argv[i]):
            return opts, i
        option, words = _option_at(argv, i, valued)
        opts.append(option)
        i += words
    return opts, i


def _is_option(word: str) -> bool:
    """Whether a word is an option (``-`` alone names stdin: a positional)."""
    return word.startswith("-") and word != "-"


def _option_at(argv: Sequence[str], i: int, valued: frozenset[str]) -> tuple[tuple[str, str | None], int]:
    """The option at ``argv[i]`` as ``(option, value)``, and how many words it takes."""
    a = argv[i]
    if a.startswith("--") and "=" in a:
        k, _, v = a.partition("=")
        return (k, v), 1
    if a in valued:
        return (a, argv[i + 1] if i + 1 < len(argv) else None), 2
    if _value_attached(a, valued):  # -wevil: -w evil
        return (a[:2], a[2:]), 1
    return (a, None), 1


def _value_attached(a: str, valued: frozenset[str]) -> bool:
    """Whether a word is a short valued option with its value in the same word (``-wevil``)."""
    return not a.startswith("--") and len(a) > 2 and a[:2] in valued


def _values(opts: list[tuple[str, str | None]], *names: str) -> list[str | None]:
    return [v for k, v in opts if k in names]
