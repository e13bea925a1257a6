"""A conforming ``mcp-lock/1`` reader (spec §9): every rule checked, each problem named.

:func:`read` takes the document's bytes and returns the value (None when it cannot be read at all)
and the problems found, each a :class:`Problem` whose ``rule`` is one of :data:`RULES`. Rules
the JSON Schema (vendored in ``schemas/``, from the specification's repository) expresses are
checked with it and named by what they say (``digest-format``, ``remote-url-https`` …); the
rules a schema cannot express (NFC-duplicate member names, entry identity, each ``integrity``,
immutable OCI references, no secret value) are checked here. Pure: no I/O beyond reading the
bundled schema.
"""

from __future__ import annotations

import base64
import json
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from mcplock.interop.canonical import DocumentError, canonical, loads
from mcplock.interop.digests import entry_integrity

SPEC_VERSION = 1

RULES: dict[str, str] = {
    "json": "§2: the document is one UTF-8 JSON text",
    "duplicate-key": "§8.2: no object has the same member name twice",
    "nfc-duplicate-key": "§8.2: no object has two member names equal after Unicode NFC normalization",
    "spec-version": "§10: a reader refuses a specVersion it does not support (this one reads 1)",
    "missing-field": "§2–§5: every member the specification requires is present",
    "schema": "the specification's JSON Schema (types and shapes)",
    "digest-format": "§8.1: every digest is sha256-<base64> of 32 bytes",
    "timestamp-format": "§2, §3: timestamps are RFC 3339",
    "unknown-target-type": "§4: a reader refuses a target type it does not recognize",
    "remote-url-https": "§4.2: a remote target's url is https:",
    "header-secret-name": "§4.2: headerSecretNames holds variable names, never values",
    "surface-coverage": "§5: coverage names name and description (and may add inputSchema), each once",
    "oci-mutable-identifier": "§4.1: an OCI identifier carries an immutable @sha256: digest reference",
    "duplicate-entry-identity": "§3: no two entries share the identity (name, client, scope)",
    "integrity": "§8.2: each entry's integrity is the digest of the entry without it",
    "canonical-form": "§8.2: every value has an RFC 8785 canonical form",
    "secret-value": "§1, §4.2: a conforming document holds no secret value anywhere",
    "empty-lock": "§9: an enforcer fails on a lock with no entries",
    "lock-digest": "§9.5: a provided whole-lock digest (§8.3) matches the document",
    "signature": "§9.5, §8.4: a provided signature verifies, over the document's whole-lock digest",
}

_OCI_DIGEST = re.compile(r"@sha256:[0-9a-f]{64}$")
# credential shapes (mcplock.lock.spec's list): a document that holds one is not conforming
_CREDENTIAL = re.compile(
    r"gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|sk-[A-Za-z0-9_-]{16,}|xox[abprs]-[A-Za-z0-9-]{10,}"
    r"|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{30,}|glpat-[A-Za-z0-9_-]{16,}|eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}"
    r"|-----BEGIN [A-Z ]*PRIVATE KEY-----"
)


@dataclass(frozen=True)
class Problem:
    rule: str  # a key of RULES
    message: str
    pointer: str = ""  # JSON pointer of the value it is about ("" for the document)
    entry: str | None = None  # the entry's name, when it is about one

    def as_json(self) -> dict[str, object]:
        return {
            "rule": self.rule,
            "message": self.message,
            "pointer": self.pointer,
            "entry": self.entry,
            "requirement": RULES[self.rule],
        }


@cache
def schema(name: str = "mcp-lockfile-v1") -> dict[str, Any]:
    text = resources.files("mcplock.interop").joinpath("schemas", f"{name}.schema.json").read_text("utf-8")
    value: dict[str, Any] = json.loads(text)
    return value


@cache
def _validator(name: str, ref: str | None = None) -> Any:
    from jsonschema import Draft202012Validator

    s = schema(name)
    if ref is not None:  # one definition of the schema, as a schema of its own
        s = {"$schema": s["$schema"], "$defs": s["$defs"], "$ref": f"#/$defs/{ref}"}
    return Draft202012Validator(s)


def pointer(path: Any) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


def _entry_name(doc: Any, path: tuple[Any, ...]) -> str | None:
    """The name of the entry ``path`` points into, when it has one."""
    if len(path) < 2 or path[0] != "entries":
        return None
    e = _entry_at(doc, path[1])
    return str(e["name"]) if isinstance(e, dict) and isinstance(e.get("name"), str) else None


def _entry_at(doc: Any, i: Any) -> Any:
    """The document's entry at index ``i`` (None: it has no such entry)."""
    entries = doc.get("entries") if isinstance(doc, dict) else None
    if isinstance(entries, list) and isinstance(i, int) and i < len(entries):
        return entries[i]
    return None


# a `pattern` the schema failed on -> the rule it enforces (by how the pattern starts)
_PATTERN_RULES = (("^sha256-", "digest-format"), ("^https://", "remote-url-https"), ("^\\d{4}-", "timestamp-format"))


