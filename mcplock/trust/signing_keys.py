"""The keys and errors of signing (docs/signing.md; :mod:`mcplock.trust.signing` re-exports them):
an OpenSSH ed25519 private key (``ssh-keygen -t ed25519``'s openssh-key-v1 file, with or without a
passphrase) or a PKCS#8 PEM; public keys as an OpenSSH ``.pub`` line or a SubjectPublicKeyInfo
PEM; the fingerprint (``sha256-<base64>`` of the SPKI DER). ``cryptography`` is imported only
inside the functions that read a key.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from mcplock.errors import McplockError
from mcplock.interop.canonical import sri


class SigningInputError(McplockError):
    """A key file or an envelope that cannot be used at all: exit 2."""

    exit_code = 2
    code = "signing-input"


class SignatureError(McplockError):
    """The signature does not vouch for this lock under this policy: exit 1 (the gate fails)."""

    exit_code = 1
    code = "signature"


# -- keys -------------------------------------------------------------------------------------


def _read_key_file(path: str) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read(1 << 20)
    except OSError as e:
        raise SigningInputError(
            f"cannot read the key {path}: {e.strerror or e}", hint="check the path given to --key"
        ) from None


def _not_ed25519(path: str, key: object) -> SigningInputError:
    kind = type(key).__name__.lstrip("_").replace("PrivateKey", "").replace("PublicKey", "") or "another kind"
    return SigningInputError(
        f"{path} is not an ed25519 key (it is {kind})",
        hint="make one with `ssh-keygen -t ed25519 -f ~/.ssh/mcplock_ed25519` (mcplock signs with ed25519 only)",
    )


def _parse_private_key(data: bytes, password: bytes | None, path: str) -> Any:
    """The key in ``data`` by its armour: an OpenSSH private key, a PEM private key; a public
    key or anything else is a :class:`SigningInputError` saying what to give instead."""
    from cryptography.hazmat.primitives import serialization

    if b"-----BEGIN OPENSSH PRIVATE KEY-----" in data:
        return serialization.load_ssh_private_key(data, password=password)
    if b"-----BEGIN" in data and b"PRIVATE KEY-----" in data:
        return serialization.load_pem_private_key(data, password=password)
    if data.lstrip().startswith((b"ssh-", b"-----BEGIN PUBLIC KEY")):
        raise SigningInputError(
            f"{path} is a public key; signing needs the private key",
            hint="give --key the private key (e.g. ~/.ssh/id_ed25519, not the .pub)",
        )
    raise SigningInputError(
        f"{path} is not a private key mcplock reads (an OpenSSH private key or a PKCS#8 PEM)",
        hint="make one with `ssh-keygen -t ed25519`",
    )


def _unreadable(path: str, e: Exception, password: bytes | None, encrypted: bool = False) -> SigningInputError:
    """What cryptography's refusal of a key file means: a passphrase missing or wrong, a
    passphrase this install cannot open (bcrypt), or a file that is no key it reads."""
    if encrypted and password and isinstance(e, ValueError):  # OpenSSH: "Corrupt data: broken checksum"
        return SigningInputError(
            f"wrong passphrase for {path}",
            hint="type it again, or set MCPLOCK_KEY_PASSPHRASE to the key's passphrase",
        )
    if isinstance(e, (ValueError, TypeError)):
        reason = str(e)
        if "password" in reason.lower() or "encrypted" in reason.lower() or "passphrase" in reason.lower():
            return SigningInputError(
                f"{path} is protected by a passphrase"
                + (" (and it is not the one in MCPLOCK_KEY_PASSPHRASE)" if password else ""),
                hint="run `mcplock sign` at a terminal (it asks for the passphrase), or set MCPLOCK_KEY_PASSPHRASE "
                "(in CI, from a secret)",
            )
        return SigningInputError(
            f"{path}: not a key mcplock can read ({reason})", hint="give an OpenSSH ed25519 private key or a PKCS#8 PEM"
        )
    if "bcrypt" in str(e):  # an OpenSSH key with a passphrase: its KDF needs the bcrypt package
        return SigningInputError(
            f"{path} is an OpenSSH key protected by a passphrase, which this mcplock "
            "cannot open (that needs the `bcrypt` package)",
            hint="reinstall mcplock (it depends on `bcrypt`: see the README, Install), or sign with a "
            "PKCS#8 PEM key (an encrypted one reads MCPLOCK_KEY_PASSPHRASE)",
        )
    return SigningInputError(
        f"{path}: not a key mcplock can read ({type(e).__name__}: {e})",
        hint="give an OpenSSH ed25519 private key or a PKCS#8 PEM",
    )


def openssh_encrypted(data: bytes) -> bool:
    """Whether ``data`` is an OpenSSH private key protected by a passphrase (its cipher is not
    ``none``: ``ssh-keygen``'s default when one is typed)."""
    import base64
    import binascii
    import re

    m = re.search(rb"-----BEGIN OPENSSH PRIVATE KEY-----(.*?)-----END OPENSSH PRIVATE KEY-----", data, re.S)
    if m is None:
        return False
    try:
        blob = base64.b64decode(b"".join(m.group(1).split()))
    except (binascii.Error, ValueError):
        return False
    magic = b"openssh-key-v1\0"
    if not blob.startswith(magic) or len(blob) < len(magic) + 4:
        return False
    n = int.from_bytes(blob[len(magic) : len(magic) + 4], "big")
    return blob[len(magic) + 4 : len(magic) + 4 + n] != b"none"


def load_private_key(path: str, ask: Callable[[str], str] | None = None) -> Any:
    """An ed25519 private key from an OpenSSH private key file or a PKCS#8 PEM. A key protected
    by a passphrase reads it from ``$MCPLOCK_KEY_PASSPHRASE`` (CI), else from ``ask`` (the CLI's
    prompt at a terminal; None: no one to ask)."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    data = _read_key_file(path)
    encrypted = openssh_encrypted(data)
    if encrypted:
        import bcrypt  # noqa: F401  # the KDF cryptography runs on a passphrase-protected OpenSSH key
    secret = os.environ.get("MCPLOCK_KEY_PASSPHRASE")
    if not secret and encrypted and ask is not None:
        secret = ask(f"passphrase for {path}: ")
    password = secret.encode("utf-8") if secret else None
    try:
        key = _parse_private_key(data, password, path)
    except SigningInputError:
        raise
    except Exception as e:  # ValueError, TypeError, cryptography's UnsupportedAlgorithm and the like
        raise _unreadable(path, e, password, encrypted) from None
    if not isinstance(key, Ed25519PrivateKey):
        raise _not_ed25519(path, key)
    return key


def load_public_key(path: str) -> Any:
    """An ed25519 public key from an OpenSSH ``.pub`` line, a SubjectPublicKeyInfo PEM, or a
    private key file (its public half)."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    data = _read_key_file(path)
    stripped = data.strip()
    try:
        if stripped.startswith(b"ssh-") or stripped.startswith(b"ecdsa-") or stripped.startswith(b"sk-"):
            key: Any = serialization.load_ssh_public_key(stripped.splitlines()[0])
        elif b"-----BEGIN PUBLIC KEY-----" in data:
            key = serialization.load_pem_public_key(data)
        elif b"PRIVATE KEY-----" in data:
            return load_private_key(path).public_key()
        else:
            raise SigningInputError(
                f"{path} is not a public key mcplock reads (an OpenSSH .pub line or a PEM public key)",
                hint="give the .pub file `ssh-keygen -t ed25519` wrote",
            )
    except SigningInputError:
        raise
    except Exception as e:
        raise SigningInputError(
            f"{path}: not a public key mcplock can read ({type(e).__name__}: {e})",
            hint="give an OpenSSH ed25519 .pub file or a PEM public key",
        ) from None
    if not isinstance(key, Ed25519PublicKey):
        raise _not_ed25519(path, key)
    return key


def spki_der(public_key: Any) -> bytes:
    from cryptography.hazmat.primitives import serialization

    der: bytes = public_key.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    return der


def fingerprint(public_key: Any) -> str:
    """``sha256-<base64>`` of the key's SPKI DER encoding (the spec's ``publicKeyFingerprint``)."""
    return sri(spki_der(public_key))


def public_key_from_der(der: bytes) -> Any:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    try:
        key = serialization.load_der_public_key(der)
    except Exception:
        raise SigningInputError(
            "the signature's publicKey is not a DER public key", hint="sign the lock again: `mcplock sign --key KEY`"
        ) from None
    if not isinstance(key, Ed25519PublicKey):
        raise SigningInputError(
            "the signature's publicKey is not an ed25519 key", hint="sign the lock again with an ed25519 key"
        )
    return key
