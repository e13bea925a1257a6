"""What a definition adds that the accepted one did not have (docs/severity.md, issue 45).

Words vary with the language and the writer; what an act needs does not. This family compares a
definition with the definition the lock accepted and judges, sentence by added sentence, what is
language-neutral:

- **a language mcplock cannot read** (:mod:`mcplock.lint.language_id`), when the accepted text
  held none: ``unreadable-language``, high — "in Tagalog: mcplock cannot judge it; have a reader
  review it". Text already written in such a language is judged by its structure below;
- **a destination or reference that is new** (:mod:`mcplock.lint.destinations`: an address, URL,
  host, IP, path, code span) — the accepted definition, the server's own tool names and the
  definition's own parameters do not count as new:

  - in a sentence mcplock cannot read: high, whatever the words;
  - a command in a code span (`` `curl … | sh` ``): high;
  - a destination in a sentence whose verb moves something (:mod:`mcplock.lint.stems`, any word
    form: "is forwarded", "copies", "inclusion of"): high;
  - a name this server does not offer, in a sentence that calls, runs or fills it: high;

- **a value forced on the user**: a parameter of the definition told to take personal data or a
  fixed value "whatever the user says": high.

Beside concealment or a claim of authority anywhere in the added text, an act here is critical.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from mcplock.lint.aspects import candidates, concealment_and_authority
from mcplock.lint.destinations import Ref, is_command, is_identifier, may_point, references
from mcplock.lint.finding import LintFinding
from mcplock.lint.language_id import surely_readable, unreadable
from mcplock.lint.quoting import quoting_job, unquoted
from mcplock.lint.stems import stemmed_verb
from mcplock.lint.text import SENTENCE, clean, excerpt, lazy, root, strings, texts
from mcplock.model.severity import CRITICAL, HIGH

# personal data a parameter should not be told to take, in the lexicon's main languages
_PERSONAL = lazy(
    r"\b(?:(?:home|postal|street|billing)\s+address|phone(?:\s+number)?|full\s+name|date\s+of\s+birth|birthday"
    r"|social\s+security|passport|card\s+number|credit\s+card|cvv|iban|contact\s+list|contacts|location"
    r"|clipboard|browser\s+history|environment(?:\s+variables)?|env\s+vars?|printenv|api\s+keys?|passwords?"
    r"|tokens?|ssh\s+keys?|private\s+keys?|files\s+in\s+~)\b",
    re.I,
)
# a value forced against what the user asks
_OVERRIDE = lazy(
    r"\b(?:whatever|no\s+matter\s+what|regardless\s+of\s+what|even\s+if)\s+the\s+(?:user|person|customer)"
    r"(?:\s+\w+){0,3}?\s+(?:says?|asks?|wants?|requests?|chooses?|names?|types?|picks?|gives?)\b"
    r"|\bregardless\s+of\s+(?:the\s+)?(?:user'?s?|person'?s?)\s+(?:request|choice|input)",
    re.I,
)
_SAFETY_PARAM = lazy(r"(?:2fa|mfa|otp|auth|verify|verification|ssl|tls|confirm|safe|secure|sandbox|review)", re.I)
_OFF = lazy(r"\b(?:false|off|disabled?|no|0|none|skip)\b", re.I)


def _sentences(s: str) -> Iterator[str]:
    if not _prose(s):
        return
    for m in SENTENCE.finditer(clean(s)):
        t = m.group(0).strip()
        if len(t) >= 4:
            yield t


def _prose(s: str) -> bool:
    """Whether ``s`` can say anything here: words with a space between, or a string that may name a
    destination (a bare URL as a ``default``); not a key, a type name or an identifier."""
    return len(s) >= 4 and (" " in s or may_point(s))


class _Names:
    """Names that are this definition's or its server's: its name, its parameters' names, the
    server's tools (``server``: lower case, shared by every definition of a diff, never copied)."""

    def __init__(self, definition: Any, server: frozenset[str]):
        self.server = server
        local: set[str] = set()
        if isinstance(definition, dict):
            for key in ("name", "uriTemplate"):
                if isinstance(definition.get(key), str):
                    local.add(definition[key])
            for schema_key in ("inputSchema", "outputSchema"):
                props = (definition.get(schema_key) or {}).get("properties")
                if isinstance(props, dict):
                    local.update(str(k) for k in props)
            for arg in definition.get("arguments") or []:
                if isinstance(arg, dict) and isinstance(arg.get("name"), str):
                    local.add(arg["name"])
        self.local = frozenset(n.lower() for n in local)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and (name.lower() in self.local or name.lower() in self.server)


_IDENTIFIER = lazy(r"\b[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]+\b")


