"""The command line follows the pin (docs/updates.md, "The command line follows the pin"): after
`update` or `update-pr` moves a package's pin, every word of the locked launch that names the old
release names the new one — ``npx -y PKG@V``, ``--package=PKG@V``, ``uvx PKG==V`` (extras kept),
``uvx PKG@V``, ``--from PKG==V``, ``pipx run --spec PKG==V``, an image's ``REPO:TAG`` or
``REPO@sha256:…`` — so a host that launches the server as the lock writes it runs the release that
was reviewed, and `refresh` does not take the old version on the command line for a bump back.

Each word is read with the launcher's own parser (:mod:`mcplock.packages.launchers`); a word that
names another package, a range or a tag stays as written. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from mcplock.packages.launchers import image_ref, npm_spec, pypi_spec


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _npm_word(word: str, name: str, old: str, new: str) -> str | None:
    got = npm_spec(word)
    if got is None or got[0] != name or got[1] is None or got[1].lstrip("v") != old.lstrip("v"):
        return None
    return f"{name}@{new}"


def _pypi_word(word: str, name: str, old: str, new: str) -> str | None:
    got = pypi_spec(word)
    if got is None or _norm(got[0]) != _norm(name) or got[1] != old:
        return None
    head = re.match(r"\s*([A-Za-z0-9._-]+(\[[^\]]*\])?)", word)
    if head is None:
        return None
    return f"{head.group(1)}@{new}" if "@" in word and "==" not in word else f"{head.group(1)}=={new}"


def _oci_word(word: str, name: str, old: str, new: str, digest: str | None) -> str | None:
    got = image_ref(word)
    if got is None or got[0] != name:
        return None
    repo, tag, was = got
    old_tag = old.partition("@")[0]
    if tag is not None and tag == old_tag and tag != new:
        return f"{repo}:{new}" + (f"@{digest}" if was and digest else "")
    if was is not None and digest and was != digest and (tag is None or tag == new):
        return f"{repo}{':' + tag if tag else ''}@{digest}"
    return None


def _moved_word(word: str, registry: str, name: str, old: str, new: str, digest: str | None) -> str | None:
    """``word`` naming the new release, or None when it does not name the old one of ``name``."""
    prefix, eq, value = word.partition("=") if word.startswith("-") else ("", "", word)
    if word.startswith("-") and not eq:
        return None
    if registry == "npm":
        moved = _npm_word(value, name, old, new)
    elif registry == "pypi":
        moved = _pypi_word(value, name, old, new)
    elif registry == "oci":
        moved = _oci_word(value, name, old, new, digest)
    else:
        return None
    return None if moved is None else prefix + eq + moved


def follow(
    command: str,
    args: Sequence[str],
    registry: str,
    name: str,
    old: str | None,
    new: str,
    digest: str | None = None,
) -> tuple[str, tuple[str, ...]] | None:
    """``command`` and ``args`` with every word that names ``name`` at ``old`` naming ``new`` (an
    image: its tag, and ``digest`` where a digest is written); None when no word named it."""
    if not old:
        return None
    words = [command, *args]
    changed = False
    for i, w in enumerate(words):
        moved = _moved_word(w, registry, name, old, new, digest)
        if moved is not None and moved != w:
            words[i], changed = moved, True
    return (words[0], tuple(words[1:])) if changed else None
