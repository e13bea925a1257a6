"""A locked server's items as the lock writes them (:class:`Items`): instructions, each tool,
prompt, resource template, resource, App document, skill and content with its accepted
definition and hash, a pending proposal, a rejected hash and the person's flags (``enabled``,
``approval``: an unknown approval read as "always" and noted for ``check``)."""

from __future__ import annotations

from typing import Any

from mcplock.lock import codec
from mcplock.lock.model import APPROVALS, CHANGES, Entry, Pending, ServerEntry
from mcplock.lock.tables import Tables

ITEM_KEYS = {"enabled", "approval", "hash", "rejected-hash", "pending", *codec.DEFINITION_KEYS}


PENDING_KEYS = {"change", "hash", "enabled-before", "approval", *codec.DEFINITION_KEYS}


class Items(Tables):
    """The item tables of a server (the server's own keys are :class:`mcplock.lock.read.Reader`'s)."""

    def items(self, srv: ServerEntry, kind: str, st: dict[str, Any], table: tuple[str, ...]) -> None:
        """The server's items of one kind (its sub-table ``kind``), into ``srv``."""
        kt = self.get(st, table, kind, dict, {})
        for key, it in kt.items():
            srv.items[kind][key] = self.item((*table, kind, key), kind, key, it)

    def instructions(self, table: tuple[str, ...], st: dict[str, Any]) -> Entry | None:
        text = self.get(st, table, "instructions", str)
        h = self.hash_value(st, table, "instructions-hash")
        rejected = self.hash_value(st, table, "instructions-rejected-hash")
        pt = self.get(st, table, "instructions-pending", dict)
        if text is None and h is None and rejected is None and pt is None:
            return None
        if (text is None) != (h is None):
            raise self.fail(table, f"`instructions` and `instructions-hash` go together in {self._where(table)}")
        entry = Entry(
            kind="instructions", key="instructions", definition=text, hash=h, rejected_hash=rejected, enabled=True
        )
        if pt is not None:
            entry.pending = self.instructions_pending((*table, "instructions-pending"), pt)
        return entry

    def instructions_pending(self, ptable: tuple[str, ...], pt: dict[str, Any]) -> Pending:
        """`instructions-pending`: the change, and the text and its hash (none for a removal)."""
        self.check_keys(pt, ptable, {"change", "hash", "text"})
        change = self.change(pt, ptable)
        ptext = self.get(pt, ptable, "text", str)
        ph = self.hash_value(pt, ptable, "hash")
        if change != "removed" and (ptext is None or ph is None):
            raise self.fail(ptable, f"a pending {change} needs `text` and `hash` in {self._where(ptable)}")
        return Pending(change=change, definition=ptext, hash=ph)

    def item(self, table: tuple[str, ...], kind: str, key: str, it: Any) -> Entry:
        if not isinstance(it, dict):
            raise self.fail(table[:-1], f"{self._where(table)} must be a table")
        self.check_keys(it, table, ITEM_KEYS)
        is_tool = kind == "tool"
        enabled = self.get(it, table, "enabled", bool)
        approval = self.get(it, table, "approval", str)
        if is_tool and enabled is None:
            raise self.fail(table, f"missing `enabled` in {self._where(table)}")
        h = self.hash_value(it, table, "hash")
        entry = Entry(
            kind=kind,
            key=key,
            enabled=bool(enabled) if is_tool else True,
            approval=self.approval(it, table, approval) or "always",  # missing means "ask" (the safe approval)
            hash=h,
            rejected_hash=self.hash_value(it, table, "rejected-hash"),
        )
        entry.definition = self.accepted(table, kind, key, it, h)
        pt = self.get(it, table, "pending", dict)
        if pt is not None:
            entry.pending = self.pending((*table, "pending"), kind, key, pt)
        if _tracks_nothing(entry):
            raise self.fail(
                table, f"{self._where(table)} has neither an accepted definition (`hash`) nor a pending proposal"
            )
        return entry

    def accepted(
        self, table: tuple[str, ...], kind: str, key: str, it: dict[str, Any], h: str | None
    ) -> dict[str, Any] | None:
        """An item's accepted definition: stored with its `hash` ``h``, never without."""
        if h is not None:
            return self.definition(table, kind, key, it)
        if codec.has_definition(it):
            raise self.fail(table, f"{self._where(table)} holds a definition but no `hash`")
        return None

    def change(self, pt: dict[str, Any], ptable: tuple[str, ...]) -> str:
        """A pending proposal's `change`: new, changed or removed."""
        change = self.get(pt, ptable, "change", str)
        if change not in CHANGES:
            raise self.fail(ptable, f"`change` in {self._where(ptable)} must be one of {', '.join(CHANGES)}")
        return str(change)

    def pending(self, ptable: tuple[str, ...], kind: str, key: str, pt: dict[str, Any]) -> Pending:
        """An item's `pending` table: the change, its hash and definition (none for a removal),
        the `enabled` a quarantine took away, a person's approval."""
        self.check_keys(pt, ptable, PENDING_KEYS)
        change = self.change(pt, ptable)
        ph = self.hash_value(pt, ptable, "hash")
        pend = Pending(change=change, hash=ph, enabled_before=self.get(pt, ptable, "enabled-before", bool))
        pend.approval = self.approval(pt, ptable, self.get(pt, ptable, "approval", str))
        if change != "removed":
            if ph is None:
                raise self.fail(ptable, f"a pending {change} needs `hash` in {self._where(ptable)}")
            pend.definition = self.definition(ptable, kind, key, pt)
        return pend

    def approval(self, t: dict[str, Any], table: tuple[str, ...], value: str | None) -> str | None:
        """An `approval`: an empty or unknown value is read as "always" (ask), and noted for `check`."""
        if value is None or value in APPROVALS:
            return value
        self.notes.append(
            (
                table,
                f"`approval = {codec.toml_basic(value)}` in {self._where(table)} is not "
                '`always` or `never`: read as "always" (ask before each call)',
            )
        )
        return "always"

    def definition(self, table: tuple[str, ...], kind: str, key: str, t: dict[str, Any]) -> dict[str, Any]:
        try:
            return codec.decode_definition(kind, key, t)
        except codec.DecodeError as e:
            raise self.fail(table, f"{e} in {self._where(table)}") from None


def _tracks_nothing(entry: Entry) -> bool:
    """An item with no accepted definition, no proposal and no rejected one: nothing to pin."""
    return entry.hash is None and entry.pending is None and entry.rejected_hash is None