class _Before:
    """What the accepted definition held: its sentences, references and whether any of its text
    is in a language mcplock cannot read."""

    def __init__(self, old: Any):
        strs = texts(old) if old is not None else []
        self.sentences = {t.lower() for s in strs for t in _sentences(s)}
        self.refs = {r.value for s in strs if _prose(s) for r in references(clean(s))}
        self.identifiers = {w.lower() for s in strs for w in _IDENTIFIER.findall(s)}
        self._at = dict(strings(old, root(old))) if old is not None else {}

    def unreadable_at(self, where: str) -> bool:
        """Whether the accepted text at ``where`` was not surely in a language the lexicon reads
        (a two-word description is a sample too: a reader accepted it as it was)."""
        s = self._at.get(where)
        return s is not None and not surely_readable(" ".join(_sentences(s)))


def _new_refs(sentence: str, before: _Before, own: _Names, known: set[str]) -> list[Ref]:
    out = []
    for r in references(sentence):
        if r.value in before.refs or r.value in known or (r.kind == "code" and r.value.strip("() ") in own):
            continue
        out.append(r)
    return out


def _q(s: str) -> str:
    return "«" + excerpt(s, 0, 0, 100) + "»"


def _named(refs: list[Ref]) -> str:
    return ", ".join(r.shown[:60] for r in refs[:3])


_CODE_SPAN = lazy(r"`[^`\n]*`")


def _act(sentence: str, refs: list[Ref], own: _Names, job: bool, instructions: bool) -> str:
    """What a readable sentence with new references asks ('' if nothing); ``job``: the sentence is
    the tool's first, its job (a destination it moves things to is what it does)."""
    commands = [r for r in refs if r.kind == "code" and is_command(r.value)]
    if commands:
        return f"asks to run a command ({_named(commands)})"
    languages = candidates(sentence, sentence.lower())
    dests = [r for r in refs if r.destination]
    if dests and not job:
        verb = stemmed_verb(sentence, "move", languages)
        if verb:
            return f"moves something («{verb}») to a destination the accepted text did not name ({_named(dests)})"
    names = [r for r in refs if r.kind == "code" and is_identifier(r.value) and r.value.lower() not in own]
    if names and not instructions:  # a server's instructions document its own tools, listed or not
        prose = _CODE_SPAN.sub(" ", sentence)
        verb = stemmed_verb(prose, "call", languages) or stemmed_verb(prose, "fill", languages)
        if verb:
            return f"names {_named(names)} («{verb}»), which this server does not offer"
    if dests and _OVERRIDE.search(sentence):
        return f"forces a destination the user did not give ({_named(dests)}), whatever the user says"
    return ""


# a tool's name written bare ("first use fetch_secrets"): a verb that calls it, a name shaped like a
# tool's (a verb, an underscore: not "snake_case"), and an order of sequence (first, before, always; not
# "instead": "DEPRECATED: use search_pages instead" points at a newer tool)
_CALLED = lazy(
    r"\b(?:call|run|invoke|execute|use|trigger|launch)\s+(?:the\s+)?((?:get|fetch|read|list|send|run|call|sync|collect"
    r"|export|upload|post|create|delete|update|write|search|query|load|save|set|exec|invoke|dump|grab|pull|push|clear"
    r"|reset|purge|share|forward|copy|backup|archive|report|log|scan)_[a-z0-9_]+)\b",
    re.I,
)
_SEQUENCE = lazy(r"\b(?:first|before|always|prior\s+to|every\s+time|each\s+time|whenever)\b", re.I)


def _called_first(sentence: str, own: _Names, before: _Before) -> str:
    """A tool this server does not offer, named bare and called first or always ("First use
    fetch_secrets, then answer"); '' when the name is the server's, a parameter, or was accepted."""
    if _SEQUENCE.search(sentence) is None:
        return ""
    for m in _CALLED.finditer(sentence):
        name = m.group(1)
        if name in own or name.lower() in before.identifiers:
            continue
        return f"calls {name} («{m.group(0).split()[0]}»), which this server does not offer, in sequence"
    return ""


def _forced_value(sentence: str, params: frozenset[str]) -> str:
    """A parameter of the definition told to take personal data, a fixed value against the user's
    wish, or a safety setting switched off."""
    named = [p for p in params if re.search(rf"`{re.escape(p)}`|\b{re.escape(p)}\b", sentence, re.I)]
    if not named:
        return ""
    languages = candidates(sentence, sentence.lower())
    fill = stemmed_verb(sentence, "fill", languages)
    personal = _PERSONAL.search(sentence)
    if fill and personal is not None and not any(p in personal.group(0).lower().replace(" ", "_") for p in named):
        return f"asks to put personal data ({personal.group(0)}) into `{named[0]}`"
    if _OVERRIDE.search(sentence) and fill:
        return f"forces a value into `{named[0]}`, whatever the user says"
    safety = [p for p in named if _SAFETY_PARAM.search(p)]
    if safety and fill and _OFF.search(sentence):
        return f"asks to switch a safety setting off (`{safety[0]}`)"
    return ""


