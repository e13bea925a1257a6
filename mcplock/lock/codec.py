"""Lossless, reviewable encoding of wire definitions into lock tables, and back.

A definition (the JSON object a server sent) becomes the keys of its TOML table:

* the key field (``name`` for tools/prompts, ``uriTemplate`` for resource templates,
  ``uri`` for resources, App documents and resource content) is the table's key and is not repeated;
* text fields (``title``, ``description``, ``name``, ``mimeType``, ``text`` — a document's
  content) holding a string are
  TOML strings (multi-line when they have newlines), so a PR diff shows the changed line;
* JSON fields (``inputSchema`` → ``input-schema``, ``outputSchema``, ``annotations``,
  ``icons``, ``execution``, ``_meta`` → ``meta``, ``arguments``) are pretty, key-sorted
  JSON text in multi-line strings;
* anything else — fields a future spec adds, or a text field holding a non-string —
  goes into one ``extra`` JSON object, so nothing the server sent is lost.

Characters that hide text (control, format/zero-width, bidi, tag, private-use and
unassigned code points) are always written as ``\\uXXXX`` escapes, so a reviewer sees
them in the diff; a line of text that would look like a git conflict marker or a TOML table
header (``[server.x]``) is escaped too, so only mcplock's own tables start a line with ``[``.
"""

from __future__ import annotations

import json
import re
import zlib
from typing import Any

from mcplock.text.untrusted import confusable, hides, not_nfc

# wire field -> lock key
TEXT_FIELDS = {"title": "title", "description": "description", "name": "name", "mimeType": "mime-type", "text": "text"}
JSON_FIELDS = {
    "inputSchema": "input-schema",
    "outputSchema": "output-schema",
    "annotations": "annotations",
    "icons": "icons",
    "execution": "execution",
    "_meta": "meta",
    "arguments": "arguments",
}
EXTRA = "extra"
KEY_FIELD = {
    "tool": "name",
    "prompt": "name",
    "resource-template": "uriTemplate",
    "resource": "uri",
    "ui": "uri",
    "skill": "uri",
    "content": "uri",
}
_LOCK_TO_TEXT = {v: k for k, v in TEXT_FIELDS.items()}
_LOCK_TO_JSON = {v: k for k, v in JSON_FIELDS.items()}
DEFINITION_KEYS = frozenset([*_LOCK_TO_TEXT, *_LOCK_TO_JSON, EXTRA])

_MARKERS = ("<<<<<<<", "=======", ">>>>>>>")


class DecodeError(ValueError):
    """A stored field that cannot be turned back into JSON (message says which)."""


def _u(ch: str) -> str:
    cp = ord(ch)
    return f"\\u{cp:04X}" if cp <= 0xFFFF else f"\\U{cp:08X}"


# --- TOML string rendering ---------------------------------------------------------------

_SIMPLE = {"\\": "\\\\", "\b": "\\b", "\t": "\\t", "\f": "\\f", "\r": "\\r", '"': '\\"', "\n": "\\n"}


# what a basic string may have to escape: a short escape, a control character, anything beyond
# ASCII (printable ASCII never hides text); the rest is copied by the regex engine, not a loop. Written
# as the complement of printable ASCII without the quote and the backslash: the same set as
# ``[\\"\x00-\x1f\x7f-\U0010ffff]``, which costs ~4 ms to compile on every start of `check`
_BASIC_ODD = re.compile(r"[^ !#-\[\]-~]")


def toml_basic(s: str) -> str:
    """A single-line TOML basic string, quotes included."""
    return '"' + _BASIC_ODD.sub(_basic_match, s) + '"'


def _basic_match(m: re.Match[str]) -> str:
    return _basic_char(m.group())


def _basic_char(ch: str) -> str:
    """One character inside a basic string: a short escape, a ``\\u`` escape if it hides text
    (a printable ASCII character never does), or itself."""
    if ch in _SIMPLE:
        return _SIMPLE[ch]
    if not (ch.isascii() and ch.isprintable()) and hides(ch):
        return _u(ch)
    return ch


