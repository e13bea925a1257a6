"""`mcplock verify-lock`'s judgement of an mcp-lock/1 document (docs/interop.md): the reader's
problems, the empty-lock rule, the whole-lock digest (against one expected), a detached
signature over it, and whether the document agrees with the project's mcp.lock. The command
reads the file and renders the :class:`Verdict`."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mcplock.interop import digests, reader
from mcplock.interop.reader import Problem

if TYPE_CHECKING:
    from mcplock.interop.agree import Disagreement

UNREADABLE = ("canonical-form", "schema", "json")  # a document with one of these has no digest to speak of


@dataclass
class Verdict:
    """What verify-lock found: the document (None when it cannot be read), its problems in the
    order found, its whole-lock digest, and the lock it was compared with (None: not compared)
    with the disagreements."""

    doc: Any
    problems: list[Problem]
    digest: str | None
    compared: str | None = None
    disagreements: list[Disagreement] = field(default_factory=list)

    @property
    def code(self) -> int:
        """0 conforms (and agrees); 1 a rule broken, an empty lock, or a disagreement."""
        return 1 if self.problems or self.disagreements else 0

    @property
    def conforms(self) -> bool:
        """The document meets the format (an empty lock conforms; an enforcer still fails on it)."""
        return not [p for p in self.problems if p.rule != "empty-lock"]

    @property
    def entries(self) -> int:
        return len(self.doc.get("entries") or []) if isinstance(self.doc, dict) else 0


def verify_document(
    data: bytes,
    path: str,
    *,
    expect: str | None = None,
    signature: tuple[str, str] | None = None,
    lockfile: str | None = None,
) -> Verdict:
    """Judge the document ``data`` read from ``path``: ``expect``, the whole-lock digest it must
    have; ``signature``, (envelope path, public key path) that must sign that digest; ``lockfile``,
    the mcp.lock it must agree with when there is one (never the document itself)."""
    doc, problems = reader.read(data)
    problems.extend(_empty(doc, problems))
    digest = _digest(doc, problems)
    if expect is not None and digest != expect:
        problems.append(
            Problem("lock-digest", f"the document's whole-lock digest is {digest or 'none'}, not the expected {expect}")
        )
    if signature is not None:
        problems.extend(document_signature(*signature, digest))
    verdict = Verdict(doc, problems, digest)
    if lockfile is not None and isinstance(doc, dict) and _other_lock(lockfile, path):
        _compare_with_lock(verdict, doc, lockfile)
    return verdict


def _compare_with_lock(verdict: Verdict, doc: dict[str, Any], lockfile: str) -> None:
    """Where the document and the mcp.lock beside it disagree, into ``verdict``."""
    from mcplock.interop import agree
    from mcplock.lock.read import load

    verdict.compared = lockfile
    verdict.disagreements = agree.compare(doc, load(lockfile))


def _empty(doc: Any, problems: list[Problem]) -> list[Problem]:
    """An otherwise sound document with no entries: an enforcer fails on it (it pins nothing)."""
    if isinstance(doc, dict) and not problems and doc.get("entries") == []:
        return [
            Problem(
                "empty-lock",
                "the document has no entries: an enforcer fails on an empty lock (it pins nothing)",
                "/entries",
            )
        ]
    return []


def _digest(doc: Any, problems: list[Problem]) -> str | None:
    """The whole-lock digest of a document that reads as one (None otherwise)."""
    if not isinstance(doc, dict) or any(p.rule in UNREADABLE for p in problems):
        return None
    try:
        return digests.whole_lock_digest(doc)
    except (ValueError, TypeError, KeyError):
        return None


def _other_lock(lockfile: str, path: str) -> bool:
    """A lock exists there, and it is not the document being verified."""
    return os.path.exists(lockfile) and os.path.abspath(lockfile) != os.path.abspath(path)


def document_signature(path: str, key_path: str, digest: str | None) -> list[Problem]:
    """§8.4 for a document: the envelope at ``path`` verifies with the key and names ``digest``."""
    from mcplock.trust import signing

    pub = signing.load_public_key(key_path)
    env = signing.read_envelope(path)
    if env is None:
        raise signing.SigningInputError(f"no signature at {path}", hint="give the envelope's path to --signature")
    try:
        signing.verify_envelope(env, pub, path)
    except signing.SignatureError as e:
        return [Problem("signature", e.message)]
    if env["lockfileDigest"] != digest:
        return [
            Problem(
                "signature",
                f"{path} signs the lock digest {env['lockfileDigest']}, not this document's ({digest or 'none'})",
            )
        ]
    return []
