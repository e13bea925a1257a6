"""Definition hashes: ``"sha256:" + hex(sha256(canonical JSON))``.

The canonical form is RFC 8785 (JCS) with one extension: an integer beyond
±(2^53 − 1) is written as its exact decimal digits. JCS would first round such an
integer through a double (``2**63 - 1`` and ``2**63 - 2`` would hash the same, and the
bytes would not be the value the server sent); generated schemas carry int64 bounds, so
they must be pinnable. For every value JCS represents exactly the bytes are JCS's, so a
hash any other language computes with a JCS library stays the same.

JCS makes key order, whitespace and number spelling (``1`` vs ``1.0``) irrelevant. A value
with no canonical form at all (NaN, ±Infinity, a lone surrogate) is a :class:`HashError`
naming the item.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

import rfc8785

from mcplock.errors import HashError

PREFIX = "sha256:"


_MAX_SAFE = 2**53 - 1


def _plain(v: Any) -> bool:
    """True when ``json.dumps(sort_keys=True)`` is already RFC 8785 canonical for ``v``.

    That holds without floats (number spelling), without integers beyond 2^53, and when
    no object key has a character above U+D7FF (code-point order = UTF-16 order). String
    escaping is the same in both (short escapes, lowercase ``\\u00xx`` for other controls).
    Called once per value of every definition hashed (each ``check`` hashes the whole lock), so
    its decisions stay inline: a table of one function per type made hashing 28% slower.
    """
    t = type(v)  # exact types only: a subclass of str or int is not plain; a float never is
    if t is str or t is bool or v is None:
        return True
    if t is int:
        safe: bool = -_MAX_SAFE <= v <= _MAX_SAFE
        return safe
    if t is dict:
        for k, x in v.items():
            if type(k) is not str or (not k.isascii() and max(k) > "\ud7ff"):
                return False  # its code-point order would not be its UTF-16 order
            if not _plain(x):
                return False
        return True
    if t is list:
        return all(_plain(x) for x in v)
    return False


def _utf16_key(item: tuple[Any, Any]) -> bytes:
    k = item[0]
    if not isinstance(k, str):
        raise rfc8785.CanonicalizationError("object keys must be strings")
    try:
        return k.encode("utf-16-be")
    except UnicodeEncodeError:
        raise rfc8785.CanonicalizationError("input contains non-UTF-8 codepoints") from None


def _encode(v: Any, out: list[bytes]) -> None:
    """JCS of ``v`` into ``out``, big integers as their exact digits."""
    if _big_int(v):
        out.append(str(int(v)).encode("ascii"))
    elif isinstance(v, dict):
        _encode_object(v, out)
    elif isinstance(v, (list, tuple)):
        _encode_array(v, out)
    else:
        out.append(rfc8785.dumps(v))  # a scalar JCS represents (or a CanonicalizationError)


def _big_int(v: Any) -> bool:
    """An integer (not a bool) beyond ±(2^53 − 1): JCS would round it, the lock keeps its digits."""
    return isinstance(v, int) and not isinstance(v, bool) and not -_MAX_SAFE <= v <= _MAX_SAFE


def _encode_object(v: dict[Any, Any], out: list[bytes]) -> None:
    """Members in UTF-16 order of their keys."""
    out.append(b"{")
    for i, (k, x) in enumerate(sorted(v.items(), key=_utf16_key)):
        if i:
            out.append(b",")
        out.append(rfc8785.dumps(k))
        out.append(b":")
        _encode(x, out)
    out.append(b"}")


def _encode_array(v: list[Any] | tuple[Any, ...], out: list[bytes]) -> None:
    out.append(b"[")
    for i, x in enumerate(v):
        if i:
            out.append(b",")
        _encode(x, out)
    out.append(b"]")


def canonical(value: Any, *, what: str = "definition") -> bytes:
    quick = _plain_bytes(value)
    if quick is not None:
        return quick
    try:
        out: list[bytes] = []
        _encode(value, out)
        return b"".join(out)
    except (rfc8785.CanonicalizationError, ValueError, TypeError, RecursionError) as e:
        reason = "a lone surrogate (a string that is not Unicode text)" if "non-UTF-8" in str(e) else str(e)
        raise HashError(
            f"{what} holds a value that has no canonical JSON form: {reason}",
            hint="such a value (NaN, Infinity, a lone surrogate) cannot be pinned; "
            "ask the server's maintainers to send valid JSON",
        ) from None


def _plain_bytes(value: Any) -> bytes | None:
    """``json.dumps``'s bytes when they are already canonical (the fast path); None when the
    JCS encoder must write them (or name the problem: a lone surrogate, a value too deep)."""
    try:
        if not _plain(value):
            return None
        return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    except (UnicodeEncodeError, RecursionError):
        return None


def definition_hash(value: Any, *, what: str = "definition") -> str:
    return PREFIX + hashlib.sha256(canonical(value, what=what)).hexdigest()


_HEX64 = re.compile(r"[0-9a-f]{64}")


def is_hash(value: object) -> bool:
    # a compiled fullmatch, not a loop over 64 characters: `check` asks for every item of the lock
    return (
        isinstance(value, str)
        and len(value) == len(PREFIX) + 64
        and value.startswith(PREFIX)
        and _HEX64.fullmatch(value, len(PREFIX)) is not None
    )
