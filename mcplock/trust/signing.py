"""ed25519 signatures over the lock and the policy (docs/signing.md).

``mcp.lock.sig`` (beside the lock) is an ``mcp-lock-signature`` v1 envelope (the ``mcp-lock/1``
specification's §8.4 shape, its JSON Schema vendored in mcplock/interop/schemas):

- ``lockfileDigest``: the lock's canonical digest — ``sha256-<base64>`` of the RFC 8785 form of
  ``mcp.lock`` as data (every table and value the TOML holds; comments and layout do not count);
- ``policyDigest``: the same over the organisation's policy in effect when it was signed (absent
  when none was), so a lock signed under one rule book is not valid under another;
- ``publicKeyFingerprint``: ``sha256-<base64>`` of the public key's SPKI DER encoding;
- ``publicKey``: that SPKI DER, base64 (a member the schema allows; inside the signed payload),
  so a verifier holding only the fingerprint — the policy's ``[signing] keys`` — can check it;
- ``signature``: ed25519 over the canonical form of the envelope without ``signature``.

Keys: an OpenSSH ed25519 private key (``ssh-keygen -t ed25519``'s openssh-key-v1 file) or a
PKCS#8 PEM; public keys as an OpenSSH ``.pub`` line or a SubjectPublicKeyInfo PEM. ``cryptography``
is imported only here, and only when a key or a signature is read: commands that never meet
one (``check`` without ``[signing]``) do not pay for it.

Errors: a malformed envelope, an unknown algorithm, a key file that is not an ed25519 key —
:class:`SigningInputError` (exit 2); a signature that is missing, by another key, over another
lock or policy, or that does not verify — :class:`SignatureError` (exit 1: the gate fails).
"""

from __future__ import annotations

import base64
import json
import os
import re
import tomllib
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from mcplock.errors import McplockError
from mcplock.interop.canonical import DocumentError, canonical, loads, sri
from mcplock.trust.signing_keys import SignatureError as SignatureError
from mcplock.trust.signing_keys import SigningInputError as SigningInputError
from mcplock.trust.signing_keys import fingerprint as fingerprint
from mcplock.trust.signing_keys import load_private_key as load_private_key
from mcplock.trust.signing_keys import load_public_key as load_public_key
from mcplock.trust.signing_keys import public_key_from_der as public_key_from_der
from mcplock.trust.signing_keys import spki_der as spki_der

if TYPE_CHECKING:
    from mcplock.trust.org_policy import OrgPolicy

SCHEMA = "mcp-lock-signature"
VERSION = 1
ALGORITHM = "ed25519"
SIGN_HINT = "a holder of a key the policy lists signs it: `mcplock sign --key ~/.ssh/id_ed25519`"


def signature_path(lockfile: str) -> str:
    return lockfile + ".sig"


# -- digests ----------------------------------------------------------------------------------


def toml_digest(data: bytes, what: str) -> str:
    """The canonical digest of a TOML file's data (``mcp.lock``, a policy)."""
    try:
        value = tomllib.loads(data.decode("utf-8"))
        return sri(canonical(_plain(value)))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, ValueError) as e:
        raise SigningInputError(
            f"{what}: cannot be read as TOML to compute its digest ({e})",
            hint="fix the file (`mcplock check` names the problem), then sign again",
        ) from None


def _plain(v: Any) -> Any:
    """TOML's date and time values as their RFC 3339 text (JSON has no such type)."""
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_plain(x) for x in v]
    if hasattr(v, "isoformat"):
        return v.isoformat()
    return v


def lock_digest(lockfile: str) -> str:
    from mcplock.model.files import DOCUMENT_MAX, read_bounded

    try:
        data = read_bounded(lockfile, DOCUMENT_MAX)
    except FileNotFoundError:
        raise SigningInputError(
            f"no lock at {lockfile}", hint="create one with `mcplock init` or `mcplock add`"
        ) from None
    except OSError as e:
        raise SigningInputError(
            f"cannot read {lockfile}: {e.strerror or e}", hint="restore it from git (`git checkout -- mcp.lock`)"
        ) from None
    return toml_digest(data, lockfile)


