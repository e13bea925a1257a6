"""Security lint of server-sent definitions (DESIGN §7).

Pure and fast (stdlib ``re``/``unicodedata`` only; it runs in ``list`` too): no I/O, no
printing. :func:`lint_definition` checks one definition — every string in it, keys included —
for text that hides or redirects behaviour; :func:`lint_servers` checks tool names across
servers (shadowing, one server's text naming another server's tools).

Severities: ``critical`` for what hides or redirects behaviour (invisible/bidi/tag characters,
terminal escapes, instruction-like text aimed at the model, an annotation flip toward "safe",
a definition that names another server's tools); ``high`` for shadowing and secrets paths
named without a read/send verb; ``medium``/``low``/``info`` for notes.

Messages may quote an excerpt of untrusted text: hidden characters in an excerpt are shown as
``\\uXXXX`` escapes already, and renderers escape messages again anyway.
"""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from dataclasses import dataclass
from typing import Any, Iterator

from mcplock.lint.schema import classify_schema_change

__all__ = [
    "LintFinding", "RULES", "SEVERITIES", "classify_schema_change", "cross_references", "foreign_tools",
    "lint_definition", "lint_servers", "max_severity", "references", "rename_finding", "severity_rank", "shadowing",
]

SEVERITIES = ("critical", "high", "medium", "low", "info")
_RANK = {s: i for i, s in enumerate(SEVERITIES)}


def severity_rank(s: str) -> int:
    """0 for critical … 4 for info (unknown strings rank below info)."""
    return _RANK.get(s, len(SEVERITIES))


def max_severity(*severities: str) -> str:
    known = [s for s in severities if s in _RANK]
    return min(known, key=_RANK.__getitem__) if known else "info"


@dataclass(frozen=True)
class LintFinding:
    rule: str
    severity: str  # "critical" | "high" | "medium" | "low" | "info"
    message: str
    where: str  # JSON path inside the definition ("description", "inputSchema.properties.q.description")

    def as_json(self) -> dict[str, str]:
        return {"rule": self.rule, "severity": self.severity, "message": self.message, "where": self.where}


RULES: dict[str, str] = {
    "hidden-unicode": "Zero-width or other invisible format characters (U+200B–U+200F, U+2060–U+2064, U+FEFF, "
                      "soft hyphen, runs of variation selectors) that hide text from a reviewer.",
    "bidi-control": "Bidirectional control characters (U+202A–U+202E, U+2066–U+2069) that make text read "
                    "differently from how it is stored.",
    "unicode-tag": "Unicode tag characters (U+E0000–U+E007F): invisible ASCII, the classic way to smuggle an "
                   "instruction to the model.",
    "ansi-escape": "Terminal escapes or other control characters (ESC, CSI, C0/C1 controls) that can rewrite "
                   "what a terminal shows.",
    "unusual-unicode": "Private-use, unassigned, surrogate or line/paragraph-separator code points that may "
                       "render as nothing.",
    "hidden-instructions": "Instruction-like text aimed at the model: <IMPORTANT>/<SYSTEM> tags, \"ignore previous "
                           "instructions\", \"do not tell the user\", chat-template tokens, chaining orders.",
    "sensitive-path": "Names a secrets location (~/.ssh, id_rsa, .aws/credentials, .env, /etc/passwd, .npmrc, "
                      ".netrc, gh config, keychain, MCP host configs); critical with a read/send verb.",
    "exfiltration-url": "Tells the model to send or upload data to a URL.",
    "annotation-flip": "An explicit annotation flip toward \"safe\": readOnlyHint false→true or destructiveHint "
                       "true→false. Annotations are self-declared and never trusted.",
    "annotations-declared": "Annotations declared for the first time; they are self-declared by the server, "
                            "not trusted, and leave the tool's approval unchanged.",
    "tool-shadowing": "A tool name that another server also offers (or one that differs only in case or "
                      "separators): the model may call the wrong one.",
    "cross-server-reference": "A definition that names another server's tool, the shape of a cross-server "
                              "hijack (\"before using this tool, call other_server_tool\").",
    "rename": "A tool removed and an identical tool added under a new name: reported as a rename.",
}

