"""Resolve what a command line asks for to an exact, verifiable pin, through the registries'
own data: the npm registry's package document (``dist.integrity``, dist-tags, publish times),
PyPI's JSON API (every file's sha256), an OCI manifest digest through the ``docker`` client.

Registry URLs: :mod:`mcplock.packages.indexes` (``MCPLOCK_NPM_REGISTRY``, ``MCPLOCK_PYPI_URL``);
the same values are handed to npm and uv.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from typing import Any
from urllib.parse import quote

from mcplock.errors import McplockError
from mcplock.model.paths import Env
from mcplock.packages.errors import RegistryError
from mcplock.packages.indexes import npm_registry as npm_registry  # re-exported: core/update_pr reads it here
from mcplock.packages.indexes import pypi_url as pypi_url  # likewise
from mcplock.packages.launchers import Launch
from mcplock.packages.pin import PackagePin

TIMEOUT = 30.0


def get_json(url: str, what: str, *, limit: int | None = None) -> Any:
    """GET a registry document; None on 404. Other failures: RegistryError (unreachable). The
    body is capped (``limit``, default :data:`mcplock.packages.fetch.MAX_BODY`) and redirects
    follow the rules of :mod:`mcplock.packages.fetch`."""
    from mcplock.packages import fetch

    status, body = fetch.get(
        url, what, limit=fetch.MAX_BODY if limit is None else limit, accept="application/json", timeout=TIMEOUT
    )
    if status == 404:
        return None
    if status != 200:
        raise RegistryError(
            "registry-unreachable",
            f"the registry answered HTTP {status} for {what}: {url}",
            hint="try again later; the lock was not changed",
        )
    try:
        return json.loads(body)
    except ValueError:
        raise RegistryError("registry-unreachable", f"the registry sent no JSON for {what}: {url}") from None


# --- npm ---------------------------------------------------------------------------------------


def npm_document(name: str, environ: Env = None) -> dict[str, Any]:
    doc = get_json(f"{npm_registry(environ)}/{quote(name, safe='@')}", f"npm package {name}")
    if not isinstance(doc, dict) or not isinstance(doc.get("versions"), dict):
        guess = npm_suggest(name, environ)
        raise RegistryError(
            "unknown-package",
            f"npm has no package named {name}",
            hint=f"did you mean {guess}? Fix the package name in the server's command"
            if guess
            else "check the package name in the server's command",
        )
    return doc


def npm_suggest(name: str, environ: Env = None) -> str | None:
    """The npm package the registry's search finds closest to ``name`` (None: none close, or the
    search did not answer: a suggestion is a courtesy, never a reason to fail)."""
    from urllib.parse import urlencode

    from mcplock.packages.errors import did_you_mean

    text = name.rsplit("/", 1)[-1]
    try:
        doc = get_json(
            f"{npm_registry(environ)}/-/v1/search?{urlencode({'text': text, 'size': 20})}", f"npm search {text!r}"
        )
    except McplockError:
        return None
    return did_you_mean(name, _search_names(doc))


def _search_names(doc: Any) -> list[str]:
    """The package names an npm search reply lists, best match first."""
    objects = doc.get("objects") if isinstance(doc, dict) else None
    return [o["package"]["name"] for o in objects or [] if _names_package(o)]


def _names_package(found: Any) -> bool:
    """Whether one npm search result names its package."""
    return (
        isinstance(found, dict)
        and isinstance(found.get("package"), dict)
        and isinstance(found["package"].get("name"), str)
    )


def npm_pick(doc: dict[str, Any], requested: str | None, environ: Env = None) -> str:
    """The exact version ``requested`` (a version, a dist-tag, a range; None: latest) names."""
    name = doc.get("name", "?")
    tags = doc.get("dist-tags") or {}
    versions = doc["versions"]
    want = requested or "latest"
    if want in versions:
        return want
    if want in tags:
        return str(tags[want])
    exact = re.fullmatch(r"v?\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]*)?", want) is not None
    got = None if exact else _npm_range(name, want, environ)
    if got is None or got not in versions:
        raise _no_npm_version(name, want, exact, tags)
    return got


def _no_npm_version(name: str, want: str, exact: bool, tags: dict[str, Any]) -> RegistryError:
    """The error for a version (or a range: not ``exact``) the package does not have."""
    return RegistryError(
        "unknown-version",
        f"npm package {name} has no version {want}" if exact else f"no version of npm package {name} matches {want}",
        hint=f"its newest is {tags.get('latest', '?')}; fix the version in the server's command",
    )


def _npm_range(name: str, spec: str, environ: Env) -> str | None:
    """A semver range, resolved by npm itself (``npm view NAME@RANGE version``: the highest)."""
    npm = shutil.which("npm")
    if npm is None:
        raise RegistryError(
            "npm-missing",
            "npm is needed to resolve the version range " + spec,
            hint="install Node.js (npm), or name an exact version",
        )
    try:
        out = subprocess.run(
            [npm, "view", f"{name}@{spec}", "version", "--json", "--registry", npm_registry(environ)],
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            env=npm_env(environ),
        )
    except subprocess.TimeoutExpired:
        raise RegistryError("registry-unreachable", f"npm view {name}@{spec} timed out") from None
    return _viewed_version(out.stdout)


def _viewed_version(stdout: str) -> str | None:
    """The version ``npm view … version --json`` printed: the last of a list (the highest a
    range matches); None for no version or a reply that is not JSON."""
    try:
        got = json.loads(stdout or "null")
    except ValueError:
        return None
    if isinstance(got, list):
        got = got[-1] if got else None
    return got if isinstance(got, str) else None


def npm_env(environ: Env = None) -> dict[str, str]:
    """npm's environment: its cache inside mcplock's (never the user's ~/.npm), no update nags."""
    from mcplock.packages.cache import cache_root

    env = dict(os.environ if environ is None else environ)
    env["npm_config_cache"] = str(cache_root(environ) / "npm-cache")
    env["npm_config_update_notifier"] = "false"
    env["npm_config_fund"] = "false"
    env["npm_config_audit"] = "false"
    return env


def resolve_npm(launch: Launch, environ: Env = None, *, requested: str | None = None) -> PackagePin:
    doc = npm_document(launch.name, environ)
    version = npm_pick(doc, _wanted(launch, requested), environ)
    dist = (doc["versions"][version] or {}).get("dist") or {}
    integrity = dist.get("integrity")
    if not isinstance(integrity, str) or not integrity.startswith("sha512-"):
        raise RegistryError(
            "no-integrity",
            f"npm publishes no sha512 integrity for {launch.name}@{version}",
            hint="pin a newer release of the package",
        )
    return PackagePin("npm", launch.name, version, integrity)


def _wanted(launch: Launch, requested: str | None) -> str | None:
    """The version asked for: the caller's, else the command line's."""
    return requested if requested is not None else launch.requested


def npm_latest(name: str, environ: Env = None) -> str:
    return npm_pick(npm_document(name, environ), None, environ)


def npm_published(name: str, version: str, environ: Env = None) -> str | None:
    """When ``name@version`` was published (the registry's ``time``), for ``npm install --before``."""
    t = (npm_document(name, environ).get("time") or {}).get(version)
    return t if isinstance(t, str) else None


# --- PyPI --------------------------------------------------------------------------------------


def pypi_project(name: str, environ: Env = None) -> dict[str, Any]:
    doc = get_json(f"{pypi_url(environ)}/pypi/{quote(name)}/json", f"PyPI package {name}")
    if not isinstance(doc, dict) or not isinstance(doc.get("releases"), dict):
        raise RegistryError(
            "unknown-package",
            f"PyPI has no package named {name}",
            hint="check the package name in the server's command",
        )
    return doc


def resolve_pypi(launch: Launch, environ: Env = None, *, requested: str | None = None) -> PackagePin:
    want = _wanted(launch, requested)
    if want is not None and re.match(r"^[<>=!~]", want):
        from mcplock.packages.uv_tool import pick_version

        want = pick_version(launch.name, want, environ)
    doc = pypi_project(launch.name, environ)
    version = want or str(doc["info"]["version"])
    return PackagePin(
        "pypi", doc["info"].get("name") or launch.name, version, _release_hashes(doc, launch.name, version)
    )


def _release_hashes(doc: dict[str, Any], name: str, version: str) -> str | tuple[str, ...]:
    """The sha256 of every file of the release that is not yanked: the pin's integrity (one
    string when the release has one file)."""
    if version not in doc["releases"]:
        raise RegistryError(
            "unknown-version",
            f"PyPI package {name} has no release {version}",
            hint=f"its newest is {doc['info'].get('version')}; fix the version in the server's command",
        )
    hashes = _pinnable_hashes(_release_files(doc, version))
    if not hashes:
        raise RegistryError(
            "no-integrity",
            f"PyPI lists no files with a sha256 for {name}=={version}",
            hint="pin another release of the package",
        )
    return hashes[0] if len(hashes) == 1 else hashes


def _release_files(doc: dict[str, Any], version: str) -> list[dict[str, Any]]:
    """A release's files as PyPI lists them (none for a release it does not list)."""
    return (doc.get("releases") or {}).get(version) or []


def _sha256(file: dict[str, Any]) -> Any:
    """A release file's sha256 as PyPI lists it (None: it lists none)."""
    return (file.get("digests") or {}).get("sha256")


def _pinnable_hashes(files: list[dict[str, Any]]) -> tuple[str, ...]:
    """The sorted ``sha256:…`` of the files that are not yanked and list a sha256."""
    return tuple(sorted(f"sha256:{_sha256(f)}" for f in files if not f.get("yanked") and _sha256(f)))


def pypi_latest(name: str, environ: Env = None) -> str:
    return str(pypi_project(name, environ)["info"]["version"])


def pypi_uploaded(name: str, version: str, integrities: tuple[str, ...], environ: Env = None) -> str | None:
    """When the pinned files of ``name==version`` were uploaded: the latest
    ``upload_time_iso_8601`` among the release's files whose sha256 the pin holds (a wheel
    uploaded after the sdist counts; a file added to the release after the pin does not move
    it), for uv's ``--exclude-newer``. None when the index gives no upload times."""
    files = _release_files(pypi_project(name, environ), version)
    times = [
        str(f["upload_time_iso_8601"])
        for f in files
        if f"sha256:{_sha256(f)}" in integrities and f.get("upload_time_iso_8601")
    ]
    return max(times, key=_instant) if times else None


def _instant(iso: str) -> Any:
    from datetime import datetime

    return datetime.fromisoformat(iso.replace("Z", "+00:00"))


# --- OCI ---------------------------------------------------------------------------------------


def digest_of(reply: str) -> str:
    """The manifest digest in a ``docker buildx imagetools inspect --format '{{json .Manifest}}'``
    reply, or a ``docker manifest inspect -v`` one (an object, or per-platform list: linux/amd64)."""
    try:
        data = json.loads(reply)
    except ValueError:
        raise RegistryError("docker", "docker gave no manifest for the image") from None
    if isinstance(data, list):
        data = _amd64(data)
    digest = _manifest_digest(data)
    if digest is None:
        raise RegistryError("docker", "docker's reply names no sha256 digest for the image")
    return digest


def _manifest_digest(manifest: Any) -> str | None:
    """The sha256 digest a manifest names: buildx's ``digest``, else ``docker manifest``'s
    ``Descriptor.digest`` (None: no manifest, or no sha256 digest)."""
    if not isinstance(manifest, dict):
        return None
    d = manifest.get("digest") or (manifest.get("Descriptor") or {}).get("digest")
    return d if isinstance(d, str) and re.fullmatch(r"sha256:[0-9a-f]{64}", d) else None


def _amd64(manifests: list[Any]) -> Any:
    """A per-platform list's linux/amd64 manifest (else its first; ``{}`` for none; what is not
    an object is no manifest: the caller says the reply names no digest)."""
    plat = [d for d in manifests if isinstance(d, dict) and _architecture(d) == "amd64"]
    return (plat or manifests or [{}])[0]


def _architecture(manifest: dict[str, Any]) -> Any:
    return ((manifest.get("Descriptor") or {}).get("platform") or {}).get("architecture")


def resolve_oci(launch: Launch, environ: Env = None, *, requested: str | None = None) -> PackagePin:
    tag = requested or launch.requested or "latest"
    if launch.digest is not None and requested is None:
        return PackagePin("oci", launch.name, tag, launch.digest)
    return PackagePin("oci", launch.name, tag, _image_digest(launch.name, tag))


def _image_digest(name: str, tag: str) -> str:
    """The manifest digest of ``name:tag``, as the docker client reads it from the registry."""
    docker = shutil.which("docker")
    if docker is None:
        raise RegistryError(
            "docker",
            "the docker client is needed to resolve the image " + name,
            hint="install Docker, or write the image as NAME@sha256:… in the server's command",
        )
    ref = f"{name}:{tag}"
    reply, last = _inspect(docker, ref)
    if reply is not None:
        return digest_of(reply)
    raise RegistryError(
        "docker",
        f"docker could not resolve the image {ref}: {last[:300]}",
        hint="check that the image exists and the registry is reachable (and docker is running), "
        "or write the image as NAME@sha256:… in the server's command",
    )


def _inspect(docker: str, ref: str) -> tuple[str | None, str]:
    """The image's manifest as ``docker buildx imagetools`` (else ``docker manifest``) prints
    it, or None and the last error line."""
    attempts = (
        [docker, "buildx", "imagetools", "inspect", ref, "--format", "{{json .Manifest}}"],
        [docker, "manifest", "inspect", "-v", ref],
    )
    last = ""
    for argv in attempts:
        reply, error = _inspect_with(argv)
        if reply is not None:
            return reply, last
        last = error
    return None, last


def _inspect_with(argv: list[str]) -> tuple[str | None, str]:
    """One inspect command's manifest, or None and its last error line."""
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        return None, "timed out"
    if out.returncode == 0 and out.stdout.strip():
        return out.stdout, ""
    return None, ((out.stderr or out.stdout).strip().splitlines() or [f"exit {out.returncode}"])[-1]


RESOLVERS = {"npm": resolve_npm, "pypi": resolve_pypi, "oci": resolve_oci}
LATEST = {"npm": npm_latest, "pypi": pypi_latest}


def resolve(launch: Launch, environ: Env = None, *, requested: str | None = None) -> PackagePin:
    """The exact pin for ``launch`` (``requested`` overrides the version on the command line)."""
    return RESOLVERS[launch.registry](launch, environ, requested=requested)
