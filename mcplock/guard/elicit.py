"""A server's question during a call (``elicitation/create``, form mode): read, check, answer.

The form is a flat object of primitive fields (string, number, integer, boolean, a string
enum), each with an optional ``default`` (SEP-1034). Everything here is pure: the terminal
form is in :mod:`mcplock.cli.elicit_form`, the session's handling in
:mod:`mcplock.guard.session`.

An answer is ``{"action": "accept", "content": {...}}``, ``{"action": "decline"}`` or
``{"action": "cancel"}``. :func:`settle` turns what a hook returned into what the server gets:
an accepted form completed with the defaults of omitted fields and checked against the
schema; anything that does not pass is declined (never send what the schema rejects).
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

# (server, the request's params) -> the answer (may be async)
Elicitor = Callable[[str, dict[str, Any]], "dict[str, Any] | Awaitable[dict[str, Any]]"]

DECLINE: dict[str, Any] = {"action": "decline"}
CANCEL: dict[str, Any] = {"action": "cancel"}
MISSING: Any = object()
KINDS = ("string", "number", "integer", "boolean")


@dataclass
class Field:
    name: str
    kind: str  # string, number, integer, boolean, enum
    title: str = ""
    description: str = ""
    required: bool = False
    default: Any = MISSING
    choices: list[str] = field(default_factory=list)  # enum values
    labels: list[str] = field(default_factory=list)  # their titles (enumNames / oneOf titles), or []
    minimum: float | None = None
    maximum: float | None = None
    min_length: int | None = None
    max_length: int | None = None


@dataclass
class Form:
    message: str
    fields: list[Field]


def parse(params: Any) -> Form | str:
    """The form a request asks for; a string saying why it cannot be answered otherwise."""
    if not isinstance(params, dict):
        return "the request has no params"
    if params.get("mode", "form") != "form":
        return "it asks to open a URL (mcplock call answers forms only)"
    schema = params.get("requestedSchema")
    if not isinstance(schema, dict):
        schema = {}
    props = schema.get("properties")
    if not isinstance(props, dict):
        return "its requestedSchema has no properties object"
    req = schema.get("required")
    required = req if isinstance(req, list) else []
    fields = []
    for name, prop in props.items():
        f = _field(str(name), prop, name in required)
        if isinstance(f, str):
            return f
        fields.append(f)
    message = params.get("message")
    return Form(message if isinstance(message, str) else "", fields)


def _field(name: str, prop: Any, required: bool) -> Field | str:
    if not isinstance(prop, dict):
        return f"field `{name}` is not a schema"
    kind = prop.get("type")
    f = Field(name, str(kind), required=required, title=_text(prop, "title"), description=_text(prop, "description"))
    if kind == "string" and _choices(f, prop):
        f.kind = "enum"
    elif kind not in KINDS:
        return f"field `{name}` is of a type mcplock cannot ask for ({kind!r})"
    _bounds(f, prop)
    if "default" in prop:
        f.default = prop["default"]
    return f


def _text(prop: dict[str, Any], key: str) -> str:
    v = prop.get(key)
    return v if isinstance(v, str) else ""


def _choices(f: Field, prop: dict[str, Any]) -> bool:
    """Set a string field's choices and their labels from ``enum`` (with ``enumNames``) or a
    ``oneOf`` of consts; False when it offers neither (a free-text field)."""
    if isinstance(prop.get("enum"), list):
        f.choices, f.labels = _enum_choices(prop["enum"], prop.get("enumNames"))
        return True
    if isinstance(prop.get("oneOf"), list):
        f.choices, f.labels = _const_choices(prop["oneOf"])
        return True
    return False


def _enum_choices(enum: list[Any], names: Any) -> tuple[list[str], list[str]]:
    """An ``enum``'s choices, labelled by its ``enumNames`` when they name each one (else no labels)."""
    choices = [str(v) for v in enum]
    labels = [str(n) for n in names] if isinstance(names, list) and len(names) == len(choices) else []
    return choices, labels


def _const_choices(one_of: list[Any]) -> tuple[list[str], list[str]]:
    """The ``const`` of each ``oneOf`` branch that has one, labelled by its ``title`` (else the const)."""
    opts = [o for o in one_of if isinstance(o, dict) and "const" in o]
    return [str(o["const"]) for o in opts], [str(o.get("title", o["const"])) for o in opts]


