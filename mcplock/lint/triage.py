"""Why a compared change gets its severity: a baseline from what changed, raised by the
security lint's findings on the new text, with ONE line of reason (docs/severity.md).

Severity ranks risk, not the kind of change: structure on its own (a loosened or tightened
schema, a new optional parameter, a new or removed tool, an honestly destructive one) and a
reworded text that asks nothing new are ``medium`` (news, not an alarm); the lint's findings —
the intent model's directives among them — raise it, and the reason then names the finding
that did, quoting its sentence. Pure: no I/O, deepdiff only when two input schemas differ.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcplock.model.severity import LOW, MEDIUM, Severity, rank, worst

COSMETIC_FIELDS = ("title", "icons", "_meta", "execution")

# the reason a lint finding gives, per rule (the finding's own message says the rest)
_FINDING_REASON = {
    "hidden-unicode": "invisible characters in text the model reads",
    "bidi-control": "bidirectional control characters in text the model reads",
    "unicode-tag": "Unicode tag characters (invisible ASCII) in text the model reads",
    "ansi-escape": "terminal escapes or control characters in the text",
    "unusual-unicode": "unusual code points (private-use, unassigned, separators) in the text",
    "hidden-instructions": "instruction-like text aimed at the model",
    "directive": "a directive to the model that acts beyond the tool's job",
    "annotation-contradicted": "safety annotations the tool's own name or text contradicts",
    "context-parameter": "a parameter whose description asks for the whole conversation",
    "exfiltration-url": "a URL shaped for exfiltration",
    "disguised-text": "disguised text (letter-spaced, ROT13, reversed or mixed-script words)",
    "credential-parameter": "a new required parameter that asks for a credential",
    "encoded-blob": "an encoded blob in text the model reads",
    "tracking-image": "an image loaded from a URL (a tracking image)",
    "annotation-flip": 'an annotation flipped toward "safe" (annotations are not trusted)',
    "annotations-declared": "annotations declared for the first time: not trusted, the approval is unchanged",
    "tool-shadowing": "a tool name another server or the host also offers",
    "confusable-name": "a name confusable with another tool's",
    "mixed-script-name": "a name mixing scripts with look-alike letters",
    "name-collision": "a tool, prompt or resource name that reads as another of its server's once normalised",
    "pattern-name": "a tool name hosts read as a pattern (`*`)",
    "rename": "a rename, the definition otherwise identical",
    "app-script-source": "an App document that loads a script from a new origin",
    "app-network-destination": "an App document that sends to or names a new origin",
    "app-csp-widened": "an App's Content-Security-Policy widened",
    "app-permission": "an App that requests a new device permission",
    "app-domain": "an App's origin changed",
    "internal-uri": "a resource URI that reaches cloud metadata, the loopback or walks out with `..`",
}


def _message(f: Any) -> str:
    return str(getattr(f, "message", ""))


def _shortened(quote: str) -> str:
    """A quoted sentence shortened to keep the reason on one line."""
    return quote if len(quote) <= 100 else quote[:100] + "…"


def _sensitive_path(f: Any) -> str:
    critical = getattr(f, "severity", "") == "critical"
    what = "an order to read or send a secrets location" if critical else "a path into a secrets location"
    quote = _message(f).partition(": ")[2]
    return f"{what}: {_shortened(quote)}" if quote else what


def _first_clause(f: Any) -> str:
    """The message up to its explanation (annotation-contradicted, context-parameter)."""
    return _message(f).split(";", 1)[0].split(", data its name", 1)[0] or _FINDING_REASON[f.rule]


def _cross_reference(f: Any) -> str:
    if getattr(f, "severity", "") == "critical":
        return "text that claims or redirects another server's tool"
    return "a mention of another server's tool"


def _quoted(f: Any) -> str:
    """The message: which order or request, in which language, decoded from what, then the
    sentence it is in (escaped already, shortened); an HTML comment said so."""
    message = _message(f)
    if f.rule == "hidden-instructions" and message.startswith("an HTML comment"):
        return "an HTML comment, hidden when rendered but read by the model"
    what, _, quote = message.partition(": ")
    what = what or _FINDING_REASON[f.rule]
    return f"{what}: {_shortened(quote)}" if quote else what


# rules whose reason is drawn from the finding itself (any other rule's: _FINDING_REASON)
_REASON_OF: dict[str, Callable[[Any], str]] = {
    "sensitive-path": _sensitive_path,
    "annotation-contradicted": _first_clause,
    "context-parameter": _first_clause,
    "cross-server-reference": _cross_reference,
    "hidden-instructions": _quoted,
    "exfiltration-url": _quoted,
    "directive": _quoted,
    "new-destination": _quoted,
    "unreadable-language": _quoted,
    "hidden-markup": _quoted,
}


def finding_reason(f: Any) -> str:
    """The one-line reason a lint finding gives a change."""
    rule, where = getattr(f, "rule", ""), getattr(f, "where", "")
    reason_of = _REASON_OF.get(rule)
    what = reason_of(f) if reason_of is not None else _FINDING_REASON.get(rule, rule or "a security finding")
    return f"{what} ({where})" if where and where != "name" else what


def _label(kind: str) -> str:
    return {"resource-template": "resource template", "ui": "App document", "content": "document"}.get(kind, kind)


def _member(value: Any, key: str) -> Any:
    """``value[key]`` when ``value`` is an object, else None."""
    return value.get(key) if isinstance(value, dict) else None


def _declares_destructive(definition: Any) -> bool:
    ann = _member(definition, "annotations")
    return isinstance(ann, dict) and ann.get("destructiveHint") is True and ann.get("readOnlyHint") is not True


def _new_param(what: str) -> bool:
    return what.startswith("property `") and what.endswith("` added")


def _more(count: int) -> str:
    """How many more there are besides the first of ``count`` reasons."""
    return f" (+{count - 1} more)" if count > 1 else ""


def _loosened(entries: list[tuple[str, str, str]]) -> str | None:
    """The first way the schema was loosened, other than a new parameter (and how many more)."""
    from mcplock.lint.schema import LOOSENED

    loosened = [(w, what) for w, how, what in entries if how == LOOSENED and not _new_param(what)]
    if not loosened:
        return None
    where, what = loosened[0]
    return f"input schema loosened: {what} at {where}{_more(len(loosened))}"


def _new_params(entries: list[tuple[str, str, str]]) -> str | None:
    """The new optional parameters, by name."""
    from mcplock.lint.schema import LOOSENED

    added = [what for _w, how, what in entries if how == LOOSENED]
    if not added:
        return None
    names = ", ".join(_param_name(a) for a in added)
    return f"new optional parameter{'s' if len(added) > 1 else ''}: {names}"


def _param_name(what: str) -> str:
    """The parameter a schema change names in backticks (``property `q` added``), else the change."""
    return what.split("`")[1] if "`" in what else what


def _tightened(entries: list[tuple[str, str, str]]) -> str | None:
    from mcplock.lint.schema import TIGHTENED

    return "input schema tightened" if any(how == TIGHTENED for _w, how, _what in entries) else None


def _reshaped(entries: list[tuple[str, str, str]]) -> str | None:
    """A neutral change other than a cosmetic keyword's (a ``description``, a ``title`` …)."""
    from mcplock.lint.schema import COSMETIC_KEYWORDS, NEUTRAL

    if any(how == NEUTRAL and not what.startswith(COSMETIC_KEYWORDS) for _w, how, what in entries):
        return "input schema reworded or reshaped, neither loosened nor tightened"
    return None


