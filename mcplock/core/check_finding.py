"""A finding of ``mcplock check`` (the offline gate): what it is about, what is wrong, what to run."""

from __future__ import annotations

from dataclasses import dataclass

from mcplock.lock.model import Entry


@dataclass(frozen=True)
class Finding:
    # "hash-mismatch" | "unknown-value" | "pending" | "config-changed" | "config-missing" | "source-missing"
    # | "not-locked" | "config-error" | "pin-no-integrity" | "pin-not-exact"
    # | "policy/RULE" (the organisation's policy)
    code: str
    server: str
    message: str
    hint: str
    kind: str | None = None  # "tool" | "prompt" | … when it is about one item
    name: str | None = None
    table: tuple[str, ...] = ()  # the lock table it is about (for line numbers)

    def as_json(self) -> dict[str, object]:
        return {
            "code": self.code,
            "server": self.server,
            "kind": self.kind,
            "name": self.name,
            "message": self.message,
            "hint": self.hint,
        }


def item_table(server: str, e: Entry) -> tuple[str, ...]:
    if e.kind == "instructions":
        return ("server", server)
    return ("server", server, e.kind, e.key)