# -- envelopes --------------------------------------------------------------------------------


def payload(envelope: dict[str, Any]) -> bytes:
    """What is signed: the canonical form of the envelope without ``signature``."""
    return canonical({k: v for k, v in envelope.items() if k != "signature"})


def now() -> str:
    t = datetime.now(UTC)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def sign(
    private_key: Any,
    lockfile_digest: str,
    policy_digest: str | None,
    signed_at: str | None = None,
    sequence: int | None = None,
) -> dict[str, Any]:
    """A complete envelope, in the specification's member order."""
    pub = private_key.public_key()
    env: dict[str, Any] = {
        "schema": SCHEMA,
        "version": VERSION,
        "algorithm": ALGORITHM,
        "lockfileDigest": lockfile_digest,
    }
    if policy_digest is not None:
        env["policyDigest"] = policy_digest
    env["publicKeyFingerprint"] = fingerprint(pub)
    env["publicKey"] = base64.b64encode(spki_der(pub)).decode("ascii")
    env["signedAt"] = signed_at or now()
    if sequence is not None:  # mcplock's member, inside the signed payload (trust/rollback.py)
        env["sequence"] = sequence
    env["signature"] = base64.b64encode(private_key.sign(payload(env))).decode("ascii")
    return env


def dumps(envelope: dict[str, Any]) -> bytes:
    return (json.dumps(envelope, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def parse_envelope(data: bytes, where: str) -> dict[str, Any]:
    """A well-formed v1 envelope, or :class:`SigningInputError` naming what is wrong."""
    hint = "sign the lock again (`mcplock sign --key KEY`), or restore the file from git"
    try:
        env = loads(data)
    except DocumentError as e:
        raise SigningInputError(f"{where}: not a signature envelope: {e.message}", hint=hint) from None
    if not isinstance(env, dict):
        raise SigningInputError(f"{where}: not a signature envelope (not a JSON object)", hint=hint)
    if _other_algorithm(env):
        raise SigningInputError(
            f"{where}: unknown signature algorithm {json.dumps(env['algorithm'])} "
            f"(mcp-lock-signature v1 knows only {ALGORITHM})",
            hint=hint,
        )
    problem = envelope_problem(env)
    if problem:
        raise SigningInputError(f"{where}: not a valid mcp-lock-signature v1 envelope: {problem}", hint=hint)
    if len(_signature_bytes(env)) != 64:
        raise SigningInputError(f"{where}: the signature is not 64 bytes of base64 (an ed25519 signature)", hint=hint)
    if "publicKey" in env and not isinstance(env["publicKey"], str):
        raise SigningInputError(f"{where}: publicKey must be a base64 string", hint=hint)
    return env


def _other_algorithm(env: dict[str, Any]) -> bool:
    """A v1 envelope of this schema that names another algorithm than the one v1 knows."""
    return (
        env.get("schema") == SCHEMA
        and env.get("version") == VERSION
        and "algorithm" in env
        and env["algorithm"] != ALGORITHM
    )


def _signature_bytes(env: dict[str, Any]) -> bytes:
    """The decoded signature (empty when it is not strict base64)."""
    try:
        return base64.b64decode(env["signature"], validate=True)
    except ValueError:
        return b""


_DIGEST = re.compile(r"sha256-[A-Za-z0-9+/]+={0,2}")
_TIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})")
_BASE64 = re.compile(r"[A-Za-z0-9+/]+={0,2}")
_REQUIRED = ("schema", "version", "algorithm", "lockfileDigest", "publicKeyFingerprint", "signedAt", "signature")


def envelope_problem(env: dict[str, Any]) -> str | None:
    """What makes ``env`` not an ``mcp-lock-signature`` v1 envelope (the vendored JSON Schema's
    rules, written out so that checking a signature does not import jsonschema: the guard starts
    with it), or None. tests/test_signing.py holds this to the schema."""
    for check in _ENVELOPE_CHECKS:
        problem = check(env)
        if problem is not None:
            return problem
    return None


