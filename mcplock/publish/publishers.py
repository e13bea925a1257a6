"""The policy's ``[publishers]``: which keys may vouch for which packages (docs/publishers.md).

```toml
[publishers]
keys = [
  { package = "npm:kitchen-sink", key = "sha256-…" },     # one package
  { package = "npm:@acme/*", key = "sha256-…" },          # a namespace: every package of the scope
  { package = "pypi:acme-*", key = "sha256-…" },          # shell-style over the name
]
```

A key is the fingerprint ``mcplock fingerprint KEY.pub`` prints (``sha256-<base64>`` of its SPKI
DER). A statement signed by a key no entry lists for its package is reported, never trusted.
:mod:`mcplock.trust.org_policy` accepts the table (its schema names it); the entries are read and
checked here, from every file of the policy in effect.
"""

from __future__ import annotations

import fnmatch
import re
import tomllib
from dataclasses import dataclass
from typing import Any

from mcplock.errors import ConfigError

_FINGERPRINT = re.compile(r"sha256-[A-Za-z0-9+/]{43}=")
_PACKAGE = re.compile(r"(npm|pypi):\S+")


@dataclass(frozen=True)
class Listed:
    package: str  # REGISTRY:NAME pattern
    key: str
    path: str  # the policy file that lists it


def _bad(path: str, message: str) -> ConfigError:
    return ConfigError(
        f"policy {path}: {message}",
        code="policy",
        hint='each `publishers.keys` entry is { package = "npm:NAME" (or a pattern), key = "sha256-…" }: '
        "docs/publishers.md",
    )


def _entries(path: str, data: dict[str, Any]) -> list[Listed]:
    keys = (data.get("publishers") or {}).get("keys", [])
    out: list[Listed] = []
    for i, e in enumerate(keys):
        if not isinstance(e, dict) or set(e) != {"package", "key"}:
            raise _bad(path, f"`publishers.keys[{i}]` must be {{ package = …, key = … }}")
        pkg, key = e["package"], e["key"]
        if not isinstance(pkg, str) or not _PACKAGE.fullmatch(pkg):
            raise _bad(path, f"`publishers.keys[{i}].package` must be npm:NAME or pypi:NAME (a pattern may use *)")
        if not isinstance(key, str) or not _FINGERPRINT.fullmatch(key):
            raise _bad(path, f"`publishers.keys[{i}].key` is not a key fingerprint (`mcplock fingerprint KEY.pub`)")
        out.append(Listed(pkg, key, path))
    return out


def listed(org: Any) -> list[Listed]:
    """Every ``[publishers]`` entry of every file of the policy in effect (``org``: an
    :class:`~mcplock.trust.org_policy.OrgPolicy`, or None)."""
    from mcplock.model.files import SMALL_MAX, read_bounded

    if org is None:
        return []
    out: list[Listed] = []
    for part in org.parts:
        try:
            data = tomllib.loads(read_bounded(part.path, SMALL_MAX).decode("utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
            raise _bad(part.path, f"cannot be read again: {e}") from None
        out += _entries(part.path, data)
    return out


def _norm(registry: str, name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower() if registry == "pypi" else name


def matches(pattern: str, registry: str, name: str) -> bool:
    """``npm:@acme/*`` over ``npm`` / ``@acme/server``; PyPI names compared normalized."""
    reg, _, pat = pattern.partition(":")
    return reg == registry and fnmatch.fnmatchcase(_norm(registry, name), _norm(registry, pat))


def keys_for(entries: list[Listed], registry: str, name: str) -> list[str]:
    """The fingerprints the policy lists for one package."""
    return list(dict.fromkeys(e.key for e in entries if matches(e.package, registry, name)))
