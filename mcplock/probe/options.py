"""What a probe is asked to do (:class:`ProbeOptions`): its timeout, the client it says it is, the
era it speaks, its caps, the HTTP client of a remote server. A leaf of the probe package: every
transport reads it, :mod:`mcplock.probe` re-exports it."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mcplock._version import __version__
from mcplock.lock.spec import ServerSpec

if TYPE_CHECKING:
    import httpx2

# (spec, options, environ) -> the httpx2 client for that remote server. Called once per HTTP
# probe; the transport closes the client. Build the plain one with mcplock.probe.http.new_client.
HttpClientFactory = Callable[[ServerSpec, "ProbeOptions", Mapping[str, str]], "httpx2.AsyncClient"]


@dataclass(frozen=True)
class ProbeOptions:
    timeout: float = 30.0  # whole probe per server, seconds
    client_name: str = "mcplock"
    client_version: str = __version__
    client_title: str | None = None  # clientInfo.title (a well-known host's, mcplock.probe.cloak)
    protocol_version: str = "2025-11-25"  # the legacy version `initialize` asks for
    era: str = "auto"  # "auto": server/discover first, initialize as the fallback; "modern"; "legacy"
    max_pages: int = 100  # per list
    max_response_bytes: int = 16 * 1024 * 1024  # one message / body
    max_items: int = 10_000  # per list
    concurrency: int = 16
    environ: Mapping[str, str] | None = None  # for ${VAR} expansion (default os.environ)
    verbose: bool = False  # error messages also show skipped stdout lines and more stderr
    # The HTTP client of a remote server (e.g. mcplock.auth.http_client: OAuth where a login
    # exists); None: a plain client (mcplock.probe.http.new_client).
    http_client: HttpClientFactory | None = None
    # The client capabilities to declare (mcplock.model.client_capabilities); None: the spec's, else the default.
    client_capabilities: tuple[str, ...] | None = None
    # The whole capabilities object to declare (a well-known host's, mcplock.probe.cloak); None: the above.
    capabilities: Mapping[str, Any] | None = None
    # List everything this many more times in the same session and answer the last listing (the
    # cloaking probe: a server that changes its answer after a few requests); 0: list once.
    relist: int = 0