# --- characters ---------------------------------------------------------------------------

_ZW_RANGES = ((0x200B, 0x200F), (0x2060, 0x2064), (0xFEFF, 0xFEFF), (0x00AD, 0x00AD), (0x180E, 0x180E))
_BIDI = frozenset([*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x061C])
_ZWNJ, _ZWJ = 0x200C, 0x200D
_TAG_LO, _TAG_HI, _TAG_CANCEL = 0xE0000, 0xE007F, 0xE007F
_BLACK_FLAG = 0x1F3F4  # base of the emoji tag sequences (flags of England, Scotland, Wales)


def _is_vs(cp: int) -> bool:
    return 0xFE00 <= cp <= 0xFE0F or 0xE0100 <= cp <= 0xE01EF


def _is_zw(cp: int) -> bool:
    return any(lo <= cp <= hi for lo, hi in _ZW_RANGES)


def _u(ch: str) -> str:
    cp = ord(ch)
    return f"U+{cp:04X}"


def _esc(ch: str) -> str:
    cp = ord(ch)
    if cp < 0x100:
        return f"\\x{cp:02x}"
    return f"\\u{cp:04x}" if cp <= 0xFFFF else f"\\U{cp:08x}"


_HIDING = frozenset({"Cc", "Cf", "Zl", "Zp", "Co", "Cn", "Cs"})


def _visible(s: str) -> str:
    return "".join(_esc(c) if (c not in "\n\t" and unicodedata.category(c) in _HIDING) or _is_vs(ord(c)) else c
                   for c in s)


def _excerpt(s: str, start: int, end: int, width: int = 40) -> str:
    a, b = max(0, start - width), min(len(s), end + width)
    text = _visible(s[a:b]).replace("\n", " ")
    return ("…" if a > 0 else "") + text + ("…" if b < len(s) else "")


def _joinable(ch: str) -> bool:
    """A neighbour that makes ZWJ/ZWNJ legitimate: a non-ASCII letter, mark or symbol, or an
    emoji modifier/variation selector (emoji ZWJ sequences, Persian/Indic ZWNJ/ZWJ)."""
    if not ch or ch.isascii():
        return False
    cp = ord(ch)
    if _is_vs(cp) or 0x1F3FB <= cp <= 0x1F3FF:
        return True
    return unicodedata.category(ch)[0] in "LMS"


_PLAIN = re.compile(r"[^\x20-\x7e\n\t\r]")


