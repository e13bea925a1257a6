"""What an inventory may say of a URL or a path: never a credential, never whose machine it is.

- A URL keeps its scheme, host, port and path; its user info (``user:token@``), query
  (``?key=…``) and fragment are dropped — the places a credential rides in a URL.
- A path under the home directory is written ``~/…``.
"""

from __future__ import annotations

import os
from urllib.parse import urlsplit, urlunsplit


def endpoint(url: str | None) -> str | None:
    """``url`` without user info, query or fragment (None stays None; a value that is no URL
    is reduced to nothing rather than passed on)."""
    if not url:
        return None
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = parts.port
    except ValueError:
        return None
    if not parts.scheme or not host:
        return None
    netloc = f"[{host}]" if ":" in host else host
    if port is not None:
        netloc += f":{port}"
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def home_path(path: str | os.PathLike[str], home: str | None = None) -> str:
    """``path`` with the home directory written ``~`` (a relative path is left as it is)."""
    text = os.fspath(path)
    root = (home if home is not None else os.path.expanduser("~")).rstrip(os.sep)
    if root and (text == root or text.startswith(root + os.sep)):
        return "~" + text[len(root) :]
    return text
