"""What carries a server's messages, by name: a leaf (stdlib only), so every layer compares a
transport as one type — :mod:`mcplock.lock.spec` (which re-exports it), the probe's connections, and
:mod:`mcplock.packages`, which may not import the spec."""

from __future__ import annotations

from enum import StrEnum


class Transport(StrEnum):
    """What carries a server's messages, by the name the lock writes (``transport = "stdio"``).
    A str: it compares, hashes and serialises as that name, so the lock's TOML is unchanged. A new
    transport is a member here and its Connection in :data:`mcplock.probe.transport.CONNECTIONS`."""

    STDIO = "stdio"  # a child process, newline-delimited JSON over its pipes
    HTTP = "http"  # Streamable HTTP
    SSE = "sse"  # the legacy HTTP+SSE transport

    @property
    def remote(self) -> bool:
        """Reached at a URL (headers, OAuth), not launched here."""
        return self is not Transport.STDIO


TRANSPORTS: tuple[str, ...] = tuple(Transport)
