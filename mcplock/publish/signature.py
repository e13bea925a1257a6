"""The detached signature of a surface statement: ``mcp-surface.json.sig``, an
``mcp-surface-signature`` v1 envelope in the style of the lock's (``mcp-lock-signature``,
:mod:`mcplock.trust.signing`, whose keys, fingerprints and signing this reuses):

- ``schema`` ``"mcp-surface-signature"``, ``version`` 1, ``algorithm`` ``"ed25519"``;
- ``surfaceDigest``: ``sha256-<base64>`` of the RFC 8785 form of the whole statement;
- ``name``: the statement's server name (inside the signed payload);
- ``publicKeyFingerprint`` (``sha256-<base64>`` of the key's SPKI DER), ``publicKey`` (that DER,
  base64), ``signedAt``;
- ``signature``: ed25519 over the canonical form of the envelope without ``signature``.

The schema name differs from the lock's, and is inside what is signed: a lock signature cannot
pass for a statement's, nor the other way round.
"""

from __future__ import annotations

import base64
import json
import os
import re
from dataclasses import dataclass
from typing import Any

from mcplock.errors import McplockError
from mcplock.publish.statement import Statement

SCHEMA = "mcp-surface-signature"
VERSION = 1
ALGORITHM = "ed25519"
_DIGEST = re.compile(r"sha256-[A-Za-z0-9+/]+={0,2}")
_REQUIRED = (
    "schema",
    "version",
    "algorithm",
    "surfaceDigest",
    "publicKeyFingerprint",
    "publicKey",
    "signedAt",
    "signature",
)
SIGN_AGAIN = "sign the statement again: `mcplock surface --sign --key KEY …`"


class StatementSignatureError(McplockError):
    """A statement's signature that does not vouch for it (exit 1)."""

    exit_code = 1
    code = "statement-signature"


@dataclass(frozen=True)
class Vouched:
    fingerprint: str
    signed_at: str


def envelope(st: Statement, private_key: Any, signed_at: str | None = None) -> dict[str, Any]:
    from mcplock.trust.signing import fingerprint, now, payload, spki_der

    pub = private_key.public_key()
    env: dict[str, Any] = {
        "schema": SCHEMA,
        "version": VERSION,
        "algorithm": ALGORITHM,
        "surfaceDigest": st.digest(),
        "name": st.name,
        "publicKeyFingerprint": fingerprint(pub),
        "publicKey": base64.b64encode(spki_der(pub)).decode("ascii"),
        "signedAt": signed_at or now(),
    }
    env["signature"] = base64.b64encode(private_key.sign(payload(env))).decode("ascii")
    return env


def sign_statement(st: Statement, output: str, key_path: str) -> tuple[str, str]:
    """Write ``OUTPUT.sig`` for the statement written at ``output``; (its path, the key's fingerprint)."""
    from mcplock.trust.signing import dumps, load_private_key

    env = envelope(st, load_private_key(key_path))
    path = output + ".sig"
    tmp = f"{path}.tmp-{os.getpid()}"
    with open(tmp, "wb") as fh:
        fh.write(dumps(env))
    os.replace(tmp, path)
    return path, str(env["publicKeyFingerprint"])


def _problem(env: Any) -> str | None:
    if not isinstance(env, dict):
        return "not a JSON object"
    missing = [k for k in _REQUIRED if k not in env]
    if missing:
        return f"the required member `{missing[0]}` is missing"
    for k, want in (("schema", SCHEMA), ("version", VERSION), ("algorithm", ALGORITHM)):
        if env[k] != want or type(env[k]) is not type(want):
            return f"`{k}` must be {json.dumps(want)}"
    for k in ("surfaceDigest", "publicKeyFingerprint"):
        if not isinstance(env[k], str) or not _DIGEST.fullmatch(env[k]):
            return f"`{k}` is not a sha256-<base64> digest"
    if not all(isinstance(env[k], str) for k in ("publicKey", "signedAt", "signature")):
        return "`publicKey`, `signedAt` and `signature` must be strings"
    return None


def read_envelope(data: bytes, where: str) -> dict[str, Any]:
    from mcplock.interop.canonical import DocumentError, loads

    try:
        env = loads(data)
    except DocumentError as e:
        raise StatementSignatureError(f"{where}: not a signature envelope: {e.message}", hint=SIGN_AGAIN) from None
    problem = _problem(env)
    if problem is not None:
        raise StatementSignatureError(f"{where}: not a valid {SCHEMA} v{VERSION} envelope: {problem}", hint=SIGN_AGAIN)
    out: dict[str, Any] = env
    return out


def verify(st: Statement, data: bytes, where: str, key: Any = None) -> Vouched:
    """The envelope in ``data`` is a valid signature over ``st`` by the key it carries (or by
    ``key`` when given). Raises :class:`StatementSignatureError` otherwise. Whether that key is
    one to trust is the caller's question (:mod:`mcplock.publish.publishers`)."""
    from mcplock.trust.signing import envelope_key, verify_envelope

    env = read_envelope(data, where)
    try:
        carried = envelope_key(env, where)
        verify_envelope(env, key if key is not None else carried, where)
    except McplockError as e:
        raise StatementSignatureError(e.message, hint=SIGN_AGAIN) from None
    if env["surfaceDigest"] != st.digest():
        raise StatementSignatureError(
            f"{where} signs another statement (signed {env['surfaceDigest']}, the statement is {st.digest()})",
            hint=SIGN_AGAIN,
        )
    return Vouched(env["publicKeyFingerprint"], env["signedAt"])