def _char_findings(s: str, where: str) -> Iterator[tuple[LintFinding, tuple]]:
    n = len(s)
    reported: set[Any] = set()
    m = _PLAIN.search(s)
    while m is not None:
        i = m.start()
        ch = s[i]
        cp = ord(ch)
        # Unicode tags: decode the run; a well-formed emoji flag tag sequence is legitimate
        if _TAG_LO <= cp <= _TAG_HI:
            j = i
            while j < n and _TAG_LO <= ord(s[j]) <= _TAG_HI:
                j += 1
            run = s[i:j]
            body = "".join(chr(ord(c) - _TAG_LO) for c in run if 0xE0020 <= ord(c) <= 0xE007E)
            flag = (i > 0 and ord(s[i - 1]) == _BLACK_FLAG and ord(run[-1]) == _TAG_CANCEL
                    and 2 <= len(body) <= 7 and re.fullmatch(r"[a-z0-9]+", body) is not None)
            if not flag:
                yield (LintFinding("unicode-tag", "critical",
                                   f"{len(run)} invisible Unicode tag character(s) spelling "
                                   f"{json.dumps(body, ensure_ascii=True)}", where), ("unicode-tag", body))
            m = _PLAIN.search(s, j)
            continue
        if cp in _BIDI:
            if "bidi" not in reported:
                reported.add("bidi")
                yield (LintFinding("bidi-control", "critical",
                                   f"bidirectional control {_u(ch)} ({unicodedata.name(ch, '?')}): "
                                   f"{_excerpt(s, i, i + 1)}", where), ("bidi-control", cp))
            m = _PLAIN.search(s, i + 1)
            continue
        if cp == 0x1B or cp == 0x9B or unicodedata.category(ch) == "Cc":
            if ("ansi", cp) not in reported:
                reported.add(("ansi", cp))
                what = "an ANSI escape (ESC)" if cp == 0x1B else "a CSI introducer" if cp == 0x9B else "a control character"
                yield (LintFinding("ansi-escape", "critical", f"{what} {_u(ch)}: {_excerpt(s, i, i + 1)}", where),
                       ("ansi-escape", cp))
            m = _PLAIN.search(s, i + 1)
            continue
        if _is_vs(cp):
            j = i
            while j < n and _is_vs(ord(s[j])):
                j += 1
            if j - i >= 2:
                yield (LintFinding("hidden-unicode", "critical",
                                   f"a run of {j - i} variation selectors (can encode hidden bytes): "
                                   f"{_excerpt(s, i, j, 20)}", where), ("vs-run", j - i))
            m = _PLAIN.search(s, j)
            continue
        if cp in (_ZWJ, _ZWNJ):
            prev, nxt = s[i - 1] if i else "", s[i + 1] if i + 1 < n else ""
            if _joinable(prev) and _joinable(nxt):
                m = _PLAIN.search(s, i + 1)
                continue  # emoji ZWJ sequence, Persian ZWNJ, Indic conjunct control
        cat = unicodedata.category(ch)
        if _is_zw(cp) or cat == "Cf":
            key = ("zw", cp)
            if key not in reported:
                reported.add(key)
                yield (LintFinding("hidden-unicode", "critical",
                                   f"invisible character {_u(ch)} ({unicodedata.name(ch, 'format character')}): "
                                   f"{_excerpt(s, i, i + 1)}", where), ("hidden-unicode", cp))
            m = _PLAIN.search(s, i + 1)
            continue
        if cat in ("Co", "Cn", "Cs", "Zl", "Zp"):
            key = ("odd", cat)
            if key not in reported:
                reported.add(key)
                sev = "low" if cat in ("Zl", "Zp") else "medium"
                kind = {"Co": "private-use", "Cn": "unassigned", "Cs": "surrogate", "Zl": "line-separator",
                        "Zp": "paragraph-separator"}[cat]
                yield (LintFinding("unusual-unicode", sev, f"{kind} code point {_u(ch)}: {_excerpt(s, i, i + 1)}",
                                   where), ("unusual-unicode", cat))
        m = _PLAIN.search(s, i + 1)


# --- text patterns ------------------------------------------------------------------------

_TAG_NAMES = (r"important|system|sys|instructions?|secret|hidden|admin|critical|context|prompt|assistant"
              r"|system[_-]?prompt|user[_-]?instructions?|tool[_-]?instructions?|override|priority")
