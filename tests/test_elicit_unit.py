"""mcplock.guard.elicit in-process: how a form is read from a request and how a value is judged.

tests/test_call_elicit.py drives the same code through real servers and a terminal; these pin
each field kind's reading and each reason a value is refused, fast.
"""

from __future__ import annotations

import math

import pytest

from mcplock.guard.elicit import MISSING, Field, coerce, complete, parse, problem, settle


def _form(props, required=()):
    return parse({"message": "m", "requestedSchema": {"properties": props, "required": list(required)}})


def test_a_string_enum_with_enum_names_is_a_choice_with_labels():
    (f,) = _form({"c": {"type": "string", "enum": ["a", "b"], "enumNames": ["A", "B"], "title": "T"}}).fields
    assert (f.kind, f.choices, f.labels, f.title, f.description) == ("enum", ["a", "b"], ["A", "B"], "T", "")


def test_enum_names_of_another_length_give_no_labels():
    (f,) = _form({"c": {"type": "string", "enum": ["a", "b"], "enumNames": ["A"]}}).fields
    assert (f.kind, f.choices, f.labels) == ("enum", ["a", "b"], [])


def test_a_one_of_of_consts_is_a_choice_titled_by_its_titles():
    prop = {"type": "string", "oneOf": [{"const": "x", "title": "Ex"}, {"const": "y"}, {"title": "no const"}, 3]}
    (f,) = _form({"c": prop}).fields
    assert (f.kind, f.choices, f.labels) == ("enum", ["x", "y"], ["Ex", "y"])


def test_a_plain_string_keeps_its_kind_and_its_length_bounds():
    (f,) = _form({"s": {"type": "string", "minLength": 2, "maxLength": True, "description": "d"}}, ["s"]).fields
    assert (f.kind, f.min_length, f.max_length, f.required, f.description) == ("string", 2, None, True, "d")
    assert f.default is MISSING


def test_numeric_bounds_take_any_number_but_no_boolean():
    (f,) = _form({"n": {"type": "number", "minimum": 0.5, "maximum": False, "default": 1}}).fields
    assert (f.minimum, f.maximum, f.default) == (0.5, None, 1)


def test_what_cannot_be_asked_for_is_said():
    assert _form({"o": {"type": "object"}}) == "field `o` is of a type mcplock cannot ask for ('object')"
    assert _form({"o": {"type": "array", "enum": ["a"]}}) == "field `o` is of a type mcplock cannot ask for ('array')"
    assert _form({"o": 3}) == "field `o` is not a schema"
    assert parse(None) == "the request has no params"
    assert parse({"mode": "url"}) == "it asks to open a URL (mcplock call answers forms only)"


@pytest.mark.parametrize(
    ("field", "value", "why"),
    [
        (Field("b", "boolean"), True, None),
        (Field("b", "boolean"), 1, "not true or false"),
        (Field("n", "number"), True, "not a number"),
        (Field("n", "number"), math.inf, "not a number"),
        (Field("n", "number"), "1", "not a number"),
        (Field("i", "integer"), 1.5, "not a whole number"),
        (Field("i", "integer"), 2.0, None),
        (Field("n", "number", minimum=1), 0.5, "less than 1"),
        (Field("n", "number", maximum=1.5), 2, "more than 1.5"),
        (Field("n", "number", minimum=1, maximum=2), 1.5, None),
        (Field("s", "string"), 3, "not text"),
        (Field("e", "enum", choices=["a"]), "a", None),
        (Field("e", "enum", choices=["a"], min_length=5), "b", "not one of the choices"),
        (Field("s", "string", min_length=2), "a", "shorter than 2 characters"),
        (Field("s", "string", max_length=2), "abc", "longer than 2 characters"),
        (Field("s", "string", min_length=1, max_length=3), "ab", None),
    ],
)
def test_each_reason_a_value_is_refused(field, value, why):
    assert problem(field, value) == why


def test_an_accepted_form_is_completed_with_defaults_and_checked():
    form = _form({"a": {"type": "integer", "default": 3}, "b": {"type": "string", "minLength": 2}}, ["b"])
    assert complete(form, {"b": "xy"}) == {"a": 3, "b": "xy"}
    assert settle(form, {"action": "accept", "content": {"b": "x"}}) == (
        {"action": "decline"},
        "`b`: shorter than 2 characters",
    )


@pytest.mark.parametrize(
    ("field", "text", "value"),
    [
        (Field("b", "boolean"), " Yes ", True),
        (Field("b", "boolean"), "0", False),
        (Field("i", "integer"), "42", 42),
        (Field("n", "number"), "42", 42),
        (Field("n", "number"), "-1.5", -1.5),
        (Field("e", "enum", choices=["a", "b"]), "2", "b"),  # the choice's number
        (Field("e", "enum", choices=["1", "2"]), "2", "2"),  # a choice that is a number is itself
        (Field("e", "enum", choices=["a"]), "5", "5"),  # no such number: the text, for problem() to refuse
        (Field("s", "string"), "  x ", "x"),
    ],
)
def test_what_is_typed_becomes_a_value(field, text, value):
    got = coerce(field, text)
    assert got == value and type(got) is type(value)


@pytest.mark.parametrize(
    ("field", "text", "why"),
    [
        (Field("b", "boolean"), "maybe", "answer yes or no"),
        (Field("i", "integer"), "1.5", "a whole number, please"),
        (Field("n", "number"), "one", "a number, please"),
    ],
)
def test_what_cannot_be_a_value_says_why(field, text, why):
    with pytest.raises(ValueError, match=why):
        coerce(field, text)