# what an input schema change is news for, asked in this order: the first that holds is the reason
# (structure on its own is news, not an alarm: what the model is asked to do is the text's)
_SCHEMA_NEWS = (_loosened, _new_params, _tightened, _reshaped)


def _input_schema(old: Any, new: Any) -> tuple[Severity, str]:
    from mcplock.lint.schema import classify_schema_change

    entries = classify_schema_change((old or {}).get("inputSchema"), (new or {}).get("inputSchema"), "inputSchema")
    for news in _SCHEMA_NEWS:
        reason = news(entries)
        if reason is not None:
            return MEDIUM, reason
    return LOW, "input schema: cosmetic change only"


def _model_sees(tool: Any) -> bool:
    """Whether an MCP App's tool is offered to the model: ``_meta.ui.visibility`` holds ``"model"``,
    or is not a list (the default is ``["model", "app"]``); ``["app"]`` leaves it to the App."""
    visibility = _member(_member(_member(tool, "_meta"), "ui"), "visibility")
    return not isinstance(visibility, list) or "model" in visibility


# fields whose change is news with one fixed reason
_FIELD_REASON = {
    "description": "description reworded, no risk signal",
    "outputSchema": "output schema changed",
    "arguments": "prompt arguments changed",
    "annotations": "annotations changed (not trusted; the approval is unchanged)",
}


