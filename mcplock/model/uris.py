"""What a URI a server lists or asks to read reaches: a cloud provider's metadata service, this
machine's loopback, or a path that walks out with ``..``. Pure, standard library only; used by the
lint (:mod:`mcplock.lint.resource_uris`) and the guard (:mod:`mcplock.guard.resource_reads`)."""

from __future__ import annotations

import ipaddress
import re
from urllib.parse import unquote, urlsplit

# metadata services by name (AWS, GCP, Azure, Alibaba, Oracle, DigitalOcean … use the link-local
# addresses below; these are the names that resolve to them)
_METADATA_NAMES = {
    "metadata.google.internal",
    "metadata.goog",
    "metadata",
    "instance-data",
    "instance-data.ec2.internal",
    "metadata.azure.com",
    "metadata.tencentyun.com",
}
_METADATA_ADDRESSES = {"169.254.169.254", "169.254.170.2", "fd00:ec2::254", "100.100.100.200", "192.0.0.192"}


def walks_out(uri: str) -> bool:
    """Whether ``uri``'s path has a ``.`` or ``..`` segment (percent-encoded, or with backslashes, too)."""
    path = re.split(r"[?#]", uri, maxsplit=1)[0]
    decoded = unquote(unquote(path)).replace("\\", "/")
    return any(seg in (".", "..") for seg in decoded.split("/"))


_Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def _address(host: str) -> _Address | None:
    h = host.strip("[]")
    try:
        return ipaddress.ip_address(h)
    except ValueError:
        pass
    try:  # 2852039166, 0xa9fea9fe, 0251.0376.0251.0376: what inet_aton (and so curl) reads as an address
        import socket

        if re.fullmatch(r"[0-9a-fA-FxX.]+", h):
            return ipaddress.ip_address(socket.inet_aton(h))
    except (OSError, ValueError):
        pass
    return None


def _host(uri: str) -> str:
    """``uri``'s host as a resolver reads it (lower case, no trailing dot); "" for none."""
    try:
        return (urlsplit(uri).hostname or "").rstrip(".").lower()
    except ValueError:
        return ""


def _is_metadata(host: str, addr: _Address | None) -> bool:
    """Whether the host is a cloud metadata service: by name, by address, or link-local."""
    return host in _METADATA_NAMES or (addr is not None and (str(addr) in _METADATA_ADDRESSES or addr.is_link_local))


def _is_loopback(host: str, addr: _Address | None) -> bool:
    """Whether the host is this machine: ``localhost`` (and its subdomains), a loopback or the
    unspecified address."""
    if host == "localhost" or host.endswith(".localhost"):
        return True
    return addr is not None and (addr.is_loopback or addr.is_unspecified)


def _host_target(host: str) -> str | None:
    """What a URI's host reaches, by the name or the address (IPv4-mapped read as IPv4)."""
    addr = _address(host)
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        addr = addr.ipv4_mapped
    if _is_metadata(host, addr):
        return "a cloud metadata service"
    if _is_loopback(host, addr):
        return "this machine's loopback"
    return None


def internal_target(uri: str) -> str | None:
    """What ``uri`` reaches that a server has no business listing for a model to read — ``"a cloud
    metadata service"``, ``"this machine's loopback"``, ``"a path out of its directory (..)"`` —
    or None."""
    host = _host(uri)
    found = _host_target(host) if host else None
    if found is None and walks_out(uri):
        return "a path out of its directory (..)"
    return found
