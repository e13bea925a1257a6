"""mcplock/lock/param_headers.py, in-process: where an `x-mcp-header` may stand, how a value is encoded,
and which headers a request carries (tests/test_eras_probe.py covers the common cases end to end)."""

from __future__ import annotations

import pytest

from mcplock.lock.param_headers import encode, headers, problems


def _tool(schema: dict) -> dict:
    return {"name": "t", "inputSchema": schema}


def test_stray_annotations_are_named_by_their_path_and_reachable_ones_are_not():
    schema = {
        "type": "object",
        "properties": {
            "a": {"type": "string", "x-mcp-header": "A"},  # reachable: fine
            "obj": {"type": "object", "properties": {"b": {"type": "string", "x-mcp-header": "B"}}},
            "list": {"type": "array", "items": [{"type": "string", "x-mcp-header": "L"}]},
            "alt": {"anyOf": [{"properties": {"c": {"type": "string", "x-mcp-header": "C"}}}]},
        },
        "$defs": {"d": {"type": "string", "x-mcp-header": "D"}},
    }
    assert problems(_tool(schema)) == [
        "`x-mcp-header` at /properties/list/items/0 is not reachable through `properties` alone",
        "`x-mcp-header` at /properties/alt/anyOf/0/properties/c is not reachable through `properties` alone",
        "`x-mcp-header` at /$defs/d is not reachable through `properties` alone",
    ]


def test_an_annotation_on_the_schema_itself_is_named_once():
    assert problems(_tool({"type": "object", "x-mcp-header": "Root", "properties": {}})) == [
        "`x-mcp-header` on the input schema itself, not on a parameter"
    ]


def test_a_properties_key_off_the_chain_is_not_the_chain():
    # `properties` under `items` is a schema keyword, but not reachable through `properties` alone
    schema = {"properties": {"v": {"items": {"properties": {"w": {"type": "string", "x-mcp-header": "W"}}}}}}
    assert problems(_tool(schema)) == [
        "`x-mcp-header` at /properties/v/items/properties/w is not reachable through `properties` alone"
    ]


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (True, "true"),
        (False, "false"),
        (0, "0"),
        (-7, "-7"),
        (2**53 - 1, "9007199254740991"),
        (2**53, None),  # beyond what a JSON number holds exactly
        (-(2**53), None),
        (3.0, "3"),
        (3.5, None),
        (float(2**53), None),
        ("plain", "plain"),
        ("", "=?base64??="),
        (" lead", "=?base64?IGxlYWQ=?="),
        ("inner space", "inner space"),
        (None, None),
        ([1], None),
        ({"a": 1}, None),
    ],
)
def test_encode_turns_each_primitive_into_its_header_text(value, text):
    assert encode(value) == text


def test_only_calls_reads_and_gets_carry_a_name_and_only_calls_carry_params():
    tool = _tool({"properties": {"r": {"type": "string", "x-mcp-header": "Region"}}})
    tools = {"t": tool}
    base = {"MCP-Protocol-Version": "v"}
    assert headers({"method": "tools/list"}, "v", tools) == {**base, "Mcp-Method": "tools/list"}
    assert headers({"method": "resources/read", "params": {"uri": "file:///é"}}, "v", tools) == {
        **base,
        "Mcp-Method": "resources/read",
        "Mcp-Name": "=?base64?ZmlsZTovLy/DqQ==?=",
    }
    assert headers({"method": "prompts/get", "params": {"name": "p", "arguments": {"r": "x"}}}, "v", tools) == {
        **base,
        "Mcp-Method": "prompts/get",
        "Mcp-Name": "p",
    }
    assert headers({"method": "tools/call", "params": {"name": 5}}, "v", tools) == {**base, "Mcp-Method": "tools/call"}
    assert headers({"method": "tools/call", "params": "junk"}, "v", tools) == {**base, "Mcp-Method": "tools/call"}


def test_a_call_mirrors_present_values_only_and_nothing_for_an_invalid_or_unknown_tool():
    good = _tool(
        {
            "properties": {
                "r": {"type": "string", "x-mcp-header": "Region"},
                "n": {"type": "integer", "x-mcp-header": "N"},
            }
        }
    )
    bad = _tool({"properties": {"r": {"type": "number", "x-mcp-header": "Region"}}})
    tools = {"good": good, "bad": bad}

    def call(name: str, args: object) -> dict[str, str]:
        got = headers({"method": "tools/call", "params": {"name": name, "arguments": args}}, "v", tools)
        return {k: v for k, v in got.items() if k.startswith("Mcp-Param-")}

    assert call("good", {"r": "eu", "n": None}) == {"Mcp-Param-Region": "eu"}
    assert call("good", {"n": 2**60}) == {}
    assert call("good", ["eu"]) == {}
    assert call("bad", {"r": 1}) == {}
    assert call("other", {"r": "eu"}) == {}


def test_each_annotation_is_judged_once_and_a_repeat_names_the_first():
    schema = {
        "properties": {
            "a": {"type": "string", "x-mcp-header": "Region"},
            "b": {"type": "number", "x-mcp-header": "region"},  # a repeat and a wrong type: both said
            "c": {"type": "string", "x-mcp-header": "REGION"},
            "d": {"type": "object", "x-mcp-header": "Bad Name"},  # not a token: the type is not judged
            "e": {"type": "string", "x-mcp-header": 7},
        }
    }
    assert problems(_tool(schema)) == [
        "`x-mcp-header` `region` of `b` repeats that of `a` (case-insensitively)",
        "`x-mcp-header` of `b` is on a parameter of type 'number', not integer, string or boolean",
        "`x-mcp-header` `REGION` of `c` repeats that of `a` (case-insensitively)",
        "`x-mcp-header` of `d` is not an HTTP header token (space, colon, control or non-ASCII character)",
        "`x-mcp-header` of `e` is empty or not a string",
    ]
