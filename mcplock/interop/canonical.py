"""Canonical bytes and digests of ``mcp-lock/1`` (spec §8.1, §8.2).

- The canonical form is RFC 8785 (JCS) of the value, as UTF-8: object members sorted by their
  names' UTF-16 code units, numbers written as ECMAScript writes a double (``1e-7``, ``1e+21``).
  An integer beyond ±(2^53 − 1) is canonicalized as the double it is to every JSON reader that
  reads numbers as doubles (JavaScript's ``JSON.parse``, the reference implementation's), so
  ``9223372036854775807`` hashes as ``9223372036854775808`` would: the same bytes any other
  conforming tool computes. (``mcp.lock``'s own definition hashes keep such integers exact:
  mcplock.lock.hashing; that is mcplock's format, this is the open one.)
- Before anything is canonicalized, :func:`loads` refuses an object with two member names that
  are equal after Unicode NFC normalization (or equal outright: a JSON parser keeps one of two
  duplicates silently), and values JSON has no canonical form for (NaN, Infinity).
- A digest is ``sha256-<standard base64 with padding>`` (SRI style).
"""

from __future__ import annotations

import base64
import hashlib
import json
import unicodedata
from typing import Any

import rfc8785

_MAX_SAFE = 2**53 - 1


class DocumentError(ValueError):
    """Bytes that are not a JSON document the format accepts; ``rule`` names why."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(message)
        self.rule = rule
        self.message = message


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    seen: dict[str, str] = {}
    for k, v in pairs:
        if k in out:
            raise DocumentError("duplicate-key", f"an object has the member name {k!r} twice")
        nfc = unicodedata.normalize("NFC", k)
        if nfc in seen:
            raise DocumentError(
                "nfc-duplicate-key",
                f"an object has two member names equal after Unicode NFC normalization: "
                f"{seen[nfc]!a} and {k!a} (spec §8.2)",
            )
        seen[nfc] = k
        out[k] = v
    return out


def _constant(name: str) -> Any:
    raise DocumentError("json", f"{name} is not a JSON value")


def loads(data: bytes) -> Any:
    """The JSON value of ``data`` (UTF-8), or a :class:`DocumentError` naming the rule broken."""
    if data.startswith(b"\xef\xbb\xbf"):
        raise DocumentError("json", "the document starts with a UTF-8 byte-order mark; JSON text has none")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise DocumentError("json", f"not UTF-8 text (byte {e.start})") from None
    try:
        return json.loads(text, object_pairs_hook=_pairs, parse_constant=_constant)
    except json.JSONDecodeError as e:
        raise DocumentError("json", f"not valid JSON: {e.msg} at line {e.lineno}, column {e.colno}") from None
    except DocumentError:
        raise
    except ValueError:  # Python's bound on integer digits (sys.get_int_max_str_digits)
        raise DocumentError(
            "json", "a number has more digits than mcplock reads (4,300): no JSON reader holds it exactly"
        ) from None
    except RecursionError:
        raise DocumentError("json", "nested too deeply to read") from None


def _doubles(v: Any) -> Any:
    """``v`` with every integer beyond the safe range as the double a JSON reader makes of it."""
    if _unsafe_int(v):
        try:
            return float(v)
        except OverflowError:  # beyond a double: JSON.parse reads Infinity, which JCS cannot write
            raise ValueError(
                f"an integer of {_digits(v)} digits is beyond what a double holds, so it has no canonical form"
            ) from None
    if isinstance(v, dict):
        return {k: _doubles(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_doubles(x) for x in v]
    return v


def _unsafe_int(v: Any) -> bool:
    """An integer (not a bool) beyond ±(2^53 − 1): a JSON reader holds it as a double."""
    return isinstance(v, int) and not isinstance(v, bool) and not -_MAX_SAFE <= v <= _MAX_SAFE


def _digits(v: int) -> str:
    """How many decimal digits ``v`` has, without converting it (which Python bounds)."""
    import math

    return f"about {int(math.log10(abs(v))) + 1:,}"


def canonical(value: Any) -> bytes:
    """RFC 8785 bytes of ``value``; a ``ValueError`` when it has none (NaN, a lone surrogate)."""
    try:
        return bytes(rfc8785.dumps(_doubles(value)))
    except rfc8785.CanonicalizationError as e:
        raise ValueError(f"no canonical JSON form: {e}") from None
    except RecursionError:
        raise ValueError("no canonical JSON form: nested too deeply") from None


def sri(data: bytes) -> str:
    """``sha256-<base64>`` of ``data``."""
    return "sha256-" + base64.b64encode(hashlib.sha256(data).digest()).decode("ascii")


def digest(value: Any) -> str:
    """The §8.1 digest of ``value``'s canonical form."""
    return sri(canonical(value))


def sri_from_hex(value: str) -> str | None:
    """``sha256:<hex>`` (mcplock's and OCI's spelling) as ``sha256-<base64>``, else None."""
    if not value.startswith("sha256:"):
        return None
    try:
        raw = bytes.fromhex(value[len("sha256:") :])
    except ValueError:
        return None
    return "sha256-" + base64.b64encode(raw).decode("ascii") if len(raw) == 32 else None
