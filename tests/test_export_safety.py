"""What a host's rules must never say (:func:`mcplock.hosts.export.safety.host_decisions`), as
data: pattern names get no rule, tools one id apart get the strictest decision of their group.
The same through `mcplock export` into real host files: tests/test_failsafe_round3.py."""

from __future__ import annotations

from typing import Any

from mcplock.hosts.export import EXPORTERS
from mcplock.hosts.export.interface import ALLOW, ASK, DENY, Decisions, Exporter, Item
from mcplock.hosts.export.safety import host_decisions


class _Ends(Exporter):
    """A host that knows each tool by two ids: its name's first letter, and its last."""

    host = "ends"
    files = ("ends.json",)

    def rules(self, decisions: Decisions) -> list[Item]:
        return []

    def contradictions(self, data: dict[str, Any], decisions: Decisions) -> list[str]:
        return []

    def tool_ids(self, server: str, tool: str) -> tuple[str, ...]:
        return (f"{server}:{tool[0]}", f"{server}:{tool[-1]}")


def test_pattern_names_get_no_rule_and_a_note() -> None:
    out, notes = host_decisions(EXPORTERS["cursor"], {"s*": {"t": ALLOW}, "srv": {"a?": ALLOW, "b": ASK}})
    assert out == {"srv": {"b": ASK}}
    assert len(notes) == 2
    assert notes[0].startswith("server `s*`: its name reads as a pattern in cursor's rules")
    assert notes[1].startswith("`srv/a?`: a tool name cursor would read as a pattern")


def test_tools_one_id_apart_get_the_strictest_decision() -> None:
    out, notes = host_decisions(EXPORTERS["opencode"], {"srv": {"a_b": ALLOW, "a~b": DENY, "c": ALLOW}})
    assert out == {"srv": {"a_b": DENY, "a~b": DENY, "c": ALLOW}}
    assert notes == [
        "`srv/a_b`, `srv/a~b` are one tool id in opencode (srv_a_b): mcplock writes the strictest "
        "decision, 'deny', for all of them (rename a tool upstream to tell them apart)"
    ]


def test_a_tool_that_meets_two_groups_joins_them() -> None:
    """`ab` and `cd` share no id: two groups; `db` (taken last) meets both, which become one."""
    out, notes = host_decisions(_Ends(), {"s": {"ab": ALLOW, "cd": DENY, "db": ASK, "xy": ALLOW}})
    assert out == {"s": {"ab": DENY, "cd": DENY, "db": DENY, "xy": ALLOW}}
    assert notes == [
        "`s/ab`, `s/cd`, `s/db` are one tool id in ends (s:a): mcplock writes the strictest decision, "
        "'deny', for all of them (rename a tool upstream to tell them apart)"
    ]


def test_a_group_that_already_agrees_is_named_without_the_rename_hint() -> None:
    out, notes = host_decisions(_Ends(), {"s": {"ab": DENY, "xb": DENY}})
    assert out == {"s": {"ab": DENY, "xb": DENY}}
    assert notes == [
        "`s/ab`, `s/xb` are one tool id in ends (s:a): mcplock writes the strictest decision, 'deny', for all of them"
    ]
