"""Security lint of server-sent definitions.

Pure and fast (stdlib ``re``/``unicodedata`` only; it runs in ``list`` too): no I/O, no
printing — but for :mod:`mcplock.lint.cache`, what ``check`` remembers per definition hash.
:func:`lint_definition` checks one definition — every string in it, keys included —
for text that hides or redirects behaviour; :func:`lint_servers` checks tool names across
servers (shadowing, one server's text naming another server's tools).

One module per family: ``characters`` (invisible, bidi, tag characters, terminal escapes),
``intent`` (what a sentence asks the model to do, words per language in ``lexicon``),
``instructions`` (instruction-like text aimed at the model), ``secrets`` (secrets locations,
exfiltration URLs, encoded blobs, tracking images), ``annotations`` (flips toward "safe"),
``names`` (confusable tool names), ``servers`` (cross-server shadowing and references),
``schema`` (a schema change, tightened or loosened).

Severities (:mod:`mcplock.model.severity`, rules in docs/severity.md) follow the intent model
(``intent``): what an added sentence asks the model to do. ``critical`` for an act beyond a
tool's job (data to a destination, another tool's turf) combined with concealment or a claim of
authority, for anything found only once a disguise is undone, for hidden/bidi/tag characters,
terminal escapes, model-directed markup, "ignore previous instructions", an annotation flip
toward "safe" and a name confusable with another tool's; ``high`` for an act or an order to
conceal on its own, contradicted annotations, shadowing another locked server's tool, a secrets
path, an encoded blob or tracking image; ``medium``/``low``/``info`` for notes (a host built-in's
name, first-time annotations).

Messages may quote an excerpt of untrusted text: hidden characters in an excerpt are shown as
``\\uXXXX`` escapes already, and renderers escape messages again anyway.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcplock.lint.definition import lint_definition
    from mcplock.lint.finding import RULES, LintFinding, rename_finding
    from mcplock.lint.names import confusable_names
    from mcplock.lint.schema import classify_schema_change
    from mcplock.lint.servers import cross_references, foreign_tools, lint_servers, references, shadowing

# name -> its module: imported on first use, so that `mcplock.lint.cache` (check's warm path) loads
# no rule module at all
_WHERE = {
    "lint_definition": "definition",
    "RULES": "finding",
    "LintFinding": "finding",
    "rename_finding": "finding",
    "confusable_names": "names",
    "classify_schema_change": "schema",
    "cross_references": "servers",
    "foreign_tools": "servers",
    "lint_servers": "servers",
    "references": "servers",
    "shadowing": "servers",
}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'mcplock.lint' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"mcplock.lint.{module}"), name)
    if name == "RULES":  # every rule, an MCP App document's (lint/apps.py) included
        from mcplock.lint.apps import RULES as APP_RULES

        value = {**value, **APP_RULES}
    globals()[name] = value
    return value


__all__ = [
    "RULES",
    "LintFinding",
    "classify_schema_change",
    "confusable_names",
    "cross_references",
    "foreign_tools",
    "lint_definition",
    "lint_servers",
    "references",
    "rename_finding",
    "shadowing",
]
