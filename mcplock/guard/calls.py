"""``tools/call`` under the lock: local argument validation, the refusal a host sees, and
the upstream answers that count as drift evidence. Pure helpers; jsonschema loads lazily."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from mcplock.lock.model import Entry
from mcplock.trust.decide import Decision

# upstream answers to a call that passed the locked schema and still count as drift
_DRIFT_WORDS = ("unknown tool", "tool not found", "no such tool", "invalid params", "invalid arguments")


class Declared:
    """The argument names a locked input schema declares: its ``properties`` (and those of every
    ``allOf``/``anyOf``/``oneOf``/``if``/``then``/``else`` branch and local ``$ref`` it is made of),
    its ``patternProperties``; ``open`` when it admits other names itself (``additionalProperties`` or
    ``unevaluatedProperties`` present and not ``false``, a ``true`` schema, a ``$ref`` it cannot
    resolve). A call's argument that it does not declare is refused: no reviewed definition asked
    for it, and a server whose schema drifted could act on it."""

    __slots__ = ("names", "open", "patterns")

    def __init__(self, schema: Any) -> None:
        self.names: set[str] = set()
        self.patterns: list[Any] = []
        self.open = False
        self._visit(schema, schema, 0)
        if isinstance(schema, dict) and (
            schema.get("additionalProperties") is False or schema.get("unevaluatedProperties") is False
        ):
            self.open = True  # closed by the schema itself: jsonschema says it, in its own words

    def _visit(self, s: Any, root: Any, depth: int) -> None:
        if s is True or depth > 16:
            self.open = True
            return
        if not isinstance(s, dict):
            return
        self._own_names(s)
        for branch in _branches(s):
            self._visit(branch, root, depth + 1)
        ref = s.get("$ref")
        if isinstance(ref, str):
            target = _pointer(root, ref)
            if target is None:
                self.open = True
            else:
                self._visit(target, root, depth + 1)

    def _own_names(self, s: dict[str, Any]) -> None:
        """What one schema object declares itself: its properties, its patternProperties (one
        that does not compile opens it), and whether it admits other names."""
        import re

        props = s.get("properties")
        if isinstance(props, dict):
            self.names.update(props)
        pats = s.get("patternProperties")
        if isinstance(pats, dict):
            for p in pats:
                try:
                    self.patterns.append(re.compile(p))
                except (re.error, TypeError):
                    self.open = True
        for k in ("additionalProperties", "unevaluatedProperties"):
            if k in s and s[k] is not False:
                self.open = True

    def undeclared(self, arguments: Any) -> list[str]:
        if self.open or not isinstance(arguments, dict) or arguments.keys() <= self.names:
            return []
        return [
            f"{k}: not a property the locked schema declares (no reviewed definition asked for it)"
            for k in arguments
            if k not in self.names and not any(p.search(k) for p in self.patterns)
        ]


def _branches(s: dict[str, Any]) -> Iterator[Any]:
    """The subschemas a schema object is made of: its ``allOf``/``anyOf``/``oneOf`` branches, then
    its ``if``/``then``/``else``."""
    for k in ("allOf", "anyOf", "oneOf"):
        branches = s.get(k)
        if isinstance(branches, list):
            yield from branches
    for k in ("if", "then", "else"):
        if k in s:
            yield s[k]


def _pointer(root: Any, ref: str) -> Any:
    """The local target of ``ref`` (``#`` or ``#/…``) in ``root``; None when it is not local or missing."""
    if ref == "#":
        return root
    if not ref.startswith("#/"):
        return None
    node = root
    for part in ref[2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    return node


class Validators:
    """One compiled validator per accepted definition (keyed by its hash): jsonschema's, and
    for the common schema shapes a fast check that can only say "valid" (:mod:`~mcplock.guard.fastcheck`)."""

    def __init__(self) -> None:
        self._cache: dict[str, tuple[Any, Callable[[Any], bool] | None, Declared]] = {}

    def errors(self, entry: Entry, arguments: Any) -> list[str]:
        """What is wrong with ``arguments`` against the locked input schema ([] when valid)."""
        key = entry.hash or ""
        cached = self._cache.get(key)
        if cached is None:
            compiled = _compiled(entry)
            if isinstance(compiled, str):
                return [compiled]
            cached = self._cache[key] = compiled
        v, fast, declared = cached
        extra = declared.undeclared(arguments)
        if fast is not None and not extra:
            try:
                valid = fast(arguments)
            except Exception:  # an odd instance: jsonschema decides
                valid = False
            if valid:
                return []
        return _schema_errors(v, extra, arguments)


def _compiled(entry: Entry) -> tuple[Any, Callable[[Any], bool] | None, Declared] | str:
    """What checks a call of ``entry``: jsonschema's validator for its locked input schema, the
    fast check where the schema's draft is one :mod:`~mcplock.guard.fastcheck` follows, and the
    names it declares; or why the locked schema is not a valid JSON Schema."""
    import jsonschema
    from jsonschema import validators

    from mcplock.guard.fastcheck import compile_check

    schema = entry.definition.get("inputSchema") if isinstance(entry.definition, dict) else None
    if not isinstance(schema, dict):
        schema = {"type": "object"}
    cls = validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    try:
        cls.check_schema(schema)
    except jsonschema.SchemaError as e:
        return f"the locked schema is not a valid JSON Schema: {e.message}"
    same = cls in (jsonschema.Draft7Validator, jsonschema.Draft201909Validator, jsonschema.Draft202012Validator)
    return cls(schema), compile_check(schema) if same else None, Declared(schema)


def _schema_errors(v: Any, extra: list[str], arguments: Any) -> list[str]:
    """The undeclared names and jsonschema's errors for ``arguments``, in path order (20 at most)."""
    errs = sorted(v.iter_errors(arguments), key=lambda e: [str(p) for p in e.absolute_path])
    return [*extra, *(f"{'/'.join(str(p) for p in e.absolute_path) or '(arguments)'}: {e.message}" for e in errs)][:20]


def refused_result(decision: Decision) -> dict[str, Any]:
    """The ``isError`` result a refused call gets: why, and which command fixes it."""
    text = f"mcplock refused this call: {decision.message()}."
    return {"content": [{"type": "text", "text": text}], "isError": True, "_meta": {"mcplock/refused": decision.code}}


def elicitation_params(server: str, tool: str, arguments: Any) -> dict[str, Any]:
    import json

    shown = json.dumps(arguments, ensure_ascii=False, indent=2, sort_keys=True)
    if len(shown) > 4000:
        shown = shown[:4000] + "\n…"
    return {
        "mode": "form",
        "message": f"{GUARD_ASKS}Allow the MCP tool `{tool}` of server `{server}` to run with these arguments?\n"
        f"{shown}",
        "requestedSchema": {"type": "object", "properties": {}},
        "_meta": {APPROVAL_META: True},
    }


# The guard's own approval question reads apart from any server's: its message starts with
# GUARD_ASKS and carries _meta[APPROVAL_META]; a server's question relayed to the host starts with
# who asks (:func:`server_question`) and loses any APPROVAL_META it claimed.
GUARD_ASKS = "[mcplock approval] "
APPROVAL_META = "mcplock/approval"


def server_question(server: str, params: Any) -> Any:
    """A server's ``elicitation/create`` params as the host gets them: the message prefixed with
    the server's name (so "mcplock asks…" in it reads as the server's words) and no
    ``_meta["mcplock/approval"]``."""
    if not isinstance(params, dict):
        return params
    out = dict(params)
    if isinstance(out.get("message"), str):
        out["message"] = f"[server `{server}` asks] {out['message']}"
    meta = out.get("_meta")
    if isinstance(meta, dict) and APPROVAL_META in meta:
        out["_meta"] = {k: v for k, v in meta.items() if k != APPROVAL_META}
    return out


def drift_signal(response: dict[str, Any]) -> tuple[Any, str] | None:
    """(code, message) when an upstream answer to a locally valid call says the tool or its
    parameters are not what the lock holds; None otherwise."""
    err = response.get("error")
    if isinstance(err, dict):
        return _error_drift(err)
    res = response.get("result")
    if isinstance(res, dict) and res.get("isError") is True:
        return _tool_error_drift(res)
    return None


def _error_drift(err: dict[str, Any]) -> tuple[Any, str] | None:
    """A JSON-RPC error that says the tool or its parameters are unknown: invalid params (-32602),
    or one of the drift words in its message."""
    code, msg = err.get("code"), err.get("message")
    msg = msg if isinstance(msg, str) else ""
    if code == -32602 or any(w in msg.lower() for w in _DRIFT_WORDS):
        return code, msg
    return None


def _tool_error_drift(res: dict[str, Any]) -> tuple[Any, str] | None:
    """An ``isError`` result whose text says the tool is unknown (the first three drift words)."""
    texts = [c.get("text", "") for c in res.get("content") or [] if isinstance(c, dict)]
    joined = " ".join(t for t in texts if isinstance(t, str))
    if any(w in joined.lower() for w in _DRIFT_WORDS[:3]):
        return "isError", joined
    return None
