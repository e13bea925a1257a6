"""The private key of a ``private_key_jwt`` client (``--oauth-client-key``): read where the
lock says (a file path, or a ``${VAR}`` holding the PEM or its path), checked, and the JWS
algorithm it signs with. The key never reaches an error message, the lock or the store.

Only the OAuth path imports this module (``cryptography`` comes with the SDK's PyJWT).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from mcplock.errors import ProbeError
from mcplock.lock.spec import ServerSpec
from mcplock.lock.templates import expand

MAX_KEY_BYTES = 64 * 1024
_HINT = (
    "pass --oauth-client-key with the path of a PEM private key (PKCS#8 or traditional, unencrypted), "
    "or '${VAR}' with VAR holding the PEM or its path"
)


def _fail(spec: ServerSpec, what: str, hint: str = _HINT) -> ProbeError:
    where = spec.auth.client_key if spec.auth is not None else "?"
    return ProbeError("config", f"server `{spec.name}`: the OAuth client key `{where}` {what}", hint=hint)


def _key_path(value: str, environ: Mapping[str, str]) -> Path:
    """Where the key file is: ``~`` expanded, a relative path taken from the lock's directory
    (like the rest of a lock)."""
    path = Path(os.path.expanduser(value))
    if path.is_absolute():
        return path
    return Path(environ.get("MCPLOCK_PROJECT_DIR") or os.getcwd()) / path


def _read(spec: ServerSpec, value: str, environ: Mapping[str, str]) -> bytes:
    path = _key_path(value, environ)
    try:
        with path.open("rb") as f:
            data = f.read(MAX_KEY_BYTES + 1)
    except FileNotFoundError:
        raise _fail(spec, "names no file") from None
    except OSError as e:
        raise _fail(spec, f"cannot be read ({e.strerror or type(e).__name__})") from None
    if len(data) > MAX_KEY_BYTES:
        raise _fail(spec, "names a file too large to be a private key")
    return data


def load_client_key(spec: ServerSpec, environ: Mapping[str, str]) -> tuple[str, str]:
    """The PEM of ``spec``'s client key and the algorithm to sign with. Raises ProbeError."""
    assert spec.auth is not None and spec.auth.client_key is not None
    value = expand(spec.auth.client_key, environ, spec.secrets).strip()
    if not value:
        raise _fail(spec, "is empty: the variable is not set", hint="export the variable the template names")
    data = value.encode() if value.startswith("-----BEGIN") else _read(spec, value, environ)
    kind, default = _kind(spec, _private_key(spec, data))
    return data.decode("ascii", "replace"), _algorithm(spec, spec.auth.signing_alg, kind, default)


def _private_key(spec: ServerSpec, data: bytes) -> object:
    """The private key a PEM holds; an encrypted one, or what is no PEM private key, is refused."""
    from cryptography.hazmat.primitives.serialization import load_pem_private_key

    try:
        return load_pem_private_key(data, password=None)
    except TypeError:
        raise _fail(
            spec,
            "is encrypted",
            hint="give an unencrypted key (e.g. from a CI secret), or decrypt it with `openssl pkey`",
        ) from None
    except Exception:  # cryptography raises several types for a bad PEM (ValueError, UnsupportedAlgorithm…)
        raise _fail(spec, "is not a PEM private key") from None


def _algorithm(spec: ServerSpec, asked: str | None, kind: str, default: str) -> str:
    """The JWS algorithm to sign with: the one asked for (``--oauth-signing-alg``) when a key of
    this kind signs it (an RSA key signs every RS and PS one), else refused; the key's default
    when none is asked for."""
    if asked is None:
        return default
    if asked != default and not (kind == "RSA" and asked[:2] in ("RS", "PS")):
        raise _fail(spec, f"is an {kind} key, which cannot sign {asked}", hint=f"use --oauth-signing-alg {default}")
    return asked


def _kind(spec: ServerSpec, key: object) -> tuple[str, str]:
    """The key's type and the JWS algorithm it signs with by default; a key JWS cannot sign
    with (another type, another curve) is refused."""
    from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa

    if isinstance(key, rsa.RSAPrivateKey):
        return "RSA", "RS256"
    if isinstance(key, ed25519.Ed25519PrivateKey):
        return "Ed25519", "EdDSA"
    if not isinstance(key, ec.EllipticCurvePrivateKey):
        raise _fail(
            spec,
            f"is a {type(key).__name__.removesuffix('PrivateKey')} key",
            hint="use an RSA, EC (P-256/384/521) or Ed25519 key",
        )
    default = {"secp256r1": "ES256", "secp384r1": "ES384", "secp521r1": "ES512"}.get(key.curve.name, "")
    if not default:
        raise _fail(
            spec,
            f"is on the curve {key.curve.name}, which JWS does not sign with",
            hint="use a P-256, P-384 or P-521 key",
        )
    return "EC", default
