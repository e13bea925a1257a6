"""A server's package pin: the exact artefact a launcher runs (lock table ``[server.NAME.package]``).

Plain data, no I/O. ``integrity`` is what the registry vouches for: npm's ``dist.integrity``
(an SRI ``sha512-…``), the sha256 of every file of a PyPI release (``sha256:<hex>``, a list when
the release has several files), an OCI manifest digest (``sha256:<hex>``). ``tree_integrity``
pins the whole dependency tree installed for it (see docs/pins.md).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mcplock.text.untrusted import sanitize

REGISTRIES = ("npm", "pypi", "oci", "mcpb")
PIN_KEYS = ("registry", "name", "version", "integrity", "tree-integrity")

# An exact version, nothing an installer reads as something else: semver 2.0.0 (its own regex)
# for npm, PEP 440's public version pattern (any spelling of one release) for PyPI, a docker tag
# for OCI (the digest decides there). No alias (`npm:other@1.0.0`), range, tag, URL or path.
_NUM = r"(?:0|[1-9]\d*)"
_PRE = r"(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)"
_EXACT = {
    "npm": re.compile(rf"{_NUM}\.{_NUM}\.{_NUM}(?:-{_PRE}(?:\.{_PRE})*)?(?:\+[0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*)?"),
    "pypi": re.compile(
        r"v?(?:[0-9]+!)?[0-9]+(?:\.[0-9]+)*(?:[-_.]?(?:a|b|c|rc|alpha|beta|pre|preview)[-_.]?[0-9]*)?"
        r"(?:-[0-9]+|[-_.]?(?:post|rev|r)[-_.]?[0-9]*)?(?:[-_.]?dev[-_.]?[0-9]*)?",
        re.IGNORECASE,
    ),
    "oci": re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}"),
}
_EXACT_WORDS = {
    "npm": "an exact semver version (`1.2.3`)",
    "pypi": "an exact PEP 440 version (`1.2.3`)",
    "oci": "a docker tag",
}
_NAME = {
    "npm": re.compile(r"(?:@[a-z0-9~-][a-z0-9._~-]*/)?[a-z0-9~-][a-z0-9._~-]*", re.IGNORECASE),  # old names: capitals
    "pypi": re.compile(r"[A-Z0-9](?:[A-Z0-9._-]*[A-Z0-9])?", re.IGNORECASE),
}


def pin_problem(registry: str, name: str, version: str) -> str | None:
    """Why a pin's name or version is not one exact release (None: it is one). A hand edit such
    as ``version = "npm:evil@1.0.0"`` (an npm alias: another package under the pinned name), a
    range, a dist-tag or a URL would make the installer run something the pin does not say."""
    if registry in _EXACT and not _EXACT[registry].fullmatch(version):
        return f"`version` `{sanitize(version, 80)}` is not {_EXACT_WORDS[registry]}"
    if registry == "mcpb" and not re.fullmatch(r"https?://\S+", name):
        return f"`name` `{sanitize(name, 80)}` is not the URL of an MCPB bundle"
    if registry in _NAME and not _NAME[registry].fullmatch(name):
        return f"`name` `{sanitize(name, 80)}` is not a {registry} package name"
    return None


@dataclass(frozen=True)
class PackagePin:
    registry: str  # "npm" | "pypi" | "oci"
    name: str
    version: str  # exact version (npm/pypi); the tag the digest was resolved from (oci)
    integrity: str | tuple[str, ...] | None = None
    tree_integrity: str | None = None

    def stored(self) -> dict[str, object]:
        """The lock's ``package`` table (and the launch spec's ``package`` key)."""
        out: dict[str, object] = {"registry": self.registry, "name": self.name, "version": self.version}
        if self.integrity is not None:
            out["integrity"] = list(self.integrity) if isinstance(self.integrity, tuple) else self.integrity
        if self.tree_integrity is not None:
            out["tree-integrity"] = self.tree_integrity
        return out

    @classmethod
    def from_stored(cls, t: dict[str, object]) -> PackagePin:
        """The lock's ``package`` table, as :mod:`mcplock.lock.read` checked it (an integrity a
        string or a list of them)."""
        integ, tree = t.get("integrity"), t.get("tree-integrity")
        return cls(
            registry=str(t["registry"]),
            name=str(t["name"]),
            version=str(t["version"]),
            integrity=tuple(map(str, integ)) if isinstance(integ, list) else None if integ is None else str(integ),
            tree_integrity=None if tree is None else str(tree),
        )

    def problem(self) -> str | None:
        """Why this pin names no one exact release (see :func:`pin_problem`)."""
        return pin_problem(self.registry, self.name, self.version)

    def integrities(self) -> tuple[str, ...]:
        if self.integrity is None:
            return ()
        return self.integrity if isinstance(self.integrity, tuple) else (self.integrity,)

    @property
    def label(self) -> str:
        """``name@version`` (npm/oci ``name:tag``) as people read it."""
        if self.registry == "pypi":
            return f"{self.name}=={self.version}"
        if self.registry == "oci":
            return f"{self.name}:{self.version}"
        return f"{self.name}@{self.version}"


REGISTRY_KEYS = ("name", "version", "url", "repository")


@dataclass(frozen=True)
class RegistryRef:
    """The MCP Registry entry a server was added from (lock table ``[server.NAME.registry]``):
    its registry name and version, the registry's URL, the source repository it names. Plain
    data, outside every hash: what runs is the launch and its package pin."""

    name: str  # io.github.modelcontextprotocol/server-memory
    version: str
    url: str  # the registry's base URL (outdated/update ask it again)
    repository: str | None = None

    def stored(self) -> dict[str, str]:
        out = {"name": self.name, "version": self.version, "url": self.url}
        if self.repository is not None:
            out["repository"] = self.repository
        return out

    @classmethod
    def from_stored(cls, t: dict[str, object]) -> RegistryRef:
        repo = t.get("repository")
        return cls(
            name=str(t["name"]),
            version=str(t["version"]),
            url=str(t["url"]),
            repository=str(repo) if repo is not None else None,
        )