def toml_key(s: str) -> str:
    """A name as a quoted TOML key: a basic string in which, besides what :func:`toml_basic`
    escapes, every character that would let the name pass for another is a ``\\u`` escape —
    NFC-changing (``cafe\\u0301``) and look-alike (``\\u0455earch``) ones — so a pull request
    that adds a look-alike tool shows it apart in the lock's diff. The same string when read."""
    if s.isascii():
        return toml_basic(s)
    odd = not_nfc(s) | confusable(s)
    if not odd:
        return toml_basic(s)
    return '"' + "".join(_u(ch) if i in odd else _basic_char(ch) for i, ch in enumerate(s)) + '"'


#: a document's line longer than this is folded in the lock (``toml_multiline(wrap=True)``)
WRAP_OVER = 400
_FOLD_MIN, _FOLD_MAX = 8, 300  # a folded piece: at least this long, at most this long
_FOLD_AFTER = frozenset(">;},")


def toml_multiline(s: str, *, wrap: bool = False) -> str:
    """The inside of a multi-line basic string (without the delimiters).

    ``wrap``: a line longer than :data:`WRAP_OVER` characters (a minified App bundle is a few
    lines of 100 kB) is folded with TOML's line-ending backslash, which a reader removes with the
    newline: the value is the same string, and a pull request shows the piece that changed, not
    one changed line of 100 kB. A piece ends after ``>``, ``;``, ``}`` or ``,`` where the text
    before it says so (:func:`_folds`: an edit moves the breaks only near it), at 300 characters
    at the latest, and never before whitespace (which the line-ending backslash would trim too)."""
    # One loop over the characters, its decisions inline: this writes every description and
    # document of the lock (a call per character here cost 40% of writing a 2,000-tool lock).
    out: list[str] = []
    n = len(s)
    at_line_start = True
    i = 0
    fold = _folds(s) if wrap else set()
    while i < n:
        ch = s[i]
        if i in fold:
            out.append("\\\n")
            at_line_start = True
        if at_line_start and (ch == "[" or s.startswith(_MARKERS, i)):
            # never let server text look like a table header or a conflict marker
            out.append(_u(ch))
            i += 1
            at_line_start = False
            continue
        if ch == "\n":
            out.append("\n")
            at_line_start = True
            i += 1
            continue
        at_line_start = False
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"' if (i + 1 == n or s[i + 1] == '"') else '"')
        elif ch == "\t":
            out.append("\t")
        elif ch == "\r":
            out.append("\\r")
        elif hides(ch):
            out.append(_u(ch))
        else:
            out.append(ch)
        i += 1
    # the leading newline is trimmed by TOML; the trailing "\" + newline trims itself
    return "\n" + "".join(out) + "\\\n"


def _folds(s: str) -> set[int]:
    """Where a long line of ``s`` is folded: the indexes a new piece starts at. The breaks are
    chosen by the content around them (content-defined chunking): after a break character whose
    preceding 16 characters hash to 0 mod 8, so an edit moves only the breaks next to it and the
    rest of the line folds as before; at most 300 characters a piece."""
    out: set[int] = set()
    start = 0
    for line in s.split("\n"):
        end = start + len(line)
        if len(line) > WRAP_OVER:
            out.update(_line_folds(s, start, end))
        start = end + 1
    return out


def _line_folds(s: str, start: int, end: int) -> list[int]:
    """The folds of the one long line ``s[start:end]``."""
    out: list[int] = []
    piece = start
    for i in range(start + 1, end):
        if s[i] not in " \t" and (_content_break(s, start, piece, i) or i - piece >= _FOLD_MAX):
            out.append(i)
            piece = i
    return out


