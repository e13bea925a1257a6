"""The client capabilities a probe declares: those of the host it stands for.

A server may show some tools only to clients that declare ``sampling``, ``roots`` or
``elicitation`` (server-everything does), so a probe that declares none pins less than a real
host sees. By default the probe declares what the common hosts (Claude Code, Cursor, VS Code)
declare: roots, sampling and elicitation; ``--client-capabilities`` changes it, and the lock
records it per server (``client-capabilities``) so ``diff`` and ``refresh`` present the same
client. During a probe, the server's requests are answered harmlessly: no roots, sampling
refused, elicitation declined (:func:`mcplock.probe.transport.answer_server_request`).

Pure, no imports beyond the errors: offline commands read it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from mcplock.errors import UsageError

KNOWN = ("roots", "sampling", "elicitation")
DEFAULT = KNOWN
HELP = "roots,sampling,elicitation, or none (default: as locked)."


def parse(text: str | None) -> tuple[str, ...] | None:
    """``--client-capabilities``: None (not given), ``none`` → (), else the names, checked."""
    if text is None:
        return None
    text = text.strip()
    if text.lower() == "none":
        return ()
    return _known(n.strip() for n in text.split(","))


def _known(words: Iterable[str]) -> tuple[str, ...]:
    """The capabilities named (empty words skipped) in one order, so the lock does not churn;
    a UsageError for an unknown one, or for none named at all."""
    names = [n for n in words if n]
    unknown = [n for n in names if n not in KNOWN]
    if unknown or not names:
        raise UsageError(
            f"--client-capabilities: unknown capability {', '.join(unknown) or '(empty)'}",
            hint=f"name some of {', '.join(KNOWN)} (comma-separated), or `none`",
        )
    return tuple(n for n in KNOWN if n in names)


def declare(names: Iterable[str]) -> dict[str, Any]:
    """The ``capabilities`` object of ``initialize`` for these names, with the extensions the
    hosts declare: MCP Apps (``io.modelcontextprotocol/ui`` with its MIME type), so a server shows
    the App tools and ``ui://`` documents a real host sees (:mod:`mcplock.model.documents`)."""
    from mcplock.model.documents import CLIENT_EXTENSIONS

    return {**{n: {} for n in names}, "extensions": {k: dict(v) for k, v in CLIENT_EXTENSIONS.items()}}


def names(capabilities: dict[str, Any]) -> list[str]:
    """The capability names a probe declared (what the lock records), extensions aside."""
    return [n for n in capabilities if n != "extensions"]


def chosen(run: tuple[str, ...] | None, stored: Iterable[str] | None) -> tuple[str, ...]:
    """What a probe declares: the run's choice, else the server's stored one, else the default."""
    if run is not None:
        return run
    if stored is not None:
        return tuple(stored)
    return DEFAULT
