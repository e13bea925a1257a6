"""Definition hashes: ``"sha256:" + hex(sha256(RFC 8785 canonical JSON))``.

JCS makes key order, whitespace and number spelling (``1`` vs ``1.0``) irrelevant and
matches what any other language computes. A value JCS cannot represent (NaN,
integers beyond 2**53, lone surrogates) is a :class:`HashError` naming the item.
"""

from __future__ import annotations

import hashlib
from typing import Any

import rfc8785

from mcplock.errors import HashError

PREFIX = "sha256:"


def canonical(value: Any, *, what: str = "definition") -> bytes:
    try:
        return rfc8785.dumps(value)
    except (rfc8785.CanonicalizationError, ValueError, TypeError) as e:
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
