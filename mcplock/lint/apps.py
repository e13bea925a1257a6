"""Lint of an MCP App's ``ui://`` document (lock kind ``ui``): what a swapped UI gains.

The host renders the document in a sandboxed iframe and lets it call the server's tools, so
what matters is where its code comes from and where it may send data, not instruction-like
text (the model does not read it). Findings on a changed document compare it with the accepted
one and report only what is new:

- ``app-script-source``: a ``<script src>`` from an origin the accepted document did not load from;
- ``app-network-destination``: an origin the document now names where it may contact it (critical
  where a ``fetch``, ``sendBeacon``, ``WebSocket``, ``EventSource``, XHR ``open`` or form ``action``
  uses it); a comment, a DOCTYPE, an ``xmlns`` value or a namespace URI contacts nothing
  (:mod:`mcplock.lint.app_inert`: an honest App's bundled libraries name their URLs there);
- ``app-csp-widened``: a domain added to ``_meta.ui.csp`` (connect, resource, frame, base-uri);
- ``app-permission``: a device permission newly requested in ``_meta.ui.permissions``;
- ``app-domain``: the dedicated origin (``_meta.ui.domain``) changed;
- the character family's findings (bidi controls, zero-width and tag characters, terminal
  escapes): code that reads differently from how it runs (Trojan Source) hides from review;
- the text the App hands the model: the string literals of its ``ui/update-model-context``
  messages (and the SDK's ``updateModelContext(...)``) go through the one text pipeline
  (:mod:`mcplock.lint.pipeline`), as a description would, at ``text (ui/update-model-context)``.

A new document (no accepted one) gets the same ``app-`` findings capped at ``medium``: news for
the reviewer, never a block on ``add`` (hidden characters keep their severity). Pure; regular expressions only.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from mcplock.lint.characters import char_findings
from mcplock.lint.finding import LintFinding, Sig
from mcplock.model.severity import CRITICAL, HIGH, MEDIUM, Severity

RULES = {
    "app-script-source": "An MCP App document that loads a script from an origin its accepted version did not: "
    "code the host runs with the App's access to the server's tools.",
    "app-network-destination": "An MCP App document that names an origin its accepted version did not (critical "
    "where fetch, sendBeacon, WebSocket, EventSource, XHR or a form sends to it).",
    "app-csp-widened": "A domain added to an MCP App's Content-Security-Policy (`_meta.ui.csp`): the host lets "
    "the App connect to, load from or frame it.",
    "app-permission": "A device permission (camera, microphone, geolocation, clipboard) an MCP App newly requests "
    "in `_meta.ui.permissions`.",
    "app-domain": "An MCP App's dedicated origin (`_meta.ui.domain`) changed.",
}

_ORIGIN = re.compile(r"""(?i)\b((?:https?|wss?)://[a-z0-9.\-_~%]+(?::\d+)?)""")
_SCRIPT_TAG = re.compile(r"(?i)<script\b")
_SRC = re.compile(r"""(?is)\bsrc\s*=\s*["']?\s*((?:https?:)?//[^"'\s>]+)""")
_SENDS = re.compile(
    r"""(?is)(?:\bfetch|\bsendBeacon|\bWebSocket|\bEventSource|\.open)\s*\("""
    r"""\s*(?:["'`][A-Z]+["'`]\s*,\s*)?["'`]((?:https?|wss?)://[a-z0-9.\-_~%]+(?::\d+)?)|\baction\s*=\s*["']((?:https?)://[a-z0-9.\-_~%]+)"""
)
_CSP_KEYS = ("connectDomains", "resourceDomains", "frameDomains", "baseUriDomains")
_LOWER: dict[str, Severity] = {CRITICAL: MEDIUM, HIGH: MEDIUM, MEDIUM: MEDIUM}


def _one(c: Any) -> str | None:
    """A content object's text; a ``blob`` decoded (an App may ship its HTML base64-encoded)."""
    if not isinstance(c, dict):
        return None
    text = c.get("text")
    if isinstance(text, str):
        return text
    blob = c.get("blob")
    return _decoded(blob) if isinstance(blob, str) else None


def _decoded(blob: str) -> str | None:
    try:
        return base64.b64decode(blob, validate=False).decode("utf-8", "replace")
    except (ValueError, binascii.Error):
        return None


def _text(d: Any) -> str:
    if not isinstance(d, dict):
        return ""
    if "text" in d or "blob" in d:
        return _one(d) or ""
    return _contents_text(d.get("contents"))


def _contents_text(contents: Any) -> str:
    """The texts of a resources/read result's ``contents``, one after another on their own lines."""
    if not isinstance(contents, list):
        return ""
    parts = [_one(c) for c in contents]
    return "\n".join(p for p in parts if p is not None)


def _ui(d: Any) -> dict[str, Any]:
    from mcplock.model.documents import effective_ui

    return effective_ui(d)


def _origin(url: str) -> str:
    url = url.lower()
    if url.startswith("//"):
        url = "https:" + url
    m = _ORIGIN.match(url)
    return m.group(1) if m else url


def _domains(ui: dict[str, Any], key: str) -> set[str]:
    csp = ui.get("csp")
    v = csp.get(key) if isinstance(csp, dict) else None
    return {x for x in v if isinstance(x, str)} if isinstance(v, list) else set()


def _permissions(ui: dict[str, Any]) -> set[str]:
    p = ui.get("permissions")
    return {k for k, v in p.items() if v is not None and v is not False} if isinstance(p, dict) else set()


_CONTEXT_CALL = re.compile(r"ui/update-model-context|updateModelContext\s*\(")
_LITERAL = re.compile(r'"((?:[^"\\\n]|\\.){4,})"|\'((?:[^\'\\\n]|\\.){4,})\'|`((?:[^`\\]|\\.){4,})`')
_JS_ESCAPE = re.compile(r"\\(u\{[0-9a-fA-F]{1,6}\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|.)", re.S)
_PLUMBING = frozenset(
    {"ui/update-model-context", "jsonrpc", "text", "content", "params", "method", "structuredContent"}
)


def _unescape(s: str) -> str:
    def one(m: re.Match[str]) -> str:
        e = m.group(1)
        if e.startswith("u{"):
            return chr(int(e[2:-1], 16))
        if e[0] in "ux" and len(e) > 1:
            return chr(int(e[1:], 16))
        return {"n": "\n", "t": "\t", "r": "\r"}.get(e, e)

    return _JS_ESCAPE.sub(one, s)


def model_context(text: str) -> list[str]:
    """The string literals an App document sends the model (``ui/update-model-context``): those
    in the 1,500 characters after each such call, JavaScript escapes decoded."""
    out: list[str] = []
    for m in _CONTEXT_CALL.finditer(text):
        for value in _literals_after(text, m.end()):
            if value not in _PLUMBING and value not in out:
                out.append(value)
    return out


def _literals_after(text: str, end: int) -> Iterator[str]:
    """The string literals in the 1,500 characters after a context call that ends at ``end``."""
    start = end + (text[end : end + 1] in ("'", '"', "`"))  # past the method name's own quote
    for lit in _LITERAL.finditer(text, start, min(len(text), start + 1500)):
        yield _unescape(next(g for g in lit.groups() if g is not None))


def _news(judged: Callable[[str], Iterable[tuple[LintFinding, Sig]]], text: str, before: str) -> list[LintFinding]:
    """The findings ``judged`` gives on ``text`` whose signature it did not give on ``before``."""
    seen = {sig for _f, sig in judged(before)} if before else set()
    return [f for f, sig in judged(text) if sig not in seen]


def _context_judged(text: str) -> list[tuple[LintFinding, Sig]]:
    """The text pipeline's findings on each literal ``text`` hands the model."""
    from mcplock.lint.pipeline import text_findings

    return [found for s in model_context(text) for found in text_findings(s, "text (ui/update-model-context)")]


def _context_novelty(text: str, before: str) -> list[LintFinding]:
    """What the model context adds over the accepted one's, read as any added text is
    (:mod:`mcplock.lint.novelty`: a new destination in a sentence mcplock cannot read, or whose verb
    moves something) — the literal's URL is no origin the document contacts, but the model is told it."""
    from mcplock.lint.novelty import novelty_findings

    old = {"context": model_context(before)} if before else None
    where = "text (ui/update-model-context)"
    found = novelty_findings("content", {"context": model_context(text)}, old)
    return [LintFinding(f.rule, f.severity, f.message, where) for f in found]


def _new_scripts(text: str, before: str) -> list[str]:
    """The origins ``text`` loads a script from that ``before`` did not, sorted."""
    old_scripts = {_origin(u) for u in _script_sources(before)}
    return sorted({_origin(u) for u in _script_sources(text)} - old_scripts)


def _script_sources(text: str) -> list[str]:
    """The ``src`` of each ``<script>`` tag. Linear on any input: each tag is read once, up to its
    ``>`` (a regular expression over the whole text went back to every ``<script`` of a tag that
    never closes: 128 kB of ``<script `` took a minute)."""
    out: list[str] = []
    at = 0
    while (m := _SCRIPT_TAG.search(text, at)) is not None:
        end = text.find(">", m.end())
        tag = text[m.end() : len(text) if end < 0 else end]
        src = _SRC.search(tag)
        if src is not None:
            out.append(src.group(1))
        if end < 0:
            break
        at = end + 1
    return out


def _origins_named(text: str) -> set[str]:
    """The origins ``text`` names where it may contact them: not in a comment, a DOCTYPE or an
    ``xmlns`` value, not a namespace URI (:mod:`mcplock.lint.app_inert`: an honest App's bundled
    libraries name their licence, CDN and source map there)."""
    from mcplock.lint.app_inert import Inert, is_namespace

    if "://" not in text:
        return set()
    inert = Inert(text)
    return {
        m.group(1).lower()
        for m in _ORIGIN.finditer(text)
        if not inert.holds(m.start()) and not is_namespace(text, m.start())
    }


def _new_destinations(text: str, before: str, scripts: list[str]) -> list[LintFinding]:
    """The origins ``text`` names that ``before`` did not (a script's told already): critical where
    the document sends to it."""
    sends = {_origin(a or b) for a, b in _SENDS.findall(text)}
    new = _origins_named(text) - _origins_named(before) - set(scripts)
    return [_destination(o, sends) for o in sorted(new)]


def _destination(origin: str, sends: set[str]) -> LintFinding:
    if origin in sends:
        return LintFinding("app-network-destination", CRITICAL, f"sends data to {origin}", "text")
    return LintFinding("app-network-destination", HIGH, f"names {origin}", "text")


def _widened(ui: dict[str, Any], old_ui: dict[str, Any], replaced: bool) -> list[LintFinding]:
    """What ``_meta.ui`` newly allows: CSP domains, device permissions, and (when the document
    replaces an accepted one) a changed dedicated origin."""
    found = _csp_widened(ui, old_ui) + _new_permissions(ui, old_ui)
    if replaced and ui.get("domain") != old_ui.get("domain"):
        what = f"its origin changed from {old_ui.get('domain')!r} to {ui.get('domain')!r}"
        found.append(LintFinding("app-domain", HIGH, what, "_meta.ui.domain"))
    return found


def _csp_widened(ui: dict[str, Any], old_ui: dict[str, Any]) -> list[LintFinding]:
    return [
        LintFinding("app-csp-widened", HIGH, f"{key} now allows {dom}", f"_meta.ui.csp.{key}")
        for key in _CSP_KEYS
        for dom in sorted(_domains(ui, key) - _domains(old_ui, key))
    ]


def _new_permissions(ui: dict[str, Any], old_ui: dict[str, Any]) -> list[LintFinding]:
    return [
        LintFinding("app-permission", HIGH, f"requests the {perm} permission", "_meta.ui.permissions")
        for perm in sorted(_permissions(ui) - _permissions(old_ui))
    ]


def _as_news(found: list[LintFinding]) -> list[LintFinding]:
    """A new document's ``app-`` findings capped at ``medium``; hidden characters stay what they are."""
    return [
        LintFinding(f.rule, _LOWER.get(f.severity, f.severity), f.message, f.where) if f.rule.startswith("app-") else f
        for f in found
    ]


def app_findings(new: Any, old: Any = None) -> list[LintFinding]:
    """Findings on the App document ``new``; with ``old`` (the accepted one) only what is new."""
    text, before = _text(new), _text(old)
    scripts = _new_scripts(text, before)
    found = [LintFinding("app-script-source", CRITICAL, f"loads a script from {o}", "text") for o in scripts]
    found += _new_destinations(text, before, scripts)
    found += _news(lambda t: char_findings(t, "text"), text, before)
    found += _widened(_ui(new), _ui(old), old is not None)
    context = _news(_context_judged, text, before) if _CONTEXT_CALL.search(text) else []
    if context == [] and old is not None and _CONTEXT_CALL.search(text):
        context = _context_novelty(text, before)
    # what the model is told is judged like any text, never capped
    return (found if old is not None else _as_news(found)) + context