def _bounds(f: Field, prop: dict[str, Any]) -> None:
    """The numeric bounds (any number) and the length bounds (whole numbers) the schema gives."""
    for attr, key in (("minimum", "minimum"), ("maximum", "maximum")):
        v = prop.get(key)
        if isinstance(v, int | float) and not isinstance(v, bool):
            setattr(f, attr, v)
    for attr, key in (("min_length", "minLength"), ("max_length", "maxLength")):
        v = prop.get(key)
        if isinstance(v, int) and not isinstance(v, bool):
            setattr(f, attr, v)


def coerce(f: Field, text: str) -> Any:
    """The value typed for ``f`` (ValueError with the reason when it is not one)."""
    text = text.strip()
    if f.kind == "boolean":
        return _yes_or_no(text)
    if f.kind in ("integer", "number"):
        return _number(text, whole=f.kind == "integer")
    if f.kind == "enum" and text.isdigit() and text not in f.choices and 1 <= int(text) <= len(f.choices):
        return f.choices[int(text) - 1]  # the choice's number
    return text


def _yes_or_no(text: str) -> bool:
    low = text.lower()
    if low in ("y", "yes", "true", "1"):
        return True
    if low in ("n", "no", "false", "0"):
        return False
    raise ValueError("answer yes or no")


def _number(text: str, *, whole: bool) -> int | float:
    try:
        return int(text)
    except ValueError:
        if whole:
            raise ValueError("a whole number, please") from None
    try:
        return float(text)
    except ValueError:
        raise ValueError("a number, please") from None


def problem(f: Field, v: Any) -> str | None:
    """Why ``v`` is not a valid value for ``f``; None when it is."""
    if f.kind == "boolean":
        return None if isinstance(v, bool) else "not true or false"
    if f.kind in ("integer", "number"):
        return _number_problem(f, v)
    if not isinstance(v, str):
        return "not text"
    if f.kind == "enum":
        return None if v in f.choices else "not one of the choices"
    return _length_problem(f, v)


def _number_problem(f: Field, v: Any) -> str | None:
    if isinstance(v, bool) or not isinstance(v, int | float) or (isinstance(v, float) and not math.isfinite(v)):
        return "not a number"
    if f.kind == "integer" and isinstance(v, float) and not v.is_integer():
        return "not a whole number"
    return _range_problem(f, v)


def _range_problem(f: Field, v: float) -> str | None:
    """Why a number is outside the field's ``minimum`` and ``maximum``; None when it is inside."""
    if f.minimum is not None and v < f.minimum:
        return f"less than {f.minimum:g}"
    if f.maximum is not None and v > f.maximum:
        return f"more than {f.maximum:g}"
    return None


def _length_problem(f: Field, v: str) -> str | None:
    if f.min_length is not None and len(v) < f.min_length:
        return f"shorter than {f.min_length} characters"
    if f.max_length is not None and len(v) > f.max_length:
        return f"longer than {f.max_length} characters"
    return None


def complete(form: Form, content: Any) -> dict[str, Any] | str:
    """``content`` with the default of every omitted field, checked; a string saying what is wrong."""
    if not isinstance(content, dict):
        return "the content is not an object"
    known = {f.name for f in form.fields}
    extra = sorted(set(content) - known)
    if extra:
        return f"`{extra[0]}` is not a field of the form"
    out: dict[str, Any] = {}
    for f in form.fields:
        v = content.get(f.name, f.default)
        if v is MISSING:
            if f.required:
                return f"`{f.name}` is required and has no default"
            continue
        why = problem(f, v)
        if why is not None:
            return f"`{f.name}`: {why}"
        out[f.name] = v
    return out


def settle(form: Form, answer: Any) -> tuple[dict[str, Any], str | None]:
    """The result the server gets for a hook's ``answer``, and why it was declined (or None)."""
    action = answer.get("action") if isinstance(answer, dict) else None
    if action in ("decline", "cancel"):
        return {"action": action}, None
    if action != "accept":
        return dict(DECLINE), f"the answer's action is {action!r}, not accept, decline or cancel"
    content = complete(form, answer.get("content") or {})
    if isinstance(content, str):
        return dict(DECLINE), content
    return {"action": "accept", "content": content}, None


def decline(_server: str, _params: dict[str, Any]) -> dict[str, Any]:
    """An :data:`Elicitor` that declines every question (the default off a terminal)."""
    return dict(DECLINE)