def _tool_meta(old: Any, new: Any) -> tuple[Severity, str]:
    """A tool's ``_meta`` change: another App document, newly visible to the model, or else cosmetic."""
    from mcplock.model.documents import tool_ui_uri

    if tool_ui_uri(old) != tool_ui_uri(new):
        return MEDIUM, "the tool now renders another App document (_meta.ui.resourceUri)"
    if _model_sees(new) and not _model_sees(old):
        return MEDIUM, "the tool is now visible to the model (_meta.ui.visibility), not only to its App"
    return _plain_field("_meta")


def _field(kind: str, name: str, old: Any, new: Any) -> tuple[Severity, str]:
    if name in _FIELD_REASON:
        return MEDIUM, _FIELD_REASON[name]
    if name == "inputSchema":
        return _input_schema(old, new)
    if name == "_meta" and kind == "tool":
        return _tool_meta(old, new)
    return _plain_field(name)


def _plain_field(name: str) -> tuple[Severity, str]:
    """A field judged by its name alone: cosmetic (``low``), else news."""
    if name in COSMETIC_FIELDS:
        return LOW, "only " + name + " changed"
    return MEDIUM, f"{name} changed"


def _instructions(change: str) -> tuple[Severity, str]:
    if change == "removed":
        return MEDIUM, "instructions removed"
    verb = "added" if change == "added" else "reworded"
    return MEDIUM, f"instructions {verb}, no risk signal (judged by what they say)"


def _added(kind: str, new: Any) -> tuple[Severity, str]:
    if kind == "tool" and _declares_destructive(new):
        return MEDIUM, "new tool that declares itself destructive (destructiveHint: true): honest news, review it"
    return MEDIUM, f"new {_label(kind)}, no risk signal" + (" (annotations are not trusted)" if kind == "tool" else "")


def _changed(kind: str, fields: list[str], old: Any, new: Any) -> tuple[Severity, str]:
    """A changed item: judged field by field (the name aside); the worst field's reason, counting the others."""
    judged = [_field(kind, f, old, new) for f in fields if f != "name"]
    if not judged:
        return LOW, "no field the model reads changed"
    sev, reason = _worst_reason(judged)
    if sev == LOW and set(fields) <= set(COSMETIC_FIELDS):
        return LOW, "only " + ", ".join(fields) + " changed"
    return sev, reason


def _worst_reason(judged: list[tuple[Severity, str]]) -> tuple[Severity, str]:
    """The worst severity of ``judged`` (severity, reason) pairs, and the first reason for it
    (counting the others)."""
    sev = worst(*(s for s, _ in judged))
    reasons = [r for s, r in judged if s == sev]
    return sev, reasons[0] + _more(len(reasons))


def baseline(kind: str, change: str, fields: list[str], old: Any, new: Any) -> tuple[Severity, str]:
    """(severity, reason) from what changed, before the lint looks at the new text."""
    if kind == "instructions":
        return _instructions(change)
    if change == "removed":
        return MEDIUM, f"{_label(kind)} removed"
    if change == "added":
        return _added(kind, new)
    return _changed(kind, fields, old, new)


def judge(severity: str, reason: str, findings: list[Any]) -> tuple[str, str]:
    """The severity after the lint's ``findings`` and the reason for it: the most severe finding's
    when it is as severe as the baseline or more (and at least ``medium``), else the baseline's."""
    known = [f for f in findings if isinstance(getattr(f, "severity", None), str)]
    if not known:
        return severity, reason
    top = min(known, key=lambda f: rank(f.severity))
    if _outweighs(top.severity, severity):
        return top.severity, finding_reason(top)
    return worst(severity, top.severity), reason


def _outweighs(found: str, severity: str) -> bool:
    """A finding of severity ``found`` gives the reason over a baseline of ``severity``: it is as
    severe or more, and at least ``medium``."""
    return rank(found) <= rank(severity) and rank(found) <= rank(MEDIUM)
