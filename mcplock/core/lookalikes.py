"""`check`'s look-alike warnings, offline: what `add` and `init` name before anything is
installed (``lookalike-package``, :func:`mcplock.lint.packages.lookalike`), said again for a
lock that already holds it — a server added before the warning existed, or a hand edit, or a
pull request that changed a command's package — and server names that read as another
server's of the lock (:func:`mcplock.lint.names.confusable_names`: ``confusable-name``,
``name-collision``). Warnings, like ``critical-accepted``: said every time, they do not fail the
gate (a well-known package's look-alike may be the one a person meant; docs/pins.md,
"Look-alike package names").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mcplock.core.check import Finding
from mcplock.lock.model import Lock, ServerEntry
from mcplock.text.untrusted import shell_word

if TYPE_CHECKING:
    from mcplock.lint.finding import LintFinding


def lookalike_warnings(lock: Lock) -> list[Finding]:
    return _lookalike_packages(lock) + _confusable_server_names(lock)


def _lookalike_packages(lock: Lock) -> list[Finding]:
    """A server whose package is named like a well-known one it is not."""
    out: list[Finding] = []
    for sname in sorted(lock.servers):
        found = _lookalike(lock.servers[sname])
        if found is not None:
            out.append(
                Finding(
                    found.rule,
                    sname,
                    found.message,
                    f"check who publishes it; if it is not the package you meant, `mcplock remove {shell_word(sname)}`",
                    table=("server", sname),
                )
            )
    return out


def _lookalike(srv: ServerEntry) -> LintFinding | None:
    """The look-alike finding of a stdio server's package (its pin's, else its command's)."""
    from mcplock.lint.packages import lookalike, named_package

    if srv.spec.remote:
        return None
    pin = srv.spec.package
    named = (pin.registry, pin.name) if pin is not None else named_package(srv.spec.command, list(srv.spec.args))
    if named is None:
        return None
    registry = srv.spec.registry
    return lookalike(*named, registry.name if registry is not None else None)


def _confusable_server_names(lock: Lock) -> list[Finding]:
    """Server names that read as another server's of the lock."""
    from mcplock.lint.names import confusable_names

    out: list[Finding] = []
    names = confusable_names({"": dict.fromkeys(lock.servers)})  # server names, as tool names of one server
    for (_, sname), similar in sorted(names.items()):
        for f in similar:
            message = (
                f.message.replace("tool name", "server name", 1)
                .replace(" of the same server", " of this lock")
                .replace(" looks like /", " looks like ")
                .replace(", /", ", ")
            )  # servers of no server
            out.append(
                Finding(
                    f.rule,
                    sname,
                    message,
                    f"rename one of them in the lock (`mcplock remove {shell_word(sname)}`, then add it "
                    "again under a name that reads apart)",
                    table=("server", sname),
                )
            )
    return out