def _rule_of(error: Any) -> str:
    path = list(error.absolute_path)
    if error.validator == "const" and path[-1:] == ["type"]:
        return "unknown-target-type"
    if error.validator == "required":
        return "missing-field"
    if "coverage" in path:
        return "surface-coverage"
    if "headerSecretNames" in path:
        return "header-secret-name"
    if error.validator == "pattern":
        return _pattern_rule(str(error.validator_value))
    return "schema"


def _pattern_rule(pattern: str) -> str:
    return next((rule for start, rule in _PATTERN_RULES if pattern.startswith(start)), "schema")


def _message(error: Any, prefix: tuple[Any, ...] = ()) -> str:
    path = [*prefix, *error.absolute_path]
    where = pointer(path) or "the document"
    if error.validator == "required":
        return f"{where or '/'} misses the required member `{_missing_member(error)}`"
    if error.validator == "pattern":
        return f"{where} does not have the required form ({error.validator_value})"
    return f"{where}: {error.message}"


def _missing_member(error: Any) -> Any:
    """The first required member a `required` error's object lacks."""
    return next(
        (r for r in error.validator_value if isinstance(error.instance, dict) and r not in error.instance), None
    )


def _schema_problems(doc: Any) -> list[Problem]:
    """The schema's, but each entry's target against the schema of its own type."""
    out: list[Problem] = []
    for error in sorted(_validator("mcp-lockfile-v1").iter_errors(doc), key=lambda e: list(map(str, e.path))):
        path = tuple(error.absolute_path)
        if not _in_target(path):  # targets below, by their type
            out.append(Problem(_rule_of(error), _message(error), pointer(path), _entry_name(doc, path)))
    entries = doc.get("entries") if isinstance(doc, dict) else None
    for i, e in enumerate(entries if isinstance(entries, list) else []):
        if isinstance(e, dict) and "target" in e:
            out.extend(_target_problems(e, ("entries", i, "target")))
    return out


def _in_target(path: tuple[Any, ...]) -> bool:
    """A place inside an entry's target (judged by the schema of the target's type)."""
    return len(path) >= 3 and path[0] == "entries" and path[2] == "target"


def _target_problems(e: dict[str, Any], base: tuple[Any, ...]) -> list[Problem]:
    """An entry's target against its type's schema; a type this reader does not know is one problem."""
    t = e["target"]
    name = e.get("name") if isinstance(e.get("name"), str) else None
    kind = t.get("type") if isinstance(t, dict) else None
    if kind not in ("package", "remote"):
        shown = json.dumps(kind) if kind is not None else "none"
        return [
            Problem(
                "unknown-target-type",
                f"{pointer(base)}: target type {shown} is not one this "
                "reader recognizes (package, remote): it cannot be enforced",
                pointer(base),
                name,
            )
        ]
    return [
        Problem(_rule_of(error), _message(error, base), pointer(base + tuple(error.absolute_path)), name)
        for error in _validator("mcp-lockfile-v1", f"{kind}Target").iter_errors(t)
    ]


_DIGEST_KEYS = ("digest", "configDigest", "integrity", "hash")


def _digest_lengths(doc: Any, path: tuple[Any, ...] = ()) -> list[Problem]:
    """Digests of the right form whose base64 does not hold 32 bytes (the schema's pattern allows
    them), anywhere outside the extensions."""
    out: list[Problem] = []
    if isinstance(doc, dict):
        for k, v in doc.items():
            out.extend(_member_digest_lengths(k, v, path))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            out.extend(_digest_lengths(v, (*path, i)))
    return out


def _member_digest_lengths(k: Any, v: Any, path: tuple[Any, ...]) -> list[Problem]:
    """One member ``k`` of the object at ``path``: a digest whose base64 does not hold 32 bytes is a
    problem; any other member is looked into, unless the object is inside the extensions."""
    if _digest_form(k, v):
        if _holds_sha256(v[7:]):
            return []
        p = (*path, k)
        return [Problem("digest-format", f"{pointer(p)} is not the base64 of a 32-byte SHA-256", pointer(p))]
    if "extensions" in path:  # the extensions are not the format's digests
        return []
    return _digest_lengths(v, (*path, k))


def _digest_form(k: Any, v: Any) -> bool:
    """A member named like a digest whose value has the form ``sha256-`` + base64."""
    return k in _DIGEST_KEYS and isinstance(v, str) and re.fullmatch(r"sha256-[A-Za-z0-9+/]+={0,2}", v) is not None


def _holds_sha256(b64: str) -> bool:
    try:
        return len(base64.b64decode(b64, validate=True)) == 32
    except ValueError:
        return False


def _secrets(doc: Any, path: tuple[Any, ...] = ()) -> list[Problem]:
    if isinstance(doc, str):
        return _secret_value(doc, path)
    out: list[Problem] = []
    for k, v in _members(doc):
        if isinstance(k, str) and _CREDENTIAL.search(k):
            out.append(
                Problem("secret-value", f"{pointer(path)} has a member name shaped like a credential", pointer(path))
            )
        out.extend(_secrets(v, (*path, k)))
    return out


