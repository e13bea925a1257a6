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
from mcplock.packages.errors import RegistryError
from mcplock.paths import Env
from mcplock.untrusted import shell_word

OCI_LABEL = "io.modelcontextprotocol.server.name"
_MCP_NAME = re.compile(r"mcp-name:\s*([A-Za-z0-9.-]+/[A-Za-z0-9._-]+)")


class OwnershipError(McplockError):
    """The package does not claim the registry name it was added by (exit 2; nothing installed)."""

    exit_code = 2
    code = "ownership"


def claimed(registry: str, name: str, version: str | None, environ: Env = None) -> str | None:
    """The registry name the package claims, or None when it claims none."""
    if registry == "npm":
        return _npm(name, version, environ)
    if registry == "pypi":
        return _pypi(name, version, environ)
    if registry == "oci":
        return _oci(name, environ)
    return None


def check(entry_name: str, registry: str, name: str, version: str | None, environ: Env = None) -> None:
    """Refuse a package that claims another registry name than ``entry_name``, or none."""
    got = claimed(registry, name, version, environ)
    if got == entry_name:
        return
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
    raise OwnershipError(
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
    from mcplock.packages.registries import get_json, pypi_project, pypi_url

    project = pypi_project(name, environ)
    v = version or str(project["info"]["version"])
    text: Any = None
    if v == project["info"].get("version"):
        text = project["info"].get("description")
    else:
        doc = get_json(f"{pypi_url(environ)}/pypi/{name}/{v}/json", f"PyPI package {name}=={v}")
        if isinstance(doc, dict):
            text = (doc.get("info") or {}).get("description")
        else:  # the release's own metadata (PEP 658), when the index has no per-release JSON
            text = _wheel_metadata(project, v)
    m = _MCP_NAME.search(text) if isinstance(text, str) else None
    return m.group(1) if m else None


def _wheel_metadata(project: dict[str, Any], version: str) -> str | None:
    from mcplock.packages import fetch

    for f in (project.get("releases") or {}).get(version) or []:
        url = f.get("url")
        if isinstance(url, str) and url.endswith(".whl"):
            try:
                status, body = fetch.get(url + ".metadata", f"the metadata of {url}", limit=16 * fetch.MiB)
            except RegistryError as e:
                if e.kind == "registry-unreachable":
                    return None
                raise
            return body.decode("utf-8", "replace") if status == 200 else None
    return None


def _oci(image: str, environ: Env) -> str | None:
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
    for img in images:
        labels = ((img if isinstance(img, dict) else {}).get("config") or {}).get("Labels") or {}
        label = labels.get(OCI_LABEL)
        if isinstance(label, str):
            return label
    return None