# (pattern, what it is, substrings of the lowercased text one of which it needs: a cheap pre-check)
_INSTRUCTION_PATTERNS: list[tuple[re.Pattern[str], str, tuple[str, ...]]] = [(re.compile(p, re.I), m, k) for p, m, k in [
    (rf"<\s*/?\s*(?:{_TAG_NAMES})\s*>", "a model-directed tag", ("<",)),
    (r"\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+)?(?:of\s+)?(?:the\s+|your\s+)?"
     r"(?:previous|prior|above|earlier|preceding|former|other|system)\s+"
     r"(?:instructions?|prompts?|directions?|rules|messages|context|guidelines)", "an order to ignore instructions",
     ("ignore", "disregard", "forget", "override")),
    (r"\b(?:do\s+not|don'?t|never|must\s+not|should\s+not)\s+(?:"
     r"(?:tell|inform|notify|alert|warn)\s+(?:(?:this|that|it|anything)\s+to\s+)?(?:the\s+)?users?\b"
     r"(?=\s*(?:[.,;:!)\]>]|$|(?:about|that|this|anything|what|you|we|it|how|why|if|where)\b))"
     r"|(?:tell|inform|notify|alert)\s+(?:the\s+)?users?\s+(?:about|of)\s+(?:this|that|it)\b"
     r"|(?:mention|reveal|disclose|show|say|explain|report)\s+(?:this|that|it|anything|any\s+of\s+this|these\s+\w+"
     r"|this\s+\w+|(?:this|that|the)\s+(?:step|instruction|note|action|request)s?)\s+to\s+(?:the\s+)?users?\b)",
     "an order to keep something from the user", ("user",)),
    (r"\bwithout\s+(?:telling|informing|notifying|alerting)\s+(?:the\s+)?users?\b", "an order to keep something from the user",
     ("without",)),
    (r"\b(?:hide|conceal|keep)\s+(?:this|it|that|these)\s+(?:secret\s+)?from\s+(?:the\s+)?users?\b",
     "an order to keep something from the user", ("from",)),
    (r"\bthe\s+user\s+(?:must|should|need)\s*(?:not|n'?t)\s+(?:know|see|be\s+told|find\s+out)\b",
     "an order to keep something from the user", ("user",)),
    (r"\bbefore\s+(?:using|calling|invoking|running|executing)\s+(?:this|the|any|these)\s+tools?\b[^.\n]{0,60}?"
     r"\b(?:read|call|send|fetch|invoke|pass|upload|include|cat)\b", "a precondition order aimed at the model", ("before",)),
    (r"\byou\s+(?:must|have\s+to|need\s+to|are\s+required\s+to)\s+(?:first\s+|always\s+|also\s+)?(?:call|invoke|run|read)\b",
     "an order to call or read something first", ("you",)),
    (r"\bpass\s+(?:its|their|the|this|that)\s+(?:full\s+)?contents?\b", "an order to pass file contents along", ("pass",)),
    (r"\b(?:reveal|print|output|repeat|leak|disclose)\b[^.\n]{0,20}\b(?:your|the)\s+system\s+prompt\b",
     "an attempt to extract the system prompt", ("system",)),
    (r"\[/?INST\]|<\|im_(?:start|end|sep)\|>|<\|(?:system|user|assistant|endoftext|eot_id|start_header_id)\|>"
     r"|<<\s*/?SYS\s*>>|<\s*/?\s*(?:start_of_turn|end_of_turn)\s*>", "a chat-template control token", ("[", "<")),
]]
_HTML_COMMENT = re.compile(r"<!--.*?-->", re.S)

_SENSITIVE = re.compile(
    r"(?:~|\$HOME|%USERPROFILE%)?[/\\]?\.ssh\b|\bid_(?:rsa|dsa|ecdsa|ed25519)\b|\.aws[/\\](?:credentials|config)\b"
    r"|(?<![\w.$-])\.env(?:\.[A-Za-z]+)?\b(?![-/])|/etc/(?:passwd|shadow|sudoers)\b|(?<![\w-])\.npmrc\b|(?<![\w-])\.netrc\b"
    r"|(?<![\w-])\.pypirc\b|\.config[/\\]gh\b|\.git-credentials\b|\.docker[/\\]config\.json\b|\.kube[/\\]config\b"
    r"|\.gnupg\b|\bkeychains?\b|\.cursor[/\\]mcp\.json\b|\bclaude_desktop_config\.json\b|\.bash_history\b"
    r"|\.zsh_history\b|\bwallet\.dat\b",
    re.I,
)
_SENSITIVE_KEYS = ("ssh", "id_", "aws", "env", "/etc/", "rc", "config", "credentials", "gnupg", "keychain",
                   "mcp.json", "_history", "wallet")
# imperative read/send verbs (an order to the model); descriptive "reads"/"uses" stay high, not critical
_VERB = re.compile(
    r"\b(?:read|cat|send|upload|include|pass|attach|post|forward|exfiltrate|copy|leak|transmit|dump|share|append"
    r"|embed|insert)\b", re.I)
