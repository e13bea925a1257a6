"""Where the registries are: ``MCPLOCK_NPM_REGISTRY`` (default https://registry.npmjs.org) and
``MCPLOCK_PYPI_URL`` (default https://pypi.org). A leaf: the resolvers (:mod:`mcplock.packages.registries`)
and the installers (npm, uv) read the same values."""

from __future__ import annotations

import os

from mcplock.model.paths import Env

NPM_DEFAULT = "https://registry.npmjs.org"


PYPI_DEFAULT = "https://pypi.org"


def npm_registry(environ: Env = None) -> str:
    return (os.environ if environ is None else environ).get("MCPLOCK_NPM_REGISTRY", NPM_DEFAULT).rstrip("/")


def pypi_url(environ: Env = None) -> str:
    return (os.environ if environ is None else environ).get("MCPLOCK_PYPI_URL", PYPI_DEFAULT).rstrip("/")
