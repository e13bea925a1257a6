"""The words of a schema change's verdict, shared by :mod:`mcplock.lint.schema_keywords` and
:mod:`mcplock.lint.schema_bounds`: tightened, loosened or neutral, and how values read."""

from __future__ import annotations

import json
from typing import Any

TIGHTENED, LOOSENED, NEUTRAL = "tightened", "loosened", "neutral"
Classified = tuple[str, str, str]  # (path, "tightened" | "loosened" | "neutral", what)
MISSING: Any = object()  # a keyword absent from a schema
NUMERIC = ("maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum")


def _j(v: Any) -> str:
    return json.dumps(v, sort_keys=True, ensure_ascii=False)


def _types(v: Any) -> set[str] | None:
    if isinstance(v, str):
        return {v}
    if isinstance(v, list) and all(isinstance(x, str) for x in v):
        s = set(v)
        if "number" in s:
            s.add("integer")
        return s
    return None


def _num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key