_EXFIL = re.compile(
    r"\b(?:send|sends|forward|forwards|upload|uploads|post|posts|exfiltrate|transmit|leak|copy|report|beacon)\b"
    r"[^.\n]{0,80}?\bto\s+<?(?:https?|wss?|ftp)://[^\s>'\"]+", re.I)
# a sentence ends at . ! ? followed by white space (so "~/.ssh/id_rsa" stays whole) or at a line end
_SENTENCE = re.compile(r"(?:[^.!?\n]|[.!?]+(?=[^\s.!?]))+[.!?]*")


def _drop_hidden(m: re.Match[str]) -> str:
    c = m.group(0)
    return "" if unicodedata.category(c) in _HIDING or _is_vs(ord(c)) else c


@functools.lru_cache(maxsize=32768)
def _clean(s: str) -> str:
    """The text as a model reads it: NFKC (fullwidth and styled letters folded), hidden characters dropped."""
    t = unicodedata.normalize("NFKC", s)
    return _PLAIN.sub(_drop_hidden, t) if _PLAIN.search(t) else t


def _text_findings(s: str, where: str) -> Iterator[tuple[LintFinding, tuple]]:
    if len(s) < 4:
        return
    t = _clean(s)
    seen: set[str] = set()
    low = t.lower()
    for pat, what, keys in _INSTRUCTION_PATTERNS:
        if not any(k in low for k in keys):
            continue
        m = pat.search(t)
        if m and what not in seen:
            seen.add(what)
            yield (LintFinding("hidden-instructions", "critical", f"instruction-like text aimed at the model "
                               f"({what}): {_excerpt(t, m.start(), m.end())}", where),
                   ("hidden-instructions", what, m.group(0).lower()))
    m = _HTML_COMMENT.search(t) if "<!--" in t else None
    if m and m.group(0).strip("<!-> \n\t"):
        yield (LintFinding("hidden-instructions", "high", f"an HTML comment (hidden when rendered, read by the model): "
                           f"{_excerpt(t, m.start(), m.end(), 20)}", where), ("html-comment", m.group(0)))
    paths: dict[str, tuple[str, int, int]] = {}
    sensitive = any(k in low for k in _SENSITIVE_KEYS) and _SENSITIVE.search(t) is not None
    for sent in _SENTENCE.finditer(t) if sensitive else ():
        for m in _SENSITIVE.finditer(sent.group(0)):
            token = m.group(0).lower()
            verb = _VERB.search(sent.group(0)) is not None
            prev = paths.get(token)
            if prev is None or (verb and prev[0] != "critical"):
                paths[token] = ("critical" if verb else "high", sent.start() + m.start(), sent.start() + m.end())
    if paths:
        sev = "critical" if any(v[0] == "critical" for v in paths.values()) else "high"
        a = min(v[1] for v in paths.values())
        b = max(v[2] for v in paths.values())
        how = " with an instruction to read or send it" if sev == "critical" else ""
        names = ", ".join(repr(k) for k in paths)
        plural = "s" if len(paths) > 1 else ""
        yield (LintFinding("sensitive-path", sev, f"names the secrets location{plural} {names}{how}: "
                           f"{_excerpt(t, a, b, 30)}", where), ("sensitive-path", tuple(sorted(paths)), sev))
    m = _EXFIL.search(t) if "://" in t else None
    if m:
        yield (LintFinding("exfiltration-url", "high", f"tells the model to send data to a URL: "
                           f"{_excerpt(t, m.start(), m.end(), 20)}", where), ("exfiltration-url", m.group(0).lower()))


# --- walking definitions ------------------------------------------------------------------


