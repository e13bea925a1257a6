"""Definition hashes: ``"sha256:" + hex(sha256(RFC 8785 canonical JSON))``.

JCS makes key order, whitespace and number spelling (``1`` vs ``1.0``) irrelevant and
matches what any other language computes. A value JCS cannot represent (NaN,
integers beyond 2**53, lone surrogates) is a :class:`HashError` naming the item.
"""

from __future__ import annotations

import hashlib
import json
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
    """
    t = type(v)
    if t is str or t is bool or v is None:
        return True
    if t is int:
        return -_MAX_SAFE <= v <= _MAX_SAFE
    if t is dict:
        for k, x in v.items():
            if type(k) is not str or (not k.isascii() and max(k) > "\ud7ff"):
                return False
            if not _plain(x):
                return False
        return True
    if t is list:
        return all(_plain(x) for x in v)
    return False


def canonical(value: Any, *, what: str = "definition") -> bytes:
    try:
        plain = _plain(value)
    except RecursionError:
        plain = False
    if plain:
        try:
            return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
        except (UnicodeEncodeError, RecursionError):
            pass  # lone surrogates: let rfc8785 name the problem
    try:
        return rfc8785.dumps(value)
    except (rfc8785.CanonicalizationError, ValueError, TypeError, RecursionError) as e:
        raise HashError(
            f"{what} holds a value that RFC 8785 canonical JSON cannot represent: {e}",
            hint="such a value (NaN, an integer beyond 2^53, a lone surrogate) cannot be pinned; "
            "ask the server's maintainers to send valid JSON",
        ) from None


def definition_hash(value: Any, *, what: str = "definition") -> str:
    return PREFIX + hashlib.sha256(canonical(value, what=what)).hexdigest()


def is_hash(value: object) -> bool:
    return (
        isinstance(value, str)
        and value.startswith(PREFIX)
        and len(value) == len(PREFIX) + 64
        and all(c in "0123456789abcdef" for c in value[len(PREFIX):])
    )
