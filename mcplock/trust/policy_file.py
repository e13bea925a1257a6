"""Reading one policy file (docs/policy.md): TOML, ``version = 1``, every table and key known and
of its type. A file that cannot be read, is not TOML, or names a key or value this mcplock does
not know is an error (exit 2), never ignored: a typo in a rule must not switch the rule off."""

from __future__ import annotations

import re
import tomllib
from typing import Any

from mcplock.errors import ConfigError
from mcplock.model.severity import SEVERITIES
from mcplock.trust.policy_model import OrgPolicy

ENV = "MCPLOCK_POLICY"
VERSION = 1
_SCHEMA: dict[str, dict[str, type]] = {
    "tools": {"deny": list, "require-approval": list},
    "review": {"max-accepted-severity": str},
    "packages": {"require-pin": bool, "allow-registries": list},
    "servers": {"allow": list},
    "signing": {"require": bool, "keys": list},
    "publishers": {"keys": list},  # read by mcplock.publish.publishers (docs/publishers.md)
    "updates": {"min-age": int},  # read by mcplock.core.update_policy (docs/updates.md)
    "ci": {"proposed-drift": str},  # read by mcplock.core.update_policy (docs/updates.md)
}
REGISTRIES = ("npm", "pypi", "oci")
_FINGERPRINT = re.compile(r"sha256-[A-Za-z0-9+/]{43}=")


def _bad(path: str, message: str) -> ConfigError:
    return ConfigError(
        f"policy {path}: {message}",
        code="policy",
        hint=f"fix the policy file (docs/policy.md lists every key), or point --policy / {ENV} at the right one",
    )


def _strings(path: str, where: str, value: list[Any]) -> tuple[str, ...]:
    if not all(isinstance(v, str) and v for v in value):
        raise _bad(path, f"`{where}` must be a list of non-empty strings")
    return tuple(value)


def loads(text: str, path: str) -> OrgPolicy:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise _bad(path, f"not valid TOML: {e}") from None
    _check_version(path, data.get("version"))
    _check_shape(path, data)
    tools, review = data.get("tools", {}), data.get("review", {})
    packages, servers = data.get("packages", {}), data.get("servers", {})
    severity = review.get("max-accepted-severity")
    if severity is not None and severity not in SEVERITIES:
        raise _bad(path, f"`review.max-accepted-severity` must be one of {', '.join(SEVERITIES)}, not {severity!r}")
    registries = _registries(path, packages.get("allow-registries"))
    allow = servers.get("allow")
    signing = data.get("signing", {})
    keys = _signing_keys(path, signing)
    from mcplock.interop.canonical import canonical, sri

    return OrgPolicy(
        path=path,
        deny=_strings(path, "tools.deny", tools.get("deny", [])),
        require_approval=_strings(path, "tools.require-approval", tools.get("require-approval", [])),
        max_severity=severity,
        require_pin=packages.get("require-pin", False),
        allow_registries=registries,
        allow_servers=_strings(path, "servers.allow", allow) if allow is not None else None,
        require_signing=signing.get("require", False),
        keys=keys,
        own_digest=sri(canonical(data)),  # tomllib's types: no dates in a valid policy (every value is checked above)
    )


def _check_version(path: str, version: object) -> None:
    if version is None:
        raise _bad(path, "missing `version = 1`")
    if type(version) is not int or version != VERSION:  # `1.0`, `true` and `"1"` are not version 1
        raise _bad(path, f"unsupported `version = {version!r}` (this mcplock reads version {VERSION})")


def _check_shape(path: str, data: dict[str, Any]) -> None:
    """Every table and key known (:data:`_SCHEMA`), each value of its type."""
    for key, value in data.items():
        if key == "version":
            continue
        if key not in _SCHEMA:
            raise _bad(path, f"unknown key `{key}` (known: version, {', '.join(_SCHEMA)})")
        if not isinstance(value, dict):
            raise _bad(path, f"`{key}` must be a table (`[{key}]`)")
        _check_table(path, key, value)


def _check_table(path: str, key: str, value: dict[str, Any]) -> None:
    """One table's keys known (:data:`_SCHEMA`), each value of its type."""
    for sub, v in value.items():
        want = _SCHEMA[key].get(sub)
        if want is None:
            raise _bad(path, f"unknown key `{key}.{sub}` (known: {', '.join(_SCHEMA[key])})")
        if not isinstance(v, want):
            raise _bad(path, f"`{key}.{sub}` must be a {'list' if want is list else want.__name__}")


def _registries(path: str, value: list[Any] | None) -> tuple[str, ...] | None:
    """``packages.allow-registries``: known registries only (None: the key is absent)."""
    if value is None:
        return None
    registries = _strings(path, "packages.allow-registries", value)
    unknown = [r for r in registries if r not in REGISTRIES]
    if unknown:
        raise _bad(path, f"`packages.allow-registries` names {', '.join(unknown)} (known: {', '.join(REGISTRIES)})")
    return registries


def _signing_keys(path: str, signing: dict[str, Any]) -> tuple[str, ...]:
    """``signing.keys``: key fingerprints, at least one when ``signing.require`` is true."""
    keys = _strings(path, "signing.keys", signing.get("keys", []))
    bad = [k for k in keys if not _FINGERPRINT.fullmatch(k)]
    if bad:
        raise _bad(
            path,
            f"`signing.keys` holds {bad[0]!r}, not a key fingerprint (`sha256-<base64>`, as "
            "`mcplock fingerprint KEY.pub` prints it)",
        )
    if signing.get("require") and not keys:
        raise _bad(path, "`signing.require = true` needs the fingerprints of the keys that may sign in `signing.keys`")
    return keys


def load(path: str) -> OrgPolicy:
    from mcplock.model.files import SMALL_MAX, read_bounded

    try:
        raw = read_bounded(path, SMALL_MAX)
    except OSError as e:
        raise _bad(path, f"cannot read it: {e.strerror or e}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise _bad(path, "not UTF-8 text") from None
    return loads(text, path)