def _secret_value(text: str, path: tuple[Any, ...]) -> list[Problem]:
    """A string shaped like a credential (never echoed)."""
    if not _CREDENTIAL.search(text):
        return []
    return [
        Problem(
            "secret-value",
            f"{pointer(path) or 'the document'} holds a value shaped like a "
            "credential (a token or key); a lock never holds a secret value",
            pointer(path),
        )
    ]


def _members(doc: Any) -> Any:
    """(key, value) of an object's members, (index, value) of an array's; nothing for a scalar."""
    if isinstance(doc, dict):
        return doc.items()
    return enumerate(doc) if isinstance(doc, list) else ()


def _entry_rules(doc: dict[str, Any]) -> list[Problem]:
    """The rules the schema cannot say, entry by entry: an identity used twice, an OCI tag, a
    coverage field named twice, an entry changed after it was written."""
    entries = doc.get("entries")
    if not isinstance(entries, list):
        return []
    out: list[Problem] = []
    seen: dict[tuple[str, ...], int] = {}  # an entry's identity, as JSON, -> its index
    for i, e in enumerate(entries):
        if not isinstance(e, dict):
            continue
        name = e.get("name") if isinstance(e.get("name"), str) else None
        base = ("entries", i)
        found = (
            _duplicate_identity(e, i, seen, name),
            _oci_mutable(e, base, name),
            _coverage_twice(e, base, name),
            _integrity_broken(e, base, name),
        )
        out.extend(p for p in found if p is not None)
    return out


def _duplicate_identity(
    e: dict[str, Any], i: int, seen: dict[tuple[str, ...], int], name: str | None
) -> Problem | None:
    """Entry ``i`` shares its (name, client, scope) with an earlier one (else it is recorded in ``seen``)."""
    identity = (e.get("name"), e.get("client"), e.get("scope", "project"))
    key = tuple(json.dumps(x, sort_keys=True) for x in identity)
    if key not in seen:
        seen[key] = i
        return None
    return Problem(
        "duplicate-entry-identity",
        f"entries {seen[key]} and {i} share the identity (name {json.dumps(identity[0])}, "
        f"client {json.dumps(identity[1])}, scope {json.dumps(identity[2])})",
        pointer(("entries", i)),
        name,
    )


def _oci_mutable(e: dict[str, Any], base: tuple[Any, ...], name: str | None) -> Problem | None:
    t = e.get("target")
    if not (isinstance(t, dict) and t.get("type") == "package" and t.get("registryType") == "oci"):
        return None
    ident = t.get("identifier")
    if not isinstance(ident, str) or _OCI_DIGEST.search(ident):
        return None
    where = pointer((*base, "target", "identifier"))
    return Problem(
        "oci-mutable-identifier",
        f"{where}: the OCI reference {json.dumps(ident)} names no @sha256: digest: a tag can be moved to other bytes",
        where,
        name,
    )


def _coverage_twice(e: dict[str, Any], base: tuple[Any, ...], name: str | None) -> Problem | None:
    s = e.get("surface")
    if not (isinstance(s, dict) and isinstance(s.get("coverage"), list)):
        return None
    cov = s["coverage"]
    if len(set(map(json.dumps, cov))) == len(cov):
        return None
    where = pointer((*base, "surface", "coverage"))
    return Problem("surface-coverage", f"{where} names a field twice", where, name)


def _integrity_broken(e: dict[str, Any], base: tuple[Any, ...], name: str | None) -> Problem | None:
    """The entry's recorded integrity is not its digest (or it has no canonical form to digest)."""
    stored = e.get("integrity")
    if not isinstance(stored, str):
        return None
    try:
        actual = entry_integrity(e)
    except ValueError as err:
        return Problem("canonical-form", f"{pointer(base)}: {err}", pointer(base), name)
    if actual == stored:
        return None
    where = pointer((*base, "integrity"))
    return Problem(
        "integrity",
        f"{where}: the entry's digest is {actual}, not the recorded {stored}: it was changed after it was written",
        where,
        name,
    )


def check(doc: Any) -> list[Problem]:
    """Every reader rule ``doc`` (a parsed document) breaks; [] when it conforms."""
    if not isinstance(doc, dict):
        return [Problem("schema", "the document is not a JSON object")]
    version = doc.get("specVersion")
    if "specVersion" in doc and (version != SPEC_VERSION or isinstance(version, bool)):
        return [
            Problem(
                "spec-version",
                f"specVersion {json.dumps(version)} is not supported (this reader "
                f"reads {SPEC_VERSION}); nothing else was judged",
                "/specVersion",
            )
        ]
    problems = _schema_problems(doc) + _digest_lengths(doc) + _entry_rules(doc) + _secrets(doc)
    try:
        canonical(doc)
    except ValueError as e:
        if not any(p.rule == "canonical-form" for p in problems):
            problems.append(Problem("canonical-form", f"the document: {e}"))
    return problems


def read(data: bytes) -> tuple[Any, list[Problem]]:
    """The document in ``data`` and the problems it has (the value is None when it cannot be read)."""
    try:
        doc = loads(data)
    except DocumentError as e:
        return None, [Problem(e.rule, e.message)]
    try:
        return doc, check(doc)
    except RecursionError:
        return doc, [Problem("json", "the document is nested too deeply to judge")]
