"""Whether the ``mcp-lock/1`` export beside the lock still says what the lock says (issue 42,
item 5): ``check`` reports an ``mcp-lock.json`` that a later ``disable``, ``accept`` or
``refresh`` left behind, and an ``mcp-lock.sig`` that signs another version of it, as it reports
host settings that fell behind (docs/interop.md, "Kept in step"). Nothing is rewritten: the
document may be signed, and only its signer can sign the new one.

Only the default place is looked at (``mcp-lock.json`` beside the lock, where ``export --format
mcp-lock-v1`` writes without ``-o``); a document mcplock did not write there (no ``dev.mcplock``
extension) is another tool's business and left alone.
"""

from __future__ import annotations

import os
from typing import Any

from mcplock.lock.model import Lock

DOCUMENT = "mcp-lock.json"
SIGNATURE = "mcp-lock.sig"


def _ours(doc: Any) -> bool:
    from mcplock.interop.produce import NAMESPACE

    entries = doc.get("entries") if isinstance(doc, dict) else None
    parts = [doc, *(entries if isinstance(entries, list) else [])]
    return any(
        isinstance(p, dict) and isinstance(p.get("extensions"), dict) and NAMESPACE in p["extensions"] for p in parts
    )


def stale(lock: Lock, lock_path: str) -> list[tuple[str, str, str]]:
    """(code, message, hint) for the export and its signature when they no longer match the lock."""
    directory = os.path.dirname(lock_path) or "."
    path = os.path.join(directory, DOCUMENT)
    if not os.path.exists(path):
        return []
    from mcplock.interop import agree, canonical, digests
    from mcplock.model.files import DOCUMENT_MAX, read_bounded

    shown = os.path.join(os.path.dirname(lock_path), DOCUMENT) if os.path.dirname(lock_path) else DOCUMENT
    again = "run `mcplock export --format mcp-lock-v1`"
    try:
        doc = canonical.loads(read_bounded(path, DOCUMENT_MAX))
    except (OSError, canonical.DocumentError) as e:
        why = e.strerror if isinstance(e, OSError) else e.message
        return [("export-error", f"{shown} cannot be read: {why}", f"restore it from git, or {again}")]
    if not _ours(doc):
        return []
    out: list[tuple[str, str, str]] = []
    differ = agree.compare(doc, lock)
    if differ:
        names = sorted({d.server for d in differ})
        out.append(
            (
                "export-stale",
                f"{shown} (mcp-lock/1) no longer matches the lock: {', '.join(names[:5])}"
                + (f" and {len(names) - 5} more" if len(names) > 5 else "")
                + " changed since it was exported",
                f"{again}, then sign it again if it is signed: `mcplock sign --key KEY --document {shown}`",
            )
        )
    out.extend(_signature(directory, shown, doc, digests))
    return out


def _signature(directory: str, shown: str, doc: Any, digests: Any) -> list[tuple[str, str, str]]:
    """The detached signature beside the document, when it signs another whole-lock digest."""
    sig = os.path.join(directory, SIGNATURE)
    if not os.path.exists(sig):
        return []
    from mcplock.interop.canonical import DocumentError, loads
    from mcplock.model.files import SMALL_MAX, read_bounded

    sig_shown = os.path.join(os.path.dirname(shown), SIGNATURE) if os.path.dirname(shown) else SIGNATURE
    try:  # only the digest it names is read here; `verify-lock --signature` verifies the signature
        env = loads(read_bounded(sig, SMALL_MAX))
        signed = env.get("lockfileDigest") if isinstance(env, dict) else None
        digest = digests.whole_lock_digest(doc)
    except OSError as e:
        return [("export-error", f"{sig_shown} cannot be read: {e.strerror or e}", f"sign {shown} again")]
    except (DocumentError, ValueError, TypeError, KeyError) as e:
        return [("export-error", f"{sig_shown} cannot be read: {e}", f"sign {shown} again")]
    if signed == digest:
        return []
    return [
        (
            "export-stale",
            f"{sig_shown} signs another version of {shown} (whole-lock digest {signed}, the document's is {digest})",
            f"sign it again: `mcplock sign --key KEY --document {shown}`",
        )
    ]
