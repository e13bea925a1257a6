"""JSON with comments (JSONC, as VS Code writes it): blank out comments and trailing commas.

The output has the same length and the same line breaks as the input, so a
``json.JSONDecodeError`` on it points at the right line and column of the file.
"""

from __future__ import annotations


class JsoncError(ValueError):
    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.line = line


def _blank(chunk: str) -> str:
    return "".join(c if c in "\r\n" else " " for c in chunk)


def _string_end(text: str, i: int) -> int:
    """The index just past the JSON string that opens at ``text[i]`` (an unterminated one
    stops at its line break: the JSON parser reports it)."""
    n = len(text)
    i += 1
    while i < n and text[i] != '"':
        if text[i] == "\\":
            i += 1
        elif text[i] == "\n":
            break
        i += 1
    return i + 1


def strip_comments(text: str) -> str:
    """Replace ``// …`` and ``/* … */`` comments outside strings with spaces."""
    out: list[str] = []
    i, n = 0, len(text)
    start = 0  # start of the pending verbatim run
    while i < n:
        if text[i] == '"':
            i = _string_end(text, i)
            continue
        end = _comment_end(text, i)
        if end is None:
            i += 1
            continue
        out.append(text[start:i])
        out.append(_blank(text[i:end]))
        i = start = end
    out.append(text[start:])
    return "".join(out)


def _comment_end(text: str, i: int) -> int | None:
    """The index just past the comment that opens at ``text[i]`` (a ``//`` one ends at its line
    break, which stays); None when none opens there."""
    opener = text[i : i + 2]
    if opener == "//":
        j = text.find("\n", i)
        return len(text) if j < 0 else j
    if opener == "/*":
        j = text.find("*/", i + 2)
        if j < 0:
            raise JsoncError("unterminated /* comment", text.count("\n", 0, i) + 1)
        return j + 2
    return None


def strip_trailing_commas(text: str) -> str:
    """Replace a ``,`` that is followed (after whitespace) by ``}`` or ``]`` with a space.

    Expects comments to be stripped already.
    """
    chars = list(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            i = _string_end(text, i)
            continue
        if c == "," and _closes_next(text, i + 1):
            chars[i] = " "
        i += 1
    return "".join(chars)


def _closes_next(text: str, j: int) -> bool:
    """Whether the first character from ``text[j]`` on that is not white space closes an object
    or an array."""
    n = len(text)
    while j < n and text[j] in " \t\r\n":
        j += 1
    return j < n and text[j] in "}]"


def to_json(text: str) -> str:
    return strip_trailing_commas(strip_comments(text))