def _missing_member(env: dict[str, Any]) -> str | None:
    missing = [k for k in _REQUIRED if k not in env]
    return f"the required member `{missing[0]}` is missing" if missing else None


def _constant_problem(env: dict[str, Any]) -> str | None:
    """``schema``, ``version`` and ``algorithm`` are v1's values, of their JSON types."""
    for k, want in (("schema", SCHEMA), ("version", VERSION), ("algorithm", ALGORITHM)):
        if env[k] != want or type(env[k]) is not type(want):
            return f"`{k}` must be {json.dumps(want)}"
    return None


def _digest_problem(env: dict[str, Any]) -> str | None:
    for k in ("lockfileDigest", "policyDigest", "publicKeyFingerprint"):
        if k in env and not _matches(_DIGEST, env[k]):
            return f"`{k}` is not a sha256-<base64> digest"
    return None


def _signed_at_problem(env: dict[str, Any]) -> str | None:
    if "sequence" in env and (
        not isinstance(env["sequence"], int) or isinstance(env["sequence"], bool) or env["sequence"] < 0
    ):
        return "`sequence` is not a non-negative integer"
    return None if _matches(_TIME, env["signedAt"]) else "`signedAt` is not an RFC 3339 timestamp"


def _signature_problem(env: dict[str, Any]) -> str | None:
    return None if _matches(_BASE64, env["signature"]) else "`signature` is not base64"


def _matches(form: re.Pattern[str], value: Any) -> bool:
    """A string of the whole ``form``."""
    return isinstance(value, str) and form.fullmatch(value) is not None


# the envelope's rules in the order they are checked (the members the others read first)
_ENVELOPE_CHECKS = (_missing_member, _constant_problem, _digest_problem, _signed_at_problem, _signature_problem)


def read_envelope(path: str) -> dict[str, Any] | None:
    """The envelope at ``path``, or None when there is none."""
    from mcplock.model.files import SMALL_MAX, NotRegularFile, read_bounded

    try:
        data = read_bounded(path, SMALL_MAX)
    except FileNotFoundError:
        return None
    except NotRegularFile as e:
        raise SigningInputError(
            f"cannot read {path}: {e.strerror}",
            hint=f"remove it (`rm {path}`) and sign again: `mcplock sign --key KEY`",
        ) from None
    except OSError as e:
        raise SigningInputError(f"cannot read {path}: {e.strerror or e}", hint="check the file's permissions") from None
    return parse_envelope(data, path)


def envelope_key(env: dict[str, Any], where: str) -> Any:
    """The public key the envelope carries, checked against its own fingerprint."""
    if "publicKey" not in env:
        raise SignatureError(
            f"{where} carries no publicKey: it can be checked only with the key itself",
            hint="give the key: `mcplock verify-signature --key KEY.pub`",
        )
    try:
        der = base64.b64decode(env["publicKey"], validate=True)
    except ValueError:
        raise SigningInputError(f"{where}: publicKey is not base64", hint="sign the lock again") from None
    if sri(der) != env["publicKeyFingerprint"]:
        raise SignatureError(
            f"{where}: publicKey does not have the fingerprint the envelope names (the envelope was edited)",
            hint="sign the lock again: `mcplock sign --key KEY`",
        )
    return public_key_from_der(der)


def verify_envelope(env: dict[str, Any], key: Any, where: str) -> None:
    """The signature is ``key``'s over the envelope (else :class:`SignatureError`)."""
    from cryptography.exceptions import InvalidSignature

    if fingerprint(key) != env["publicKeyFingerprint"]:
        raise SignatureError(
            f"{where} names the key {env['publicKeyFingerprint']}, not the key given ({fingerprint(key)})",
            hint="give the key that signed it, or sign again",
        )
    try:
        key.verify(base64.b64decode(env["signature"]), payload(env))
    except InvalidSignature:
        raise SignatureError(
            f"{where}: the signature does not verify: the envelope was changed after it was "
            "signed, or signed by another key",
            hint="sign the lock again: `mcplock sign --key KEY`",
        ) from None


@dataclass(frozen=True)
class Verified:
    fingerprint: str
    signed_at: str
    policy: bool  # a policy digest was bound


