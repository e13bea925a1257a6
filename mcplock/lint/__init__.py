"""Security lint of server-sent definitions.

Pure and fast (stdlib ``re``/``unicodedata`` only; it runs in ``list`` too): no I/O, no
printing. :func:`lint_definition` checks one definition — every string in it, keys included —
for text that hides or redirects behaviour; :func:`lint_servers` checks tool names across
servers (shadowing, one server's text naming another server's tools).

One module per family: ``characters`` (invisible, bidi, tag characters, terminal escapes),
``instructions`` (instruction-like text aimed at the model), ``secrets`` (secrets locations,
exfiltration URLs), ``annotations`` (flips toward "safe"), ``servers`` (cross-server
shadowing and references), ``schema`` (a schema change, tightened or loosened).

Severities (:mod:`mcplock.severity`): ``critical`` for what hides or redirects behaviour
(invisible/bidi/tag characters, terminal escapes, instruction-like text aimed at the model, an
annotation flip toward "safe", a definition that names another server's tools); ``high`` for
shadowing and secrets paths named without a read/send verb; ``medium``/``low``/``info`` for notes.

Messages may quote an excerpt of untrusted text: hidden characters in an excerpt are shown as
``\\uXXXX`` escapes already, and renderers escape messages again anyway.
"""

from __future__ import annotations

from mcplock.lint.definition import lint_definition
from mcplock.lint.finding import RULES, LintFinding, rename_finding
from mcplock.lint.schema import classify_schema_change
from mcplock.lint.servers import cross_references, foreign_tools, lint_servers, references, shadowing

__all__ = [
    "RULES",
    "LintFinding",
    "classify_schema_change",
    "cross_references",
    "foreign_tools",
    "lint_definition",
    "lint_servers",
    "references",
    "rename_finding",
    "shadowing",
]
