"""JSON with comments (JSONC, as VS Code writes it): blank out comments and trailing commas.

The output has the same length and the same line breaks as the input, so a
``json.JSONDecodeError`` on it points at the right line and column of the file.

Each pass is one regular expression that steps over JSON strings whole (a string ends at its
closing quote, or, unterminated, at its line break) and matches only what it changes: the
text between is copied by the regular expression engine, not character by character in
Python (a 2,000-rule settings file read in milliseconds: issue 42.1).
"""

from __future__ import annotations

import re


class JsoncError(ValueError):
    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.line = line


def _blank(chunk: str) -> str:
    return "".join(c if c in "\r\n" else " " for c in chunk)


# a JSON string: an escape takes the next character whatever it is; an unterminated one stops
# at (and takes) its line break, or at the end of the text
_STRING = r'"(?:[^"\\\n]|\\[\s\S])*(?:"|\n|\\?\Z)'
_COMMENTS = re.compile(_STRING + r"|(?P<line>//[^\n]*)|(?P<block>/\*[\s\S]*?\*/)|(?P<open>/\*)")
_TRAILING = re.compile(_STRING + r"|(?P<comma>,)(?=[ \t\r\n]*[}\]])")


def strip_comments(text: str) -> str:
    """Replace ``// …`` and ``/* … */`` comments outside strings with spaces."""
    if "/" not in text:
        return text
    return _COMMENTS.sub(_comment, text)


def _comment(m: re.Match[str]) -> str:
    if m.lastgroup == "open":
        raise JsoncError("unterminated /* comment", m.string.count("\n", 0, m.start()) + 1)
    return m.group() if m.lastgroup is None else _blank(m.group())


def strip_trailing_commas(text: str) -> str:
    """Replace a ``,`` that is followed (after whitespace) by ``}`` or ``]`` with a space.

    Expects comments to be stripped already.
    """
    return _TRAILING.sub(lambda m: " " if m.lastgroup == "comma" else m.group(), text)


def to_json(text: str) -> str:
    return strip_trailing_commas(strip_comments(text))