def _trusted_key(env: dict[str, Any], trusted: tuple[str, ...], where: str, policy_path: str | None) -> Any:
    """The key the envelope carries, when the policy lists its fingerprint."""
    if env["publicKeyFingerprint"] not in trusted:
        listed = ", ".join(trusted) if trusted else "none"
        raise SignatureError(
            f"{where} is signed by the key {env['publicKeyFingerprint']}, which is not one the "
            f"policy lists (signing.keys{f' in {policy_path}' if policy_path else ''}: {listed})",
            hint=SIGN_HINT + ", or add the signer's fingerprint to signing.keys",
        )
    return envelope_key(env, where)


def _policy_moved(signed: Any, in_effect: str | None, policy_path: str | None) -> str | None:
    """Why the policy the lock was signed under (its digest) is not the one in effect, or None."""
    if signed == in_effect:
        return None
    if in_effect is None:
        return "it was signed under a policy, and no policy is in effect now"
    if signed is None:
        return f"it was signed with no policy in effect, and {policy_path or 'a policy'} is in effect now"
    return f"the policy {policy_path or ''} changed after it was signed".replace("  ", " ")


def verify(
    lockfile: str,
    *,
    key: Any = None,
    trusted: tuple[str, ...] = (),
    policy_digest: str | None = None,
    policy_path: str | None = None,
) -> Verified:
    """``lockfile``'s signature checked: by ``key`` (a public key) or by one of the ``trusted``
    fingerprints; over this lock; under this policy (``policy_digest``: the digest of the policy
    in effect, None for none). Raises :class:`SignatureError` or :class:`SigningInputError`."""
    from mcplock.trust import rollback

    where = signature_path(lockfile)
    env = read_envelope(where)
    if env is None:
        raise SignatureError(f"{lockfile} has no signature ({where} does not exist)", hint=SIGN_HINT)
    if key is None:
        key = _trusted_key(env, trusted, where, policy_path)
    verify_envelope(env, key, where)
    current = lock_digest(lockfile)
    if env["lockfileDigest"] != current:
        raise SignatureError(
            f"{lockfile} changed after it was signed (signed {env['lockfileDigest']}, now {current})",
            hint="review the change (`git diff`, `mcplock list`), then sign it again: `mcplock sign --key KEY`",
        )
    rollback.refuse_rolled_back(lockfile, where, env)
    signed_policy = env.get("policyDigest")
    why = _policy_moved(signed_policy, policy_digest, policy_path)
    if why is not None:
        raise SignatureError(
            f"{where} does not cover the policy in effect: {why}",
            hint="sign again under the policy in effect: `mcplock sign --key KEY` "
            "(with the same --policy / MCPLOCK_POLICY)",
        )
    return Verified(env["publicKeyFingerprint"], env["signedAt"], signed_policy is not None)


def enforce(org: OrgPolicy | None, lockfile: str) -> Verified | None:
    """What ``check``, ``diff`` and the guard do before anything else: when the policy says
    ``[signing] require = true``, the lock's signature must be by a listed key, over this lock,
    under this policy. Nothing (and no import of ``cryptography``) otherwise."""
    if org is None or not org.signing_required:
        return None
    return verify(lockfile, trusted=org.signing_keys, policy_digest=org.digest, policy_path=policy_paths(org))


def policy_paths(org: OrgPolicy) -> str:
    """How messages name the policy in effect (every file of it)."""
    return " + ".join(p.path for p in org.parts)


def stale(lockfile: str) -> str | None:
    """When ``lockfile.sig`` exists but no longer matches the lock: the sentence that says so.
    Compares digests only (no key, no ``cryptography``)."""
    where = signature_path(lockfile)
    try:
        env = read_envelope(where)
        if env is None or env["lockfileDigest"] == lock_digest(lockfile):
            return None
    except McplockError:
        return None  # `mcplock verify-signature` says what is wrong with it
    return (
        f"{lockfile} changed, so {os.path.basename(where)} no longer matches it: sign it again "
        "(`mcplock sign --key KEY`) once the change is reviewed"
    )
