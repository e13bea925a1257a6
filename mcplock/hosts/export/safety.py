"""What a host's rules must never say, whatever the lock holds (docs/export.md, "Names").

- **A name a host reads as a pattern** (``*``, ``?``: the wildcards of Cursor's, Claude
  Code's and opencode's rules; parentheses, which close Cursor's ``Mcp(S:T)`` and make Gemini's
  ``includeTools`` entry ``a(b`` name the tool ``a`` too): a tool named ``*`` accepted with ``approval = "never"`` would
  become Cursor's ``mcpAllowlist: ["srv:*"]`` or ``Mcp(srv:*)``, and the editor would run every
  tool of the server. Such a tool (or server) gets no rule at all: the host treats it as a tool
  the lock does not know (denied where the export denies by default, asked elsewhere), and the
  export says so. The lint flags the name (``pattern-name``).
- **Two tools that are one id in a host** (opencode and Claude Code turn ``[^A-Za-z0-9_-]`` into
  ``_``, so ``a_b`` and ``a~b`` are both ``srv_a_b``; Cursor's ``S:T`` joins ``a:b``/``c`` and
  ``a``/``b:c``): the strictest decision of the group is written for all of them — deny wins —
  and the export names the collision. Without this the allow of one and the deny of the other
  fought over one key, the last write won, and ``check`` and ``export`` disagreed for ever.
"""

from __future__ import annotations

from mcplock.hosts.export.interface import STRICTNESS, Decisions, Exporter
from mcplock.lint.names import PATTERN
from mcplock.text.untrusted import sanitize as shown


def host_decisions(exp: Exporter, decisions: Decisions) -> tuple[Decisions, list[str]]:
    """``decisions`` as ``exp`` may be told them, and a note for each thing changed."""
    notes: list[str] = []
    out = _without_patterns(exp, decisions, notes)
    # tools whose host ids meet are one tool to the host: the strictest decision for all of them
    for members in _one_id_groups(exp, out):
        if len(members) >= 2:
            notes.append(_strictest_for_all(exp, out, members))
    return out, notes


def _strictest_for_all(exp: Exporter, out: Decisions, members: list[tuple[str, str]]) -> str:
    """The group's strictest decision written in ``out`` for each of its tools; the note that says so."""
    strict = max((out[s][t] for s, t in members), key=STRICTNESS.__getitem__)
    loosened = [(s, t) for s, t in members if out[s][t] != strict]
    for s, t in members:
        out[s][t] = strict
    return _one_id_note(exp, members, strict, changed=bool(loosened))


def _one_id_note(exp: Exporter, members: list[tuple[str, str]], strict: str, changed: bool) -> str:
    """What the export says of tools that are one id in the host; when the strictest decision
    changed the lock's decision of some of them, how to tell them apart."""
    names = ", ".join(f"`{shown(s, 80)}/{shown(t, 80)}`" for s, t in members)
    return (
        f"{names} are one tool id in {exp.host} ({shown(exp.tool_ids(*members[0])[0], 120)}): "
        f"mcplock writes the strictest decision, {strict!r}, for all of them"
        + (" (rename a tool upstream to tell them apart)" if changed else "")
    )


def _without_patterns(exp: Exporter, decisions: Decisions, notes: list[str]) -> Decisions:
    """``decisions`` without the servers and tools whose names ``exp`` reads as a pattern, a note
    in ``notes`` for each."""
    out: Decisions = {}
    for s in sorted(decisions):
        if PATTERN.search(s):
            notes.append(
                f"server `{shown(s, 80)}`: its name reads as a pattern in {exp.host}'s rules, so mcplock "
                "writes none for it (rename it in the lock and the host config)"
            )
            continue
        out[s] = _without_pattern_tools(exp, s, decisions[s], notes)
    return out


def _without_pattern_tools(exp: Exporter, s: str, tools: dict[str, str], notes: list[str]) -> dict[str, str]:
    """One server's tool decisions without the tools whose names ``exp`` reads as a pattern, a
    note in ``notes`` for each."""
    kept = {}
    for t, d in sorted(tools.items()):
        if PATTERN.search(t):
            notes.append(
                f"`{shown(s, 80)}/{shown(t, 80)}`: a tool name {exp.host} would read as a pattern "
                "(it would name every tool of the server) gets no rule; the host treats it as a tool "
                "the lock does not know"
            )
        else:
            kept[t] = d
    return kept


def _one_id_groups(exp: Exporter, decisions: Decisions) -> list[list[tuple[str, str]]]:
    """The (server, tool) pairs grouped by the host ids they share: two tools are in one group
    when any of their ids meet (directly or through a third). Emptied groups stay, in order."""
    group_of: dict[str, int] = {}  # host id -> its group
    groups: list[list[tuple[str, str]]] = []
    for s in sorted(decisions):
        for t in sorted(decisions[s]):
            ids = exp.tool_ids(s, t)
            g = _group_joined(ids, group_of, groups)
            groups[g].append((s, t))
            for i in ids:
                group_of[i] = g
    return groups


def _group_joined(ids: tuple[str, ...], group_of: dict[str, int], groups: list[list[tuple[str, str]]]) -> int:
    """The group a tool with these host ids joins: the first its ids meet, the others it meets
    merged into it (emptied); a new group when it meets none."""
    met = sorted({group_of[i] for i in ids if i in group_of})
    if not met:
        groups.append([])
        return len(groups) - 1
    _merge_into(met[0], met[1:], group_of, groups)
    return met[0]


def _merge_into(g: int, others: list[int], group_of: dict[str, int], groups: list[list[tuple[str, str]]]) -> None:
    """Groups a tool joins that were apart become one: the ``others`` moved into group ``g``
    (and emptied), their ids now ``g``'s."""
    for other in others:
        groups[g] += groups[other]
        for i, gi in list(group_of.items()):
            if gi == other:
                group_of[i] = g
        groups[other] = []
