"""Lint family: instruction-like text aimed at the model.

``<IMPORTANT>``/``<SYSTEM>`` tags, "ignore previous instructions", "do not tell the user",
precondition orders ("before using this tool, read …"), chat-template control tokens
(``critical``), and HTML comments, hidden when rendered but read by the model (``high``).
Judged on the text as the model reads it (:func:`mcplock.lint.text.clean`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from mcplock.lint.finding import LintFinding
from mcplock.lint.text import excerpt
from mcplock.severity import CRITICAL, HIGH

_TAG_NAMES = (r"important|system|sys|instructions?|secret|hidden|admin|critical|context|prompt|assistant"
              r"|system[_-]?prompt|user[_-]?instructions?|tool[_-]?instructions?|override|priority")
# (pattern, what it is, substrings of the lowercased text one of which it needs: a cheap pre-check)
_INSTRUCTION_PATTERNS: list[tuple[re.Pattern[str], str, tuple[str, ...]]] = [
    (re.compile(p, re.I), m, k) for p, m, k in [
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
    (r"\bwithout\s+(?:telling|informing|notifying|alerting)\s+(?:the\s+)?users?\b",
     "an order to keep something from the user", ("without",)),
    (r"\b(?:hide|conceal|keep)\s+(?:this|it|that|these)\s+(?:secret\s+)?from\s+(?:the\s+)?users?\b",
     "an order to keep something from the user", ("from",)),
    (r"\bthe\s+user\s+(?:must|should|need)\s*(?:not|n'?t)\s+(?:know|see|be\s+told|find\s+out)\b",
     "an order to keep something from the user", ("user",)),
    (r"\bbefore\s+(?:using|calling|invoking|running|executing)\s+(?:this|the|any|these)\s+tools?\b[^.\n]{0,60}?"
     r"\b(?:read|call|send|fetch|invoke|pass|upload|include|cat)\b",
     "a precondition order aimed at the model", ("before",)),
    (r"\byou\s+(?:must|have\s+to|need\s+to|are\s+required\s+to)\s+(?:first\s+|always\s+|also\s+)?(?:call|invoke|run|read)\b",
     "an order to call or read something first", ("you",)),
    (r"\bpass\s+(?:its|their|the|this|that)\s+(?:full\s+)?contents?\b",
     "an order to pass file contents along", ("pass",)),
    (r"\b(?:reveal|print|output|repeat|leak|disclose)\b[^.\n]{0,20}\b(?:your|the)\s+system\s+prompt\b",
     "an attempt to extract the system prompt", ("system",)),
    (r"\[/?INST\]|<\|im_(?:start|end|sep)\|>|<\|(?:system|user|assistant|endoftext|eot_id|start_header_id)\|>"
     r"|<<\s*/?SYS\s*>>|<\s*/?\s*(?:start_of_turn|end_of_turn)\s*>", "a chat-template control token", ("[", "<")),
]]
_HTML_COMMENT = re.compile(r"<!--.*?-->", re.S)


def instruction_findings(t: str, low: str, where: str) -> Iterator[tuple[LintFinding, tuple[Any, ...]]]:
    """Findings in ``t`` (cleaned text; ``low`` its lower case), each with its signature."""
    seen: set[str] = set()
    for pat, what, keys in _INSTRUCTION_PATTERNS:
        if not any(k in low for k in keys):
            continue
        m = pat.search(t)
        if m and what not in seen:
            seen.add(what)
            yield (LintFinding("hidden-instructions", CRITICAL, f"instruction-like text aimed at the model "
                               f"({what}): {excerpt(t, m.start(), m.end())}", where),
                   ("hidden-instructions", what, m.group(0).lower()))
    m = _HTML_COMMENT.search(t) if "<!--" in t else None
    if m and m.group(0).strip("<!-> \n\t"):
        yield (LintFinding("hidden-instructions", HIGH, f"an HTML comment (hidden when rendered, read by the model): "
                           f"{excerpt(t, m.start(), m.end(), 20)}", where), ("html-comment", m.group(0)))
