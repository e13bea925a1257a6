"""Lint family across servers: the tools a model sees together.

A tool name another server also offers, or one that differs only in case or separators
(``tool-shadowing``, high); a name that only looks like another tool's (``confusable-name``,
critical: :mod:`mcplock.lint.names`); a definition that names another server's tool
(``cross-server-reference``): critical when its sentence claims or redirects that tool
("instead of", "replaces", "always call … first", "is deprecated"), the shape of a cross-server
hijack; high for a plain mention ("returns paths you can pass to `read_file`").
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterator
from typing import Any

from mcplock.lint.finding import LintFinding
from mcplock.lint.names import confusable_names
from mcplock.lint.text import SENTENCE, clean, root, strings, texts
from mcplock.model.severity import CRITICAL, HIGH, MEDIUM


def _norm_name(name: str) -> str:
    t = unicodedata.normalize("NFKC", name).casefold()
    return re.sub(r"[\s_\-.]+", "", t)


_CAMEL = re.compile(r"[a-z][A-Z]")


def _distinctive(name: str) -> bool:
    """Names specific enough that a mention is a reference, not an ordinary word."""
    return len(name) >= 6 and (("_" in name or "-" in name) or _CAMEL.search(name) is not None)


_TOKEN = re.compile(r"[\w.\-]+")
# claim or redirect language in the sentence naming another server's tool
_STEER = re.compile(
    r"\b(?:instead(?:\s+of)?|rather\s+than|replac(?:e|es|ed|ing|ement)|supersed(?:e|es|ed)|deprecated|obsolete"
    r"|override(?:s|n)?|overrid(?:e|ing)|redirect(?:s|ed)?|always|must\s+(?:use|call|invoke|run)|whenever|before"
    r"|after\s+(?:calling|using)"
    r"|(?:do\s+not|don'?t|never)\s+(?:use|call|invoke|run)|(?:is|are)\s+(?:now\s+)?(?:handled|served|provided)\s+by"
    r"|(?:is|are)\s+(?:an?\s+)?alias|same\s+as|official|trusted"
    r"|(?:then|afterwards|next|first|also|and)\s+(?:use|call|invoke|run|pass|send)"
    r"|(?:use|call|invoke|run)\s+(?:\S+\s+)?(?:first|afterwards|next))\b",
    re.I,
)
_QUOTED = re.compile(r"[`'\"“‘]([^`'\"”’\s]{6,})[`'\"”’]")


def references(text: str, names: set[str] | frozenset[str] | dict[str, Any]) -> list[str]:
    """Which of ``names`` (tool identifiers) ``text`` names: an exact identifier of length >= 6
    shaped like one (snake_case, kebab-case, camelCase), or one of length >= 6 in backticks or
    quotes. Ordinary words ("search", "read") never count. Linear in the text, not in ``names``."""
    t = clean(text)
    hits: set[str] = set()
    for m in _TOKEN.finditer(t):
        hit = _named_identifier(m.group(0), names)
        if hit is not None:
            hits.add(hit)
    hits.update(cand for cand in _QUOTED.findall(t) if cand in names)
    return sorted(hits)


def _named_identifier(tok: str, names: set[str] | frozenset[str] | dict[str, Any]) -> str | None:
    """The name of ``names`` the word ``tok`` (or, stripped of dots and dashes, its core) is, when
    shaped like an identifier; else None."""
    for cand in (tok, tok.strip(".-")):
        if cand in names and _distinctive(cand):
            return cand
    return None


def _may_name(text: str, names: dict[str, Any]) -> bool:
    """A quick superset of :func:`references`: could ``text`` name any of ``names`` at all?"""
    tokens = set(_TOKEN.findall(text))
    tokens.update([t.strip(".-") for t in tokens], _QUOTED.findall(text))
    return any(t in names for t in tokens)  # over the text's tokens, not over every name


def mentions(strings: list[str]) -> frozenset[str]:
    """Every word of ``strings`` (a definition's :func:`texts`) that :func:`references` could take
    for a tool's name, whatever the names in view: what the lint cache keeps to skip
    :func:`cross_references` when none of them is another server's tool. (The tool's own name may
    be among them: it is never another server's tool, and a word too many only costs a look.)"""
    t = clean("\n".join(strings))
    tokens = set(_TOKEN.findall(t))  # each word once: schemas repeat the same few a lot
    tokens.update([tok.strip(".-") for tok in tokens])
    # _distinctive, inline (it runs on every word of every tool when the cache is cold)
    out = {tok for tok in tokens if len(tok) >= 6 and ("_" in tok or "-" in tok or _CAMEL.search(tok))}
    out.update(_QUOTED.findall(t))
    return frozenset(out)


def foreign_tools(tools_by_server: dict[str, Any], server: str) -> dict[str, list[str]]:
    """Tool name -> the other servers offering it, for names ``server`` does not offer itself."""
    own = set(tools_by_server.get(server) or ())
    out: dict[str, list[str]] = {}
    for other, tools in tools_by_server.items():
        if other == server:
            continue
        for t in tools:
            if t not in own:
                out.setdefault(t, []).append(other)
    return out


def cross_references(
    definition: Any, foreign: dict[str, list[str]], *, old: Any = None, words: frozenset[str] | None = None
) -> list[LintFinding]:
    """``cross-server-reference`` findings for one definition (tool, prompt or instructions text)
    naming a tool from ``foreign`` (see :func:`foreign_tools`); with ``old``, only new mentions.
    ``words``: the definition's :func:`mentions`, when known (from the lint cache)."""
    if not _names_foreign(definition, foreign, words):
        return []
    before = _mentioned(old, foreign)
    return [
        _reference(s, hit, where, foreign)
        for where, hit, s in _references(definition, foreign)
        if (where, hit) not in before  # with ``old``, only new mentions
    ]


def _names_foreign(definition: Any, foreign: dict[str, list[str]], words: frozenset[str] | None) -> bool:
    """Could ``definition`` name a tool of ``foreign`` at all? One pass over all its text first:
    most name no other server's tool at all (the texts are joined by newlines, which no identifier
    or quoted name spans); over the few ``words`` when they are known, not over every name."""
    if not foreign or definition is None:
        return False
    if words is not None:
        return any(w in foreign for w in words)
    return _may_name(clean("\n".join(texts(definition, skip_name=True))), foreign)


def _mentioned(old: Any, foreign: dict[str, list[str]]) -> set[tuple[str, str]]:
    """(where, the foreign tool named) of each mention in the accepted definition ``old``, if any."""
    if old is None:
        return set()
    return {(where, hit) for where, hit, _s in _references(old, foreign)}


def _references(definition: Any, foreign: dict[str, list[str]]) -> Iterator[tuple[str, str, str]]:
    """(where, the foreign tool named, the text) for each mention, the tool's own name left out."""
    for where, s in strings(definition, root(definition)):
        if where != "name":
            for hit in references(s, foreign):
                yield where, hit, s


def _reference(s: str, hit: str, where: str, foreign: dict[str, list[str]]) -> LintFinding:
    """The finding of one mention: critical when its sentence claims or redirects, else high."""
    servers = ", ".join(sorted(set(foreign[hit])))
    if _steers(s, hit):
        return LintFinding(
            "cross-server-reference",
            CRITICAL,
            f"claims or redirects `{hit}`, a tool of server {servers}: a definition that steers the model "
            "away from or toward another server's tools",
            where,
        )
    return LintFinding(
        "cross-server-reference",
        HIGH,
        f"names `{hit}`, a tool of server {servers} (a mention, no claim or redirect)",
        where,
    )


def _steers(text: str, hit: str) -> bool:
    """Whether a sentence of ``text`` that names ``hit`` also holds claim or redirect language."""
    t = clean(text)
    return any(hit in m.group(0) and _STEER.search(m.group(0)) for m in SENTENCE.finditer(t))


# the hosts' own tools (what a model already has beside every MCP server), by host
HOST_BUILTINS: dict[str, tuple[str, ...]] = {
    "Claude Code": (
        "Bash",
        "Read",
        "Write",
        "Edit",
        "MultiEdit",
        "Glob",
        "Grep",
        "LS",
        "WebFetch",
        "WebSearch",
        "Task",
        "TodoWrite",
        "NotebookEdit",
        "NotebookRead",
        "BashOutput",
        "KillShell",
    ),
    "Claude API": (
        "bash",
        "str_replace_based_edit_tool",
        "str_replace_editor",
        "text_editor",
        "web_search",
        "web_fetch",
        "computer",
        "code_execution",
    ),
    "Cursor": (
        "codebase_search",
        "read_file",
        "run_terminal_cmd",
        "list_dir",
        "grep_search",
        "edit_file",
        "file_search",
        "delete_file",
        "search_replace",
        "web_search",
    ),
    "Gemini CLI": (
        "read_file",
        "write_file",
        "replace",
        "list_directory",
        "glob",
        "search_file_content",
        "run_shell_command",
        "web_fetch",
        "google_web_search",
        "save_memory",
        "read_many_files",
    ),
    "Codex": ("shell", "apply_patch", "update_plan", "view_image", "exec_command", "write_stdin", "local_shell"),
    "opencode": ("bash", "edit", "write", "read", "grep", "glob", "list", "patch", "todowrite", "todoread", "webfetch"),
}


@functools.cache
def _builtins() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for host, names in HOST_BUILTINS.items():
        for n in names:
            out.setdefault(_norm_name(n), []).append(f"{host}'s {n}")
    return out


def builtin_shadowing(tool: str) -> LintFinding | None:
    """``tool-shadowing`` when ``tool`` is named like a host's own tool (case and separators folded)."""
    hosts = _builtins().get(_norm_name(tool))
    if not hosts:
        return None
    # a name alone asks nothing of the model: news (medium); text claiming the built-in's turf is a
    # directive (mcplock.lint.intent), and a name another locked server offers stays high
    return LintFinding(
        "tool-shadowing",
        MEDIUM,
        f"tool name `{tool}` is also a host built-in ({', '.join(hosts)}): "
        "the model may call this server's tool when it means its host's own",
        "name",
    )


def shadowing(tools_by_server: dict[str, Any], *, builtins: bool = False) -> dict[tuple[str, str], list[LintFinding]]:
    """``tool-shadowing`` findings keyed by (server, tool); with ``builtins``, names of the
    hosts' own tools too (:data:`HOST_BUILTINS`)."""
    out = _builtins_shadowed(tools_by_server) if builtins else {}
    for group in _same_names(tools_by_server):
        for server, tool in group:
            out.setdefault((server, tool), []).append(_shadowed(server, tool, group))
    return out


def _builtins_shadowed(tools_by_server: dict[str, Any]) -> dict[tuple[str, str], list[LintFinding]]:
    """``tool-shadowing`` of a host's own tool, keyed by (server, tool)."""
    out: dict[tuple[str, str], list[LintFinding]] = {}
    for server, tools in tools_by_server.items():
        for tool in tools:
            found = builtin_shadowing(tool)
            if found is not None:
                out.setdefault((server, tool), []).append(found)
    return out


def _same_names(tools_by_server: dict[str, Any]) -> list[list[tuple[str, str]]]:
    """The (server, tool) groups named alike once case and separators are folded, each offered
    by two servers or more."""
    by_norm: dict[str, list[tuple[str, str]]] = {}
    for server, tools in tools_by_server.items():
        for tool in tools:
            by_norm.setdefault(_norm_name(tool), []).append((server, tool))
    return [group for group in by_norm.values() if len({s for s, _ in group}) >= 2]


def _shadowed(server: str, tool: str, group: list[tuple[str, str]]) -> LintFinding:
    """``tool-shadowing`` of ``server``'s ``tool`` by the others of its ``group`` (the same name
    once case and separators are folded): offered by them, or told apart only by case or separators."""
    others = sorted(f"{s}/{t}" for s, t in group if s != server)
    exact = any(t == tool for s, t in group if s != server)
    msg = (
        f"tool name `{tool}` is also offered by {', '.join(others)}"
        if exact
        else f"tool name `{tool}` differs only in case or separators from {', '.join(others)}"
    )
    return LintFinding("tool-shadowing", HIGH, msg + ": the model may call the wrong server's tool", "name")


def lint_servers(
    tools_by_server: dict[str, dict[str, Any]],
    words: dict[tuple[str, str], frozenset[str]] | None = None,
) -> dict[tuple[str, str], list[LintFinding]]:
    """Findings on the tools a model sees together, keyed by (server, tool): shadowing, confusable
    names (within a server too) and references to another server's tools. ``words``: the
    :func:`mentions` of some tools, when known."""
    out = shadowing(tools_by_server)
    for key, found in [*confusable_names(tools_by_server).items(), *_cross_server(tools_by_server, words or {})]:
        out.setdefault(key, []).extend(found)
    return out


def _cross_server(
    tools_by_server: dict[str, dict[str, Any]], words: dict[tuple[str, str], frozenset[str]]
) -> Iterator[tuple[tuple[str, str], list[LintFinding]]]:
    """((server, tool), its ``cross-server-reference`` findings) for each tool that has some."""
    for server, tools in tools_by_server.items():
        foreign = foreign_tools(tools_by_server, server)
        for tool, definition in tools.items():
            found = cross_references(definition, foreign, words=words.get((server, tool)))
            if found:
                yield (server, tool), found
