"""Lint family: tool names that look like another tool's (Unicode TR39 confusables), or like a
pattern in a host's permission rules (``pattern-name``).

``reаd_file`` with a Cyrillic ``а`` beside ``read_file``, within one server or across the
servers of a lock: the model (and a reviewer) reads two names as one, so the call can go to
the impostor (``confusable-name``, critical). Two names of one server that read the same once
normalised (``echo`` and ``echo ``, NFC and NFD) collide (``name-collision``, critical; high
when they differ in case only). A
mixed-script name with a look-alike letter but no tool it imitates is a risk signal only
(``mixed-script-name``, high). An ordinary name in another script (``прочитать_файл``,
``検索``) confuses nothing and says nothing.

The confusables data is the Unicode consortium's, through the maintained
``confusable-homoglyphs`` package. It is imported only when a name is not ASCII (loading it
costs tens of milliseconds; ``list`` stays fast on the usual all-ASCII names).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from typing import Any

from mcplock.lint.finding import LintFinding
from mcplock.model.severity import CRITICAL, HIGH

_PREFERRED = ["latin", "common"]


def _norm(name: str) -> str:
    t = unicodedata.normalize("NFKC", name).casefold()
    return re.sub(r"[\s_\-.]+", "", t)


@functools.lru_cache(maxsize=4096)
def reading(name: str) -> str | None:
    """How ``name`` reads in plain Latin: each non-ASCII character replaced by an ASCII look-alike
    (TR39 confusables), normalised like a tool name (NFKC, case and separators folded). ``None``
    when some character has no ASCII look-alike: the name then imitates no ASCII name."""
    folded = unicodedata.normalize("NFKC", name)
    if folded.isascii():
        return _norm(folded)
    out = []
    for ch in folded:
        glyph = _ascii_look_alike(ch)
        if glyph is None:
            return None
        out.append(glyph)
    return _norm("".join(out))


def _ascii_look_alike(ch: str) -> str | None:
    """The ASCII character ``ch`` reads as: itself, or the least ASCII letter or digit among its
    TR39 homoglyphs; None when it has none."""
    if ch.isascii():
        return ch
    from mcplock.text.skeleton import skeleton  # the one reading policy patterns use too

    read = skeleton(ch)
    if read.isascii() and read.isalnum():
        return read
    glyphs = _ascii_glyphs(ch)
    return min(glyphs) if glyphs else None


def _ascii_glyphs(ch: str) -> list[str]:
    from confusable_homoglyphs import confusables

    found = confusables.is_confusable(ch, greedy=True, preferred_aliases=_PREFERRED) or []
    return [g["c"] for f in found for g in f["homoglyphs"] if g["c"].isascii() and g["c"].isalnum()]


def _mixed(name: str) -> bool:
    from confusable_homoglyphs import confusables

    return bool(confusables.is_dangerous(name, preferred_aliases=_PREFERRED))


#: characters hosts' permission rules read as syntax: `*` and `?` are wildcards (Cursor,
#: Claude Code, opencode); parentheses close Cursor's `Mcp(S:T)`, and Gemini CLI's `includeTools`
#: entry `T(…)` names the tool `T` (its isEnabled matches `tool.startsWith(name + "(")`)
PATTERN = re.compile(r"[*?()]")


def pattern_name(definition: Any) -> list[LintFinding]:
    """``pattern-name`` (high): a tool name with a character hosts' permission rules read as a
    pattern (``*``, ``?``, parentheses). ``Mcp(srv:*)`` or ``srv:*`` in a host's allowlist names every tool
    of the server: ``mcplock export`` writes no rule for such a tool
    (:mod:`mcplock.hosts.export.safety`), and a reviewer should know why."""
    name = definition.get("name") if isinstance(definition, dict) else None
    if not isinstance(name, str) or not PATTERN.search(name):
        return []
    return [
        LintFinding(
            "pattern-name",
            HIGH,
            f"tool name `{_escaped(name)}` holds a character hosts' permission rules read as a pattern "
            "(`Mcp(srv:*)` runs every tool of the server); mcplock exports no rule for it",
            "name",
        )
    ]


def _escaped(name: str) -> str:
    """``name`` with its non-ASCII characters shown as ``\\uXXXX`` (what tells the two apart)."""
    return "".join(c if c.isascii() else f"\\u{ord(c):04x}" for c in name)


def folded(name: str) -> str:
    """A name as a reader takes it: NFKC, surrounding whitespace stripped, case folded."""
    return unicodedata.normalize("NFKC", name).strip().casefold()


def _unseen(name: str) -> str:
    return unicodedata.normalize("NFKC", name).strip()


def colliding_names(tools_by_server: dict[str, Any], what: str = "tool") -> dict[tuple[str, str], list[LintFinding]]:
    """``name-collision``, keyed by (server, name): two tools (``what``: prompts, resources) of one
    server whose names differ
    but read the same once :func:`folded` — critical when only what a reader cannot see tells
    them apart (``echo`` and ``echo ``, ``café`` in NFC and in NFD, ``ｅｃｈｏ``), high when case
    does (``Echo``). Output shows them apart (:func:`mcplock.text.untrusted.name_text`);
    a model, a host's permission rule or a reviewer typing the name may not."""
    out: dict[tuple[str, str], list[LintFinding]] = {}
    for server, tools in tools_by_server.items():
        for group in _same_folded(tools):
            for tool in group:
                out[(server, tool)] = [_collision(what, tool, [t for t in sorted(group) if t != tool])]
    return out


