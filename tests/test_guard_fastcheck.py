"""The guard's fast argument check never says "valid" where jsonschema would not
(mcplock/guard/fastcheck.py), and the guard's validation keeps jsonschema's verdicts and words."""

from __future__ import annotations

from collections import OrderedDict
from decimal import Decimal

import jsonschema
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from jsonschema import validators

from mcplock.guard.calls import Validators
from mcplock.guard.fastcheck import compile_check
from mcplock.lock.model import Entry

KEYS = st.sampled_from(["a", "b", "c", "d"])
TEXT = st.text(alphabet="ab1- é", max_size=4)
NUM = st.one_of(st.integers(-3, 3), st.floats(-3, 3, allow_nan=False), st.sampled_from([2**70, 1.0, -0.0, 2.5]))
SCALARS = [None, True, False, 0, 1, -1, 2**70, 0.0, 1.0, -0.0, 2.5, float("nan"), float("inf"), "", "a", "ab1", "é"]
json_values = st.recursive(
    st.one_of(st.sampled_from(SCALARS), st.integers(-5, 5), st.floats(allow_nan=True, allow_infinity=True), TEXT),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(KEYS, inner, max_size=3)),
    max_leaves=8,
)
TYPES = st.sampled_from(["object", "array", "string", "integer", "number", "boolean", "null"])


def _schemas(inner: st.SearchStrategy) -> st.SearchStrategy:
    keyword = st.one_of(
        st.tuples(st.just("type"), st.one_of(TYPES, st.lists(TYPES, min_size=1, max_size=3, unique=True))),
        st.tuples(st.just("properties"), st.dictionaries(KEYS, inner, max_size=3)),
        st.tuples(st.just("required"), st.lists(KEYS, max_size=3, unique=True)),
        st.tuples(st.just("additionalProperties"), inner),
        st.tuples(st.just("items"), inner),
        st.tuples(st.just("enum"), st.lists(TEXT, min_size=1, max_size=3)),
        st.tuples(st.sampled_from(["minLength", "maxLength", "minItems", "maxItems"]), st.integers(0, 3)),
        st.tuples(st.sampled_from(["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]), NUM),
        st.tuples(st.just("pattern"), st.sampled_from(["^a", "b$", "[0-9]", "^(a|b)+$", "é"])),
        st.tuples(st.sampled_from(["title", "description", "format"]), st.sampled_from(["email", "x", "date"])),
    )
    return st.one_of(st.booleans(), st.lists(keyword, max_size=4).map(dict))


schemas = st.recursive(st.booleans() | st.just({}), _schemas, max_leaves=6)
DRAFTS = st.sampled_from(
    [
        None,
        "http://json-schema.org/draft-07/schema#",
        "https://json-schema.org/draft/2019-09/schema",
        "https://json-schema.org/draft/2020-12/schema",
    ]
)


@settings(max_examples=600, deadline=None)
@given(schemas, DRAFTS, st.lists(json_values, min_size=1, max_size=6))
def test_the_fast_check_agrees_with_jsonschema(schema, draft, instances):
    if draft is not None and isinstance(schema, dict):
        schema = {**schema, "$schema": draft}
    cls = validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    try:
        cls.check_schema(schema)
    except jsonschema.SchemaError:
        assume(False)
    fast = compile_check(schema)
    assert fast is not None  # every schema of this strategy is one it reproduces
    v = cls(schema)
    for instance in instances:
        assert fast(instance) == v.is_valid(instance), (schema, instance)


@pytest.mark.parametrize(
    "keyword",
    [{"type": t} for t in ("object", "array", "string", "integer", "number", "boolean", "null")]
    + [
        {"minimum": 1},
        {"maximum": 1.0},
        {"exclusiveMinimum": 0},
        {"exclusiveMaximum": 2**70},
        {"minLength": 1},
        {"maxLength": 1},
        {"minItems": 1},
        {"maxItems": 0},
        {"pattern": "a"},
        {"enum": ["a", "1"]},
        {"required": ["a"]},
        {"additionalProperties": False},
        {"items": False},
        {"properties": {"a": False}},
    ],
)
def test_each_keyword_on_every_kind_of_value(keyword):
    fast = compile_check(keyword)
    assert fast is not None
    v = jsonschema.Draft202012Validator(keyword)
    for x in [*SCALARS, [], [1], {}, {"a": 1}, {"b": None}]:
        assert fast(x) == v.is_valid(x), (keyword, x)


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"a": {"$ref": "#/$defs/x"}}, "$defs": {"x": {"type": "string"}}},
        {"anyOf": [{"type": "string"}, {"type": "integer"}]},
        {"type": "object", "patternProperties": {"^x": {"type": "string"}}, "additionalProperties": False},
        {"enum": [1, True]},
        {"const": "a"},
        {"type": "number", "multipleOf": 0.1},
        {"properties": {"a": {"$schema": "https://json-schema.org/draft/2020-12/schema"}}},
    ],
)
def test_what_it_does_not_reproduce_is_left_to_jsonschema(schema):
    assert compile_check(schema) is None


def test_anything_but_plain_json_is_left_to_jsonschema():
    fast = compile_check({"properties": {"a": {"type": "string"}}, "minimum": 3})
    assert fast is not None
    assert fast({"a": "x"}) is True
    assert fast(OrderedDict(a=1)) is False  # jsonschema: invalid (a dict subclass is an object)
    assert fast(OrderedDict(a="x")) is False  # valid for jsonschema, but not decided here
    assert fast(Decimal(1)) is False


def _entry(schema, h="sha256:x"):
    return Entry(kind="tool", key="t", definition={"name": "t", "inputSchema": schema}, hash=h, enabled=True)


def test_validation_keeps_jsonschema_verdicts_and_words():
    v = Validators()
    schema = {
        "type": "object",
        "properties": {"q": {"type": "string", "minLength": 2}},
        "required": ["q"],
        "additionalProperties": False,
    }
    e = _entry(schema)
    assert v.errors(e, {"q": "ok"}) == []
    assert v.errors(e, {"q": "x", "z": 1}) == [
        "(arguments): Additional properties are not allowed ('z' was unexpected)",
        "q: 'x' is too short",
    ]
    assert v.errors(e, {}) == ["(arguments): 'q' is a required property"]
    assert v.errors(e, OrderedDict(q=1)) == ["q: 1 is not of type 'string'"]  # a dict subclass: jsonschema decides


def test_a_draft_4_schema_is_left_to_jsonschema():
    v = Validators()
    e = _entry(
        {
            "$schema": "http://json-schema.org/draft-04/schema#",
            "type": "number",
            "minimum": 1,
            "exclusiveMinimum": True,
        },
        h="sha256:d4",
    )
    assert v.errors(e, 2) == []
    assert v.errors(e, 1) == ["(arguments): 1 is less than or equal to the minimum of 1"]