def _strings(value: Any, path: str) -> Iterator[tuple[str, str]]:
    """(where, text) for every string in ``value``, keys included."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for k, v in value.items():
            sub = f"{path}.{k}" if path else str(k)
            if isinstance(k, str):
                yield sub, k
            yield from _strings(v, sub)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _strings(v, f"{path}[{i}]")


_HERE = "\x00where\x00"  # stands for the JSON path in cached findings


@functools.lru_cache(maxsize=32768)
def _cached_char(s: str) -> tuple[tuple[LintFinding, tuple], ...]:
    return tuple(_char_findings(s, _HERE))


@functools.lru_cache(maxsize=32768)
def _cached_text(s: str) -> tuple[tuple[LintFinding, tuple], ...]:
    return tuple(_text_findings(s, _HERE))


def _placed(found: tuple[tuple[LintFinding, tuple], ...], where: str) -> list[tuple[LintFinding, tuple]]:
    """Cached findings of one string, put at ``where`` (schemas repeat the same strings a lot)."""
    out = []
    for f, sig in found:
        f = LintFinding(f.rule, f.severity, f.message.replace(_HERE, where), where)
        out.append((f, tuple(where if x == _HERE else x for x in sig)))
    return out


def _raw(kind: str, definition: Any) -> list[tuple[LintFinding, tuple]]:
    out: list[tuple[LintFinding, tuple]] = []
    root = "instructions" if isinstance(definition, str) else ""
    seen_text: set[tuple[str, str]] = set()
    for where, s in _strings(definition, root):
        found = _cached_char(s)
        if found:
            out.extend(_placed(found, where))
        if (where, s) not in seen_text:  # a key and its value path: check the text once per path
            seen_text.add((where, s))
            found = _cached_text(s)
            if found:
                out.extend(_placed(found, where))
    return out


def _sig(f: LintFinding, sig: tuple) -> tuple:
    return (f.rule, f.where, sig)


def _annotation_findings(old: Any, new: Any) -> list[LintFinding]:
    if not isinstance(new, dict):
        return []
    na = new.get("annotations")
    if not isinstance(na, dict):
        return []
    oa = old.get("annotations") if isinstance(old, dict) else None
    oa = oa if isinstance(oa, dict) else {}
    out: list[LintFinding] = []
    if oa.get("readOnlyHint") is False and na.get("readOnlyHint") is True:
        out.append(LintFinding("annotation-flip", "critical", "readOnlyHint flipped from false to true: the tool now "
                               "claims to be read-only; annotations are self-declared and not trusted",
                               "annotations.readOnlyHint"))
    elif oa.get("destructiveHint") is True and na.get("readOnlyHint") is True:
        out.append(LintFinding("annotation-flip", "critical", "a tool that declared destructiveHint: true now claims "
                               "readOnlyHint: true; annotations are self-declared and not trusted",
                               "annotations.readOnlyHint"))
    if oa.get("destructiveHint") is True and na.get("destructiveHint") is False:
        out.append(LintFinding("annotation-flip", "critical", "destructiveHint flipped from true to false: the tool "
                               "now claims not to be destructive; annotations are self-declared and not trusted",
                               "annotations.destructiveHint"))
    if not out:
        first = sorted(k for k in ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")
                       if k in na and k not in oa)
        if first:
            decl = ", ".join(f"{k}: {json.dumps(na[k])}" for k in first)
            out.append(LintFinding("annotations-declared", "medium", f"declares {decl} for the first time; "
                                   "annotations are self-declared by the server and not trusted, and the tool's "
                                   "approval is unchanged", "annotations"))
    return out


def lint_definition(kind: str, definition: Any, *, old: Any = None, name: str = "") -> list[LintFinding]:
    """Security findings for one definition (a dict; a str for instructions).

    With ``old`` (the accepted definition of a changed item) only text findings that are new
    are reported, and annotations are judged old → new (a flip toward "safe" is critical;
    annotations declared for the first time are a medium note, never a flip).
    """
    if definition is None:
        return []
    found = _raw(kind, definition)
    if old is not None:
        before = {_sig(f, s) for f, s in _raw(kind, old)}
        found = [(f, s) for f, s in found if _sig(f, s) not in before]
    out = [f for f, _ in found]
    if kind == "tool" and old is not None:
        out.extend(_annotation_findings(old, definition))
    out.sort(key=lambda f: (severity_rank(f.severity), f.where, f.rule))
    return out


# --- across servers -----------------------------------------------------------------------


def _norm_name(name: str) -> str:
    t = unicodedata.normalize("NFKC", name).casefold()
    return re.sub(r"[\s_\-.]+", "", t)


def _distinctive(name: str) -> bool:
    """Names specific enough that a mention is a reference, not an ordinary word."""
    return len(name) >= 6 and (("_" in name or "-" in name) or re.search(r"[a-z][A-Z]", name) is not None)


_TOKEN = re.compile(r"[\w.\-]+")
_QUOTED = re.compile(r"[`'\"“‘]([^`'\"”’\s]{6,})[`'\"”’]")


def references(text: str, names: set[str] | frozenset[str] | dict[str, Any]) -> list[str]:
    """Which of ``names`` (tool identifiers) ``text`` names: an exact identifier of length >= 6
    shaped like one (snake_case, kebab-case, camelCase), or one of length >= 6 in backticks or
    quotes. Ordinary words ("search", "read") never count. Linear in the text, not in ``names``."""
    t = _clean(text)
    hits: set[str] = set()
    for m in _TOKEN.finditer(t):
        tok = m.group(0)
        for cand in (tok, tok.strip(".-")):
            if cand in names and _distinctive(cand):
                hits.add(cand)
                break
    for m in _QUOTED.finditer(t):
        cand = m.group(1)
        if cand in names:
            hits.add(cand)
    return sorted(hits)


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


def cross_references(definition: Any, foreign: dict[str, list[str]], *, old: Any = None) -> list[LintFinding]:
    """``cross-server-reference`` findings for one definition (tool, prompt or instructions text)
    naming a tool from ``foreign`` (see :func:`foreign_tools`); with ``old``, only new mentions."""
    if not foreign or definition is None:
        return []
    before: set[tuple[str, str]] = set()
    if old is not None:
        for where, s in _strings(old, "instructions" if isinstance(old, str) else ""):
            if where != "name":
                before.update((where, h) for h in references(s, foreign))
    out = []
    for where, s in _strings(definition, "instructions" if isinstance(definition, str) else ""):
        if where == "name":
            continue
        for hit in references(s, foreign):
            if (where, hit) in before:
                continue
            out.append(LintFinding(
                "cross-server-reference", "critical",
                f"names `{hit}`, a tool of server {', '.join(sorted(set(foreign[hit])))}: a definition that steers "
                "the model toward another server's tools", where))
    return out


def shadowing(tools_by_server: dict[str, Any]) -> dict[tuple[str, str], list[LintFinding]]:
    """``tool-shadowing`` findings keyed by (server, tool)."""
    out: dict[tuple[str, str], list[LintFinding]] = {}
    by_norm: dict[str, list[tuple[str, str]]] = {}
    for server, tools in tools_by_server.items():
        for tool in tools:
            by_norm.setdefault(_norm_name(tool), []).append((server, tool))
    for group in by_norm.values():
        if len({s for s, _ in group}) < 2:
            continue
        for server, tool in group:
            others = sorted(f"{s}/{t}" for s, t in group if s != server)
            exact = any(t == tool for s, t in group if s != server)
            msg = (f"tool name `{tool}` is also offered by {', '.join(others)}" if exact else
                   f"tool name `{tool}` differs only in case or separators from {', '.join(others)}")
            out.setdefault((server, tool), []).append(
                LintFinding("tool-shadowing", "high", msg + ": the model may call the wrong server's tool", "name"))
    return out


def lint_servers(tools_by_server: dict[str, dict[str, Any]]) -> dict[tuple[str, str], list[LintFinding]]:
    """Cross-server findings keyed by (server, tool): shadowing and references to another server's tools."""
    out = shadowing(tools_by_server)
    for server, tools in tools_by_server.items():
        foreign = foreign_tools(tools_by_server, server)
        for tool, definition in tools.items():
            found = cross_references(definition, foreign)
            if found:
                out.setdefault((server, tool), []).extend(found)
    return out


def rename_finding(old_name: str) -> LintFinding:
    return LintFinding("rename", "info", f"renamed from `{old_name}` (the definition is otherwise identical)", "name")