def _same_folded(tools: Any) -> list[list[str]]:
    """The groups of two names or more among ``tools`` that read the same once :func:`folded`."""
    groups: dict[str, list[str]] = {}
    for tool in tools:
        groups.setdefault(folded(tool), []).append(tool)
    return [g for g in groups.values() if len(g) > 1]


def _collision(what: str, tool: str, others: list[str]) -> LintFinding:
    """``tool``'s ``name-collision`` with ``others``: told apart only by what a reader cannot see
    (whitespace, NFC, width) is critical, as confusable-name; by case alone high, as
    tool-shadowing's case rule."""
    from mcplock.text.untrusted import name_text

    unseen = any(_unseen(tool) == _unseen(t) for t in others)
    return LintFinding(
        "name-collision",
        CRITICAL if unseen else HIGH,
        f"{what} name `{name_text(tool)}` reads as {', '.join(f'`{name_text(t)}`' for t in others)} of "
        "the same server once normalised (NFKC, surrounding whitespace, case): the model or a reviewer "
        "may take one for the other",
        "name",
    )


def confusable_names(tools_by_server: dict[str, Any]) -> dict[tuple[str, str], list[LintFinding]]:
    """``confusable-name`` / ``mixed-script-name`` findings keyed by (server, tool), and the
    :func:`colliding_names` of each server.

    Only a name that is not ASCII is flagged confusable (it is the look-alike); two different
    names whose Latin readings agree are confusable, whether on one server or on two."""
    out = colliding_names(tools_by_server)
    odd = _unflagged_non_ascii(tools_by_server, out)
    if not odd:
        return out
    by_reading = _by_reading(tools_by_server)
    for server, tool in odd:
        found = _look_alike(tool, by_reading)
        if found is not None:
            out[(server, tool)] = [found]
    return out


def _unflagged_non_ascii(
    tools_by_server: dict[str, Any], flagged: dict[tuple[str, str], list[LintFinding]]
) -> list[tuple[str, str]]:
    """(server, tool) of each name that is not ASCII and not ``flagged`` already (a collision)."""
    return [(s, t) for s, tools in tools_by_server.items() for t in tools if not t.isascii() and (s, t) not in flagged]


def _by_reading(tools_by_server: dict[str, Any]) -> dict[str, list[tuple[str, str]]]:
    """Latin reading -> the (server, tool) of the names that read so (names without one aside)."""
    by_reading: dict[str, list[tuple[str, str]]] = {}
    for server, tools in tools_by_server.items():
        for tool in tools:
            r = reading(tool)
            if r:
                by_reading.setdefault(r, []).append((server, tool))
    return by_reading


def _look_alike(tool: str, by_reading: dict[str, list[tuple[str, str]]]) -> LintFinding | None:
    """A name that is not ASCII: ``confusable-name`` when another tool (``by_reading``: Latin
    reading -> (server, tool)) reads the same, else ``mixed-script-name`` when it mixes scripts."""
    r = reading(tool)
    found = _confusable(tool, r, by_reading)
    return found if found is not None else _mixed_script(tool, r)


def _confusable(tool: str, r: str | None, by_reading: dict[str, list[tuple[str, str]]]) -> LintFinding | None:
    others = sorted({f"{s}/{t}" for s, t in by_reading.get(r or "", []) if t != tool})
    if not others:
        return None
    return LintFinding(
        "confusable-name",
        CRITICAL,
        f"tool name `{_escaped(tool)}` looks like {', '.join(others)} (Unicode confusables): the model "
        "may call this tool when it means the other",
        "name",
    )


def _mixed_script(tool: str, r: str | None) -> LintFinding | None:
    if not _mixed(tool):
        return None
    reads_as = f" (reads as `{r}`)" if r else ""
    return LintFinding(
        "mixed-script-name",
        HIGH,
        f"tool name `{_escaped(tool)}` mixes scripts with look-alike letters{reads_as}",
        "name",
    )
