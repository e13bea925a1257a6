"""Which MCP Registry name a package claims, read from the package's own registry (docs/pins.md):

- npm: ``mcpName`` in the version's package.json (the registry's version document);
- PyPI: a ``mcp-name: NAME`` line in the release's description (often an HTML comment);
- OCI: the image label ``io.modelcontextprotocol.server.name``.

The MCP Registry checks this when a server is published; mcplock checks it again when a server is
added by its registry name, so an entry that points at somebody else's package is refused.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from typing import Any

from mcplock.errors import McplockError
from mcplock.model.paths import Env
from mcplock.packages.errors import RegistryError
from mcplock.text.untrusted import shell_word

OCI_LABEL = "io.modelcontextprotocol.server.name"
_MCP_NAME = re.compile(r"mcp-name:\s*([A-Za-z0-9.-]+/[A-Za-z0-9._-]+)")


class OwnershipError(McplockError):
    """The package does not claim the registry name it was added by (exit 2; nothing installed)."""

    exit_code = 2
    code = "ownership"


def claimed(registry: str, name: str, version: str | None, environ: Env = None) -> str | None:
    """The registry name the package claims, or None when it claims none."""
    read = _CLAIM_READERS.get(registry)
    return None if read is None else read(name, version, environ)


def check(entry_name: str, registry: str, name: str, version: str | None, environ: Env = None) -> None:
    """Refuse a package that claims another registry name than ``entry_name``, or none."""
    got = claimed(registry, name, version, environ)
    if got != entry_name:
        raise _not_owned(entry_name, registry, name, version, got)


def _not_owned(entry_name: str, registry: str, name: str, version: str | None, got: str | None) -> OwnershipError:
    """The refusal of a package that claims ``got`` (None: no name) instead of ``entry_name``."""
    marker = {
        "npm": "`mcpName` in its package.json",
        "pypi": "an `mcp-name:` line in its description",
        "oci": f"the image label `{OCI_LABEL}`",
    }[registry]
    what = f"{registry} package {name}" + (f" {version}" if version else "")
    if got is None:
        msg = f"the MCP Registry entry {entry_name} points at {what}, which claims no registry name ({marker})"
    else:
        msg = f"the MCP Registry entry {entry_name} points at {what}, which claims to be {got} ({marker})"
    return OwnershipError(
        msg + "; nothing was installed",
        hint=f"add the server its package belongs to (`mcplock add {shell_word(got)}`)"
        if got
        else "ask the entry's publisher to claim the name in the package, or add the package by its "
        "command (`mcplock add NAME -- CMD…`) after checking who publishes it",
    )


def _npm(name: str, version: str | None, environ: Env) -> str | None:
    from mcplock.packages.registries import npm_document, npm_pick

    doc = npm_document(name, environ)
    v = npm_pick(doc, version, environ)
    got = (doc["versions"].get(v) or {}).get("mcpName")
    return got if isinstance(got, str) else None


def _pypi(name: str, version: str | None, environ: Env) -> str | None:
    from mcplock.packages.registries import pypi_project

    project = pypi_project(name, environ)
    v = version or str(project["info"]["version"])
    text = _description(project, name, v, environ)
    m = _MCP_NAME.search(text) if isinstance(text, str) else None
    return m.group(1) if m else None


def _description(project: dict[str, Any], name: str, version: str, environ: Env) -> Any:
    """A release's description: the project document's for its newest release, else the
    release's own JSON, else its wheel's metadata (PEP 658) when the index has no per-release
    JSON."""
    from mcplock.packages.indexes import pypi_url
    from mcplock.packages.registries import get_json

    if version == project["info"].get("version"):
        return project["info"].get("description")
    doc = get_json(f"{pypi_url(environ)}/pypi/{name}/{version}/json", f"PyPI package {name}=={version}")
    if isinstance(doc, dict):
        return (doc.get("info") or {}).get("description")
    return _wheel_metadata(project, version)


def _wheel_metadata(project: dict[str, Any], version: str) -> str | None:
    """The metadata of the release's first wheel (None: it has no wheel, or the index did not
    answer)."""
    url = _first_wheel((project.get("releases") or {}).get(version) or [])
    return None if url is None else _fetch_metadata(url)


def _first_wheel(files: list[Any]) -> str | None:
    """The URL of the first wheel among a release's files."""
    for f in files:
        url = f.get("url")
        if isinstance(url, str) and url.endswith(".whl"):
            return url
    return None


def _fetch_metadata(wheel_url: str) -> str | None:
    """A wheel's metadata file, served beside it (``URL.metadata``); None when the index
    answers no such file or cannot be reached."""
    from mcplock.packages import fetch

    try:
        status, body = fetch.get(wheel_url + ".metadata", f"the metadata of {wheel_url}", limit=16 * fetch.MiB)
    except RegistryError as e:
        if e.kind == "registry-unreachable":
            return None
        raise
    return body.decode("utf-8", "replace") if status == 200 else None


def _oci(image: str, version: str | None, environ: Env) -> str | None:
    docker = shutil.which("docker")
    if docker is None:
        raise RegistryError(
            "docker",
            f"the docker client is needed to read the labels of the image {image}",
            hint="install Docker, then run the command again",
        )
    argv = [docker, "buildx", "imagetools", "inspect", image, "--format", "{{json .Image}}"]
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        raise RegistryError("docker", f"docker timed out reading the image {image}") from None
    if out.returncode != 0:
        raise RegistryError(
            "docker",
            f"docker could not read the image {image}: {(out.stderr or out.stdout).strip()[-300:]}",
            hint="check that the image exists and docker is running",
        )
    return image_claim(out.stdout)


def image_claim(reply: str) -> str | None:
    """The label in ``docker buildx imagetools inspect --format '{{json .Image}}'``'s reply: one
    image config, or one per platform of a multi-platform index."""
    try:
        data = json.loads(reply)
    except ValueError:
        return None
    images = data.values() if isinstance(data, dict) and "config" not in data else [data]
    return next((label for label in map(_label, images) if label is not None), None)


def _label(image: Any) -> str | None:
    """The server-name label of one image config (None: it has none)."""
    labels = ((image if isinstance(image, dict) else {}).get("config") or {}).get("Labels") or {}
    label = labels.get(OCI_LABEL)
    return label if isinstance(label, str) else None


_CLAIM_READERS = {"npm": _npm, "pypi": _pypi, "oci": _oci}
