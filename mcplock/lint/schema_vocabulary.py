"""The words of a schema change: the verdicts (tightened, loosened, neutral), the JSON Schema
keywords grouped by how their change reads, and the small helpers every keyword's judge shares.
A leaf: :mod:`mcplock.lint.schema_keywords`, :mod:`mcplock.lint.schema_bounds` and the differ
(:mod:`mcplock.lint.schema`) all read it."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

TIGHTENED, LOOSENED, NEUTRAL = "tightened", "loosened", "neutral"


# keyword -> +1 when a larger value accepts more, -1 when a larger value accepts less
UPPER = ("maxLength", "maximum", "exclusiveMaximum", "maxItems", "maxProperties", "maxContains")


LOWER = ("minLength", "minimum", "exclusiveMinimum", "minItems", "minProperties", "minContains")


# a value present restricts; absent accepts anything
RESTRICTING = ("pattern", "format", "const", "multipleOf", "contentMediaType", "contentEncoding")


SCHEMA_VALUED = (
    "items",
    "additionalItems",
    "contains",
    "not",
    "if",
    "then",
    "else",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
)


SCHEMA_MAPS = ("patternProperties", "dependentSchemas")


DEF_MAPS = ("$defs", "definitions")


# text and annotations of a schema: the model reads them, they do not change what validates
TEXT_KEYWORDS = (
    "description",
    "title",
    "examples",
    "default",
    "$comment",
    "deprecated",
    "readOnly",
    "writeOnly",
    "x-description",
    "$schema",
)


# neutral entries whose `what` starts with one of these do not change what the model is told or sent
COSMETIC_KEYWORDS = ("title", "$comment", "examples", "empty", "$schema", "respelled:", "enum reordered")


Classified = tuple[str, str, str]  # (path, "tightened" | "loosened" | "neutral", what)


# keywords whose value is a list of sub-schemas (judged one per position when the lengths hold)
BRANCHES = ("anyOf", "oneOf", "allOf", "prefixItems")


NUMERIC = ("maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum")


def as_json(v: Any) -> str:
    return json.dumps(v, sort_keys=True, ensure_ascii=False)


def types_of(v: Any) -> set[str] | None:
    if isinstance(v, str):
        return {v}
    if isinstance(v, list) and all(isinstance(x, str) for x in v):
        s = set(v)
        if "number" in s:
            s.add("integer")
        return s
    return None


def is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


MISSING: Any = object()


def added_or_removed(o: Any, n: Any, p: str, out: list[Classified], name: Callable[[Any], str]) -> bool:
    """Whether a keyword whose presence restricts was added (tightened) or removed (loosened): if so
    it is reported, as ``name(value)`` added or removed."""
    if o is MISSING:
        out.append((p, TIGHTENED, f"{name(n)} added"))
        return True
    if n is MISSING:
        out.append((p, LOOSENED, f"{name(o)} removed"))
        return True
    return False


# how a set of accepted values changed: (any added, any removed) -> direction
DIRECTION = {(False, False): "same", (True, False): "wider", (False, True): "narrower", (True, True): "changed"}
