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


def _address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
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


def internal_target(uri: str) -> str | None:
    """What ``uri`` reaches that a server has no business listing for a model to read — ``"a cloud
    metadata service"``, ``"this machine's loopback"``, ``"a path out of its directory (..)"`` —
    or None."""
    try:
        host = (urlsplit(uri).hostname or "").rstrip(".").lower()
    except ValueError:
        host = ""
    if host:
        addr = _address(host)
        if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
            addr = addr.ipv4_mapped
        if host in _METADATA_NAMES or (addr is not None and (str(addr) in _METADATA_ADDRESSES or addr.is_link_local)):
            return "a cloud metadata service"
        if (
            host == "localhost"
            or host.endswith(".localhost")
            or (addr is not None and (addr.is_loopback or addr.is_unspecified))
        ):
            return "this machine's loopback"
    if walks_out(uri):
        return "a path out of its directory (..)"
    return None
