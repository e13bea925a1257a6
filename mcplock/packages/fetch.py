"""One GET for everything mcplock reads from a registry or an index over the network (the MCP
Registry, npm, PyPI, a wheel's metadata, an MCPB bundle): a bounded body and redirects with rules.

- **A cap on every body** (docs/failing-safe.md, "Round 4"): the body is read in chunks and the
  read stops as soon as it passes the limit, so a registry that answers 300 MiB (or never stops)
  costs at most the limit in memory; the error states the limit. A ``Content-Length`` above it
  is refused before the body is read.
- **Redirects are followed by hand** (at most :data:`MAX_REDIRECTS`): within the same scheme and
  host silently; to another host (or from ``http`` up to ``https``) with a note naming where it
  went; from ``https`` down to ``http`` never — that would let anyone on the path answer.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from urllib.parse import urljoin, urlsplit

from mcplock.packages.errors import RegistryError

TIMEOUT = 30.0
MAX_REDIRECTS = 5
MiB = 1024 * 1024
#: the default cap: far above any MCP Registry answer, npm package document or PyPI project of an MCP server
MAX_BODY = 64 * MiB


def _stderr_note(text: str) -> None:
    from mcplock.text.untrusted import sanitize

    sys.stderr.write(f"note: {sanitize(text, 600)}\n")
    sys.stderr.flush()


#: where the notes about redirects go (the CLI's stderr; a test or a library caller may replace it)
note: Callable[[str], None] = _stderr_note


def _origin(url: str) -> tuple[str, str]:
    parts = urlsplit(url)
    return parts.scheme.lower(), (parts.netloc or "").lower()


def get(
    url: str, what: str, *, limit: int = MAX_BODY, accept: str | None = None, timeout: float = TIMEOUT
) -> tuple[int, bytes]:
    """(status, body) of ``GET url``; a body over ``limit`` bytes, a redirect down to plain HTTP,
    too many redirects or a network failure: :class:`RegistryError` (exit 3)."""
    import httpx2

    headers = {"Accept": accept} if accept else {}
    start = current = url
    for _ in range(MAX_REDIRECTS + 1):
        try:
            with httpx2.stream("GET", current, timeout=timeout, follow_redirects=False, headers=headers) as r:
                if r.is_redirect and r.headers.get("location"):
                    target = urljoin(current, r.headers["location"])
                    _check_redirect(start, current, target, what)
                    current = target
                    continue
                return r.status_code, _read(r, current, what, limit)
        except httpx2.HTTPError as e:
            raise RegistryError(
                "registry-unreachable",
                f"cannot reach the registry for {what}: {current} ({e})",
                hint="check the network (or the registry URL), then run the command again",
            ) from None
    raise RegistryError(
        "registry-unreachable",
        f"the registry redirected more than {MAX_REDIRECTS} times for {what}: {start}",
        hint="check the registry URL; the lock was not changed",
    )


def _check_redirect(start: str, current: str, target: str, what: str) -> None:
    (s0, _), (s1, h1), (s2, h2) = _origin(start), _origin(current), _origin(target)
    if s2 not in ("http", "https"):
        raise RegistryError(
            "registry-redirect",
            f"the registry redirected {what} to {target}, which is not an http(s) URL; nothing was read from it",
            hint="check the registry URL",
        )
    if s2 == "http" and "https" in (s0, s1):
        raise RegistryError(
            "registry-redirect",
            f"the registry redirected {what} from {current} down to plain "
            f"HTTP ({target}); refused, since anyone on the path could answer",
            hint="check the registry URL; the lock was not changed",
        )
    if (s1, h1) != (s2, h2):
        note(f"the registry redirected {what} from {current} to {target}")


def _read(r: object, url: str, what: str, limit: int) -> bytes:
    import httpx2

    assert isinstance(r, httpx2.Response)
    declared = r.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise _too_big(url, what, limit)
    buf = bytearray()
    for chunk in r.iter_bytes():
        buf.extend(chunk)
        if len(buf) > limit:
            raise _too_big(url, what, limit)
    return bytes(buf)


def _too_big(url: str, what: str, limit: int) -> RegistryError:
    size = f"{limit // MiB} MiB" if limit >= MiB else f"{limit} bytes"
    return RegistryError(
        "registry-too-large",
        f"the registry's answer for {what} is larger than {size}, the most "
        f"mcplock reads from a registry: {url}; nothing was changed",
        hint="check the registry URL (a registry that answers this much is broken or hostile)",
    )