def _content_break(s: str, start: int, piece: int, i: int) -> bool:
    """Whether the content says a piece (begun at ``piece``) may end before ``i``: after a break
    character, the piece long enough, and the 16 characters before ``i`` hashing to 0 mod 8."""
    return (
        s[i - 1] in _FOLD_AFTER
        and i - piece >= _FOLD_MIN
        and zlib.crc32(s[max(start, i - 16) : i].encode("utf-8", "surrogatepass")) % 8 == 0
    )


def json_text(value: Any) -> str:
    """Pretty, key-sorted JSON; hiding characters inside strings escaped as JSON \\u escapes."""
    text = json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False)
    if any(hides(m.group()) for m in _BEYOND_ASCII.finditer(text)):
        text = _BEYOND_ASCII.sub(_json_match, text)
    return text


# what json.dumps leaves unescaped and may hide text: only characters beyond printable ASCII
_BEYOND_ASCII = re.compile(r"[^\x00-\x7e]")


def _json_match(m: re.Match[str]) -> str:
    c = m.group()
    return _json_escape(c) if hides(c) else c


def _json_escape(c: str) -> str:
    """A JSON ``\\u`` escape of ``c``: a surrogate pair beyond the BMP."""
    cp = ord(c)
    if cp <= 0xFFFF:
        return f"\\u{cp:04x}"
    cp -= 0x10000
    return f"\\u{0xD800 + (cp >> 10):04x}\\u{0xDC00 + (cp & 0x3FF):04x}"


def _reject_constant(name: str) -> Any:
    raise DecodeError(f"{name} is not valid JSON")


def parse_json(text: str) -> Any:
    return json.loads(text, parse_constant=_reject_constant)


# --- definitions <-> fields --------------------------------------------------------------


def encode_definition(kind: str, definition: dict[str, Any]) -> dict[str, tuple[str, Any]]:
    """Lock key -> ("text" | "json", value) for every field but the key field."""
    key_field = KEY_FIELD[kind]
    fields: dict[str, tuple[str, Any]] = {}
    extra: dict[str, Any] = {}
    for wire, value in definition.items():
        if wire == key_field:
            continue
        if wire in TEXT_FIELDS and isinstance(value, str):
            fields[TEXT_FIELDS[wire]] = ("text", value)
        elif wire in JSON_FIELDS:
            fields[JSON_FIELDS[wire]] = ("json", value)
        else:
            extra[wire] = value
    if extra:
        fields[EXTRA] = ("json", extra)
    return fields


def decode_definition(kind: str, key: str, table: dict[str, Any]) -> dict[str, Any]:
    """Inverse of :func:`encode_definition`, from a tomllib table (unknown keys ignored)."""
    definition: dict[str, Any] = {KEY_FIELD[kind]: key}
    for lock_key, value in table.items():
        if lock_key in _LOCK_TO_TEXT:
            definition[_LOCK_TO_TEXT[lock_key]] = _decode_text(lock_key, value)
        elif lock_key == EXTRA:
            definition.update(_decode_extra(value))
        elif lock_key in _LOCK_TO_JSON:
            definition[_LOCK_TO_JSON[lock_key]] = _decode_json(lock_key, value)
    return definition


def _decode_text(lock_key: str, value: Any) -> str:
    if not isinstance(value, str):
        raise DecodeError(f"`{lock_key}` must be a string")
    return value


def _decode_json(lock_key: str, value: Any) -> Any:
    """A JSON field's value: the string of JSON it is stored as, parsed."""
    if not isinstance(value, str):
        raise DecodeError(f"`{lock_key}` must be a string of JSON")
    try:
        return parse_json(value)
    except (ValueError, DecodeError) as e:
        raise DecodeError(f"`{lock_key}` is not valid JSON: {e}") from None


def _decode_extra(value: Any) -> dict[str, Any]:
    """The wire fields kept in ``extra``: a JSON object."""
    parsed = _decode_json(EXTRA, value)
    if not isinstance(parsed, dict):
        raise DecodeError("`extra` must be a JSON object")
    return parsed


def has_definition(table: dict[str, Any]) -> bool:
    return any(k in DEFINITION_KEYS for k in table)
