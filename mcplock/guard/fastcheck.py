"""A fast "valid" for the common shape of tool input schemas, never one jsonschema would not give.

jsonschema walks a schema through generic machinery (about 20 µs for a small object schema
per call) while most tool schemas use a handful of keywords. :func:`compile_check` turns a
schema made only of those into plain functions; they mean the same in Draft 7, 2019-09 and
2020-12, the drafts it is used for. Any other keyword, a nested ``$schema``, a ``$ref``, an
``enum`` of non-strings — anything not reproduced exactly — gives None and jsonschema alone
decides. The functions answer True only where jsonschema finds the instance
valid; False means "ask jsonschema" (it decides, and words the errors), which is also the
answer for anything but plain JSON values (a dict subclass, a Decimal). tests/test_guard_fastcheck.py
compares it with jsonschema on generated schemas and instances.
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Callable
from typing import Any

Check = Callable[[Any], bool]

_ANNOTATIONS = {
    "title",
    "description",
    "default",
    "examples",
    "$comment",
    "format",
    "deprecated",
    "readOnly",
    "writeOnly",
}  # `format` asserts nothing: Validators passes no format checker
_KEYWORDS = {
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minItems",
    "maxItems",
    "pattern",
}


class _Unsupported(Exception):
    pass


def _is_num(x: Any) -> bool:
    return type(x) is int or type(x) is float


# exact JSON types only: anything else is False ("ask jsonschema")
_TYPES: dict[str, Check] = {
    "object": lambda x: type(x) is dict,
    "array": lambda x: type(x) is list,
    "string": lambda x: type(x) is str,
    "integer": lambda x: type(x) is int or (type(x) is float and x.is_integer()),
    "number": _is_num,
    "boolean": lambda x: type(x) is bool,
    "null": lambda x: x is None,
}


def _other(x: Any, cls: type) -> bool:
    """True when ``x`` is plainly not of ``cls`` (the keyword does not apply); False for a subclass."""
    return not isinstance(x, cls)


def _within(fail: Callable[[Any, Any], bool], bound: Any) -> Check:
    """The check of one numeric bound: a number that does not ``fail`` it passes."""
    return lambda x: not fail(x, bound) if _is_num(x) else _not_number(x)


def _not_number(x: Any) -> bool:
    return isinstance(x, bool) or not isinstance(x, numbers.Number)


def compile_check(schema: Any) -> Check | None:
    """A function that is True only when jsonschema (Draft 7, 2019-09 or 2020-12, as the
    caller chose by ``$schema``; no format checker) finds the instance valid against
    ``schema``; None when the schema uses anything not reproduced."""
    if type(schema) is dict and "$schema" in schema:
        schema = {k: v for k, v in schema.items() if k != "$schema"}
    try:
        return _compile(schema)
    except _Unsupported:
        return None


def _all_of(checks: list[Check]) -> Check:
    """The check that each of (two or more) ``checks`` holds, in order: ``and``s, not a generator
    for ``all`` on every call (a call's schema is checked on the guard's per-call path)."""
    first, rest = checks[0], checks[1:]
    second = rest[0] if len(rest) == 1 else _all_of(rest)
    return lambda x: first(x) and second(x)


def _count(v: Any) -> int:
    if type(v) is not int or v < 0:
        raise _Unsupported
    return v


def _compile(schema: Any) -> Check:
    if schema is True:
        return lambda _x: True
    if schema is False:
        return lambda _x: False
    if type(schema) is not dict or set(schema) - _ANNOTATIONS - _KEYWORDS:
        raise _Unsupported
    checks = _type_checks(schema) + _enum_checks(schema)
    checks += _object_checks(schema) + _scalar_checks(schema) + _items_checks(schema)
    if not checks:
        return lambda _x: True
    if len(checks) == 1:
        return checks[0]
    return _all_of(checks)


def _type_checks(schema: dict[str, Any]) -> list[Check]:
    """The check of ``type``: one name or a list of them."""
    if "type" not in schema:
        return []
    names = schema["type"] if type(schema["type"]) is list else [schema["type"]]
    if not names or any(type(n) is not str or n not in _TYPES for n in names):
        raise _Unsupported
    preds = [_TYPES[n] for n in names]
    return [preds[0] if len(preds) == 1 else lambda x: any(p(x) for p in preds)]


def _enum_checks(schema: dict[str, Any]) -> list[Check]:
    """The check of an ``enum`` of strings."""
    if "enum" not in schema:
        return []
    values = schema["enum"]
    if type(values) is not list or not all(type(v) is str for v in values):
        raise _Unsupported  # jsonschema's equality of other values (1, 1.0, true) is not copied here
    allowed = frozenset(values)
    return [lambda x: type(x) is str and x in allowed]


def _items_checks(schema: dict[str, Any]) -> list[Check]:
    if "items" not in schema:
        return []
    item = _compile(schema["items"])
    return [lambda x: all(item(i) for i in x) if type(x) is list else _other(x, list)]


def _object_checks(schema: dict[str, Any]) -> list[Check]:
    props = schema.get("properties", {})
    required = schema.get("required", [])
    if type(props) is not dict or type(required) is not list or not all(type(r) is str for r in required):
        raise _Unsupported
    subs = {k: _compile(v) for k, v in props.items()}
    extra = schema.get("additionalProperties", True)
    extra_check = None if extra is True else _compile(extra)
    if not subs and not required and extra_check is None:
        return []

    def check(x: Any) -> bool:
        if type(x) is not dict:
            return _other(x, dict)
        for r in required:
            if r not in x:
                return False
        for k, v in x.items():
            sub = subs.get(k, extra_check)
            if sub is not None and not sub(v):
                return False
        return True

    return [check]


def _scalar_checks(schema: dict[str, Any]) -> list[Check]:
    return _length_checks(schema) + _pattern_checks(schema) + _bound_checks(schema) + _size_checks(schema)


def _length_checks(schema: dict[str, Any]) -> list[Check]:
    """``minLength`` and ``maxLength`` of a string."""
    out: list[Check] = []
    if "minLength" in schema:
        n = _count(schema["minLength"])
        out.append(lambda x: not len(x) < n if type(x) is str else _other(x, str))
    if "maxLength" in schema:
        m = _count(schema["maxLength"])
        out.append(lambda x: not len(x) > m if type(x) is str else _other(x, str))
    return out


def _pattern_checks(schema: dict[str, Any]) -> list[Check]:
    """``pattern``: a regular expression Python reads as jsonschema does, searched for."""
    if "pattern" not in schema:
        return []
    if type(schema["pattern"]) is not str:
        raise _Unsupported
    try:
        rx = re.compile(schema["pattern"])
    except re.error:
        raise _Unsupported from None
    return [lambda x: rx.search(x) is not None if type(x) is str else _other(x, str)]


# jsonschema's own comparisons, negated: `minimum` fails on `x < bound`, and so on
_FAILS: dict[str, Callable[[Any, Any], bool]] = {
    "minimum": lambda x, b: x < b,
    "maximum": lambda x, b: x > b,
    "exclusiveMinimum": lambda x, b: x <= b,
    "exclusiveMaximum": lambda x, b: x >= b,
}


def _bound_checks(schema: dict[str, Any]) -> list[Check]:
    """The numeric bounds, each a number."""
    out: list[Check] = []
    for key, fail in _FAILS.items():
        if key in schema:
            bound = schema[key]
            if not _is_num(bound):
                raise _Unsupported
            out.append(_within(fail, bound))
    return out


def _size_checks(schema: dict[str, Any]) -> list[Check]:
    """``minItems`` and ``maxItems`` of an array."""
    out: list[Check] = []
    if "minItems" in schema:
        lo = _count(schema["minItems"])
        out.append(lambda x: not len(x) < lo if type(x) is list else _other(x, list))
    if "maxItems" in schema:
        hi = _count(schema["maxItems"])
        out.append(lambda x: not len(x) > hi if type(x) is list else _other(x, list))
    return out
