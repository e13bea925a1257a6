"""A server's package pin: the exact artefact a launcher runs (lock table ``[server.NAME.package]``).

Plain data, no I/O. ``integrity`` is what the registry vouches for: npm's ``dist.integrity``
(an SRI ``sha512-…``), the sha256 of every file of a PyPI release (``sha256:<hex>``, a list when
the release has several files), an OCI manifest digest (``sha256:<hex>``). ``tree_integrity``
pins the whole dependency tree installed for it (see docs/pins.md).
"""

from __future__ import annotations

from dataclasses import dataclass

REGISTRIES = ("npm", "pypi", "oci")
PIN_KEYS = ("registry", "name", "version", "integrity", "tree-integrity")


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
        integ = t.get("integrity")
        return cls(registry=str(t["registry"]), name=str(t["name"]), version=str(t["version"]),
                   integrity=tuple(integ) if isinstance(integ, list) else integ,  # type: ignore[arg-type]
                   tree_integrity=t.get("tree-integrity"))  # type: ignore[arg-type]

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


def describe(pin: PackagePin | None, command: str | None, args: list[str] | tuple[str, ...]) -> str:
    """One line for ``list``/``show``: the pin, or why the server has none."""
    if pin is not None:
        integ = pin.integrities()
        shown = (integ[0][:23] + "…" + (f" (+{len(integ) - 1} files)" if len(integ) > 1 else "")) if integ else \
            "NO INTEGRITY (run `mcplock update`)"
        return f"{pin.registry} {pin.label}  {shown}"
    from mcplock.packages.launchers import Launch, parse

    got = parse(command, args)
    if isinstance(got, Launch):
        return f"not pinned: runs {got.registry} package {got.name} unpinned (run `mcplock update` to pin it)"
    return got.reason


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
        return cls(name=str(t["name"]), version=str(t["version"]), url=str(t["url"]),
                   repository=str(repo) if repo is not None else None)