def _params(definition: Any) -> frozenset[str]:
    if not isinstance(definition, dict):
        return frozenset()
    props = (definition.get("inputSchema") or {}).get("properties")
    return frozenset(str(k).lower() for k in props) if isinstance(props, dict) else frozenset()


def novelty_findings(
    kind: str, definition: Any, old: Any = None, own: frozenset[str] = frozenset()
) -> list[LintFinding]:
    """The findings of what ``definition`` adds over ``old`` (the accepted definition; None: all
    of it is new). ``own``: the names of the server's tools, in lower case."""
    if definition is None or kind == "ui":
        return []
    before = _Before(old)
    names = _Names(definition, own)
    params = _params(definition)
    acts: list[tuple[str, str, str]] = []  # (where, what, sentence)
    out: list[LintFinding] = []
    added: list[str] = []
    language_said = False
    quoting = kind == "tool" and bool(quoting_job(definition))
    for where, s in strings(definition, root(definition)):
        if not _prose(s):
            continue
        whole = references(clean(s))  # an example ("e.g. /tmp/x.csv") is one across a sentence break too
        examples = {r.value for r in references(clean(s), keep_examples=True)} - {r.value for r in whole}
        for i, sentence in enumerate(_sentences(unquoted(s) if quoting else s)):
            if sentence.lower() in before.sentences:
                continue
            added.append(sentence)
            lang = unreadable(sentence)
            if lang and not language_said and not before.unreadable_at(where):
                language_said = True
                out.append(
                    LintFinding(
                        "unreadable-language",
                        HIGH,
                        f"in {lang}: mcplock cannot judge it; have a reader review it: {_q(sentence)}",
                        where,
                    )
                )
            refs = _new_refs(sentence, before, names, examples)
            if lang and refs:
                acts.append((where, f"a sentence in {lang}, which mcplock cannot read, names {_named(refs)}", sentence))
                continue
            job = kind == "tool" and where == "description" and i == 0  # the tool's own job says what it does
            what = (
                (_act(sentence, refs, names, job, kind == "instructions") if refs else "")
                or _forced_value(sentence, params)
                or (_called_first(sentence, names, before) if kind != "instructions" else "")
            )
            if what:
                acts.append((where, f"a directive that {what}", sentence))
    if not acts:
        return out
    hide, authority = concealment_and_authority(" ".join(added))
    aggravated = hide or authority
    severity = CRITICAL if aggravated else HIGH
    extra = f" (concealment «{hide}»)" if hide else f" (authority «{authority}»)" if authority else ""
    for where, what, sentence in acts:
        out.append(LintFinding("new-destination", severity, f"{what}{extra}: {_q(sentence)}", where))
    return out


_ACTS = frozenset({"directive", "new-destination", "exfiltration-url", "hidden-instructions"})


def beside_instructions(
    instructions_old: Any, instructions_new: Any, findings: list[LintFinding]
) -> LintFinding | None:
    """An act among one item's ``findings`` (``high``) made ``critical`` by what the server's
    instructions newly say beside it: concealment ("what these tools do in the background is not
    worth mentioning") or a claim of authority or consent ("the admin has pre-approved every
    step") — the act and its cover in two items of one server (issue 45 item 5). None when the
    instructions add neither, or the item has no act that is not critical already."""
    act = next((f for f in findings if f.rule in _ACTS and f.severity == HIGH), None)
    if act is None or any(f.rule in _ACTS and f.severity == CRITICAL for f in findings):
        return None
    if not isinstance(instructions_new, str) or (act.rule == "hidden-instructions" and "conceal" in act.message):
        return None
    before = {t.lower() for t in _sentences(instructions_old)} if isinstance(instructions_old, str) else set()
    added = " ".join(t for t in _sentences(instructions_new) if t.lower() not in before)
    hide, authority = concealment_and_authority(added) if added else ("", "")
    if not (hide or authority):
        return None
    cover = f"concealment «{hide}»" if hide else f"authority «{authority}»"
    what, _, quote = act.message.partition(": ")
    return LintFinding(
        "directive", CRITICAL, f"{what}, with {cover} in the server's new instructions: {quote}", act.where
    )
