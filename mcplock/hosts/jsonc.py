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
        c = text[i]
        if c == '"':
            i = _string_end(text, i)
        elif c == "/" and i + 1 < n and text[i + 1] == "/":
            out.append(text[start:i])
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(_blank(text[i:j]))
            i = start = j
        elif c == "/" and i + 1 < n and text[i + 1] == "*":
            out.append(text[start:i])
            j = text.find("*/", i + 2)
            if j < 0:
                raise JsoncError("unterminated /* comment", text.count("\n", 0, i) + 1)
            out.append(_blank(text[i : j + 2]))
            i = start = j + 2
        else:
            i += 1
    out.append(text[start:])
    return "".join(out)


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
        if c == ",":
            j = i + 1
            while j < n and text[j] in " \t\r\n":
                j += 1
            if j < n and text[j] in "}]":
                chars[i] = " "
        i += 1
    return "".join(chars)


def to_json(text: str) -> str:
    return strip_trailing_commas(strip_comments(text))
