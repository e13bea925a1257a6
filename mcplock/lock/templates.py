"""The ``${VAR}`` templates of a spec and what must not be stored: expanding ``${VAR}`` and
``${VAR:-default}`` (a host config's secrets first, then the environment), the variables a value
names, whether a value is only templates, whether a literal looks like a secret (then it never
reaches the lock: it is moved out into a template named by :func:`env_var_name`), and whether a
URL may be sent one."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

TEMPLATE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def is_template(value: str) -> bool:
    """Whether ``value`` is only ``${VAR}`` templates (a secret's only allowed form)."""
    names = template_names(value)
    return bool(names) and value == "".join(f"${{{n}}}" for n in names)


def secure_url(url: str) -> bool:
    """An https:// URL, or http:// to this machine (a secret may be sent to it)."""
    from urllib.parse import urlsplit

    p = urlsplit(url)
    return bool(p.netloc) and (
        p.scheme == "https" or (p.scheme == "http" and p.hostname in ("localhost", "127.0.0.1", "::1"))
    )


def expand(value: str, environ: Mapping[str, str] | None = None, secrets: Mapping[str, str] | None = None) -> str:
    """Expand ``${VAR}`` and ``${VAR:-default}`` like Claude Code does.

    ``secrets`` (values from a host config) win over the environment. An unset
    variable without a default expands to the empty string for a probe; callers
    that must report it use :func:`missing_variables`.
    """
    env = os.environ if environ is None else environ
    sec = secrets or {}

    def sub(m: re.Match[str]) -> str:
        name, default = m.group(1), m.group(2)
        if name in sec:
            return sec[name]
        got = env.get(name)
        if got is None or (got == "" and default is not None):
            return default if default is not None else ""
        return got

    return TEMPLATE.sub(sub, value)


def template_names(value: str) -> list[str]:
    return [m.group(1) for m in TEMPLATE.finditer(value)]


_SECRET_KEY = re.compile(r"(?i)(token|secret|passw(or)?d|api[-_]?key|auth|credential|cookie|session|private)")


_SECRET_VALUE = re.compile(
    r"(?x)("
    r"gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|sk-[A-Za-z0-9_-]{16,}|xox[abprs]-[A-Za-z0-9-]{10,}"
    r"|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{30,}|glpat-[A-Za-z0-9_-]{16,}|eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}"
    r")"
)


def looks_secret(key: str, value: str) -> bool:
    """Whether a literal header/env value must not be stored.

    A value that is entirely made of templates is never a secret. A value under a
    secret-sounding key (``Authorization``, ``*_TOKEN``, ``API_KEY`` …) or shaped like a
    known credential is one, unless it is empty.
    """
    literal = TEMPLATE.sub("", value).strip()
    if not literal:
        return False
    if _SECRET_VALUE.search(value):
        return True
    if _SECRET_KEY.search(key):
        # "Bearer ${TOKEN}" leaves "Bearer" after removing the template: not a secret.
        return not (TEMPLATE.search(value) and re.fullmatch(r"(?i)(bearer|basic|token)", literal))
    return False


def env_var_name(key: str) -> str:
    """A template variable name derived from a header or env key (``X-Api-Key`` → ``X_API_KEY``)."""
    name = re.sub(r"[^A-Za-z0-9]+", "_", key).strip("_").upper()
    if name == "AUTHORIZATION":
        return "AUTHORIZATION"
    if not name or name[0].isdigit():
        name = "V_" + name
    return name
