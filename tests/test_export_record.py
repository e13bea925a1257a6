"""The export record's three-way merge (:func:`mcplock.core.export_record.merge`), as data: what
the merge driver and a record with conflict markers rely on (docs/export.md). The real merges
through git are in tests/test_merge_driver.py."""

from __future__ import annotations

from mcplock.core.export_record import FileState, Record, merge
from mcplock.hosts.export.interface import Item

F = ".cursor/mcp.json"
DENY_A = Item("member", ("deny",), "srv:a")
DENY_B = Item("member", ("deny",), "srv:b")


def _rec(guarded: dict[str, str] | None, *, items: set[Item] | None = None, policy: str | None = None) -> Record:
    files = {} if guarded is None else {F: FileState("cursor", items or set(), {("deny",)}, dict(guarded))}
    return Record(files, ["cursor"] if files else [], policy)


def test_the_rules_and_containers_of_both_sides_are_claimed() -> None:
    base = _rec({})
    got = merge(base, _rec({}, items={DENY_A}), _rec({}, items={DENY_B}))
    assert got.files[F].items == {DENY_A, DENY_B}
    assert got.files[F].created == {("deny",)}
    assert got.files[F].host == "cursor" and got.hosts == ["cursor"]


def test_a_file_only_theirs_holds_keeps_its_host() -> None:
    theirs = Record({"opencode.json": FileState("opencode", {DENY_A})}, ["opencode"])
    got = merge(None, _rec(None), theirs)
    assert got.files["opencode.json"].host == "opencode" and got.hosts == ["opencode"]


def test_an_original_entry_comes_from_the_side_that_changed_it() -> None:
    base = _rec({"s": "orig", "t": "orig"})
    ours = _rec({"s": "ours", "t": "orig"})
    theirs = _rec({"s": "orig", "t": "theirs"})
    assert merge(base, ours, theirs).files[F].guarded == {"s": "ours", "t": "theirs"}


def test_an_original_entry_one_side_dropped_is_dropped_unless_the_other_changed_it() -> None:
    base = _rec({"s": "orig", "t": "orig"})
    ours = _rec({"s": "orig", "t": "changed"})  # ours kept s as it was, changed t
    theirs = _rec({})  # theirs dropped both (`--no-guard`)
    assert merge(base, ours, theirs).files[F].guarded == {"t": "changed"}
    assert merge(base, theirs, ours).files[F].guarded == {"t": "changed"}


def test_an_original_entry_one_side_added_is_kept() -> None:
    base = _rec({})
    assert merge(base, _rec({"s": "new"}), _rec({})).files[F].guarded == {"s": "new"}
    assert merge(base, _rec({}), _rec({"s": "new"})).files[F].guarded == {"s": "new"}


def test_a_side_without_the_file_drops_nothing() -> None:
    """Only a side that still holds the file can have dropped an entry from it."""
    base = _rec({"s": "orig"})
    assert merge(base, _rec({"s": "orig"}), _rec(None)).files[F].guarded == {"s": "orig"}
    assert merge(base, _rec(None), _rec({"s": "orig"})).files[F].guarded == {"s": "orig"}


def test_the_policy_comes_from_the_side_that_changed_it() -> None:
    base = _rec({}, policy="p.toml")
    assert merge(base, _rec({}, policy="p.toml"), _rec({}, policy="q.toml")).policy == "q.toml"
    assert merge(base, _rec({}, policy="o.toml"), _rec({}, policy="p.toml")).policy == "o.toml"
    assert merge(None, _rec({}), _rec({}, policy="q.toml")).policy == "q.toml"
