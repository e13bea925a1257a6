"""Golden vectors for definition hashes: sha256 over RFC 8785 canonical JSON, integers
beyond ±(2^53 − 1) written as their exact digits.

The canonical bytes are written out by hand from the RFC's rules, so a change in
canonicalisation (key order, number spelling, escaping) fails here.
"""

import hashlib

import pytest
import rfc8785
from hypothesis import given, settings
from hypothesis import strategies as st

from mcplock.errors import HashError
from mcplock.lock.hashing import canonical, definition_hash, is_hash

VECTORS = [
    # key order is irrelevant; keys sort by UTF-16 code units
    ({"b": 1, "a": "x"}, b'{"a":"x","b":1}'),
    # 1 and 1.0 are the same number; exponents spelled the ECMAScript way
    ({"n": 1.0, "m": 1e21, "s": 1e-7, "z": -0.0}, b'{"m":1e+21,"n":1,"s":1e-7,"z":0}'),
    # non-BMP keys sort by UTF-16 code units: U+1F600 (D83D DE00) before U+FB33
    ({"\ufb33": 1, "\U0001f600": 2, "a": 3}, '{"a":3,"\U0001f600":2,"\ufb33":1}'.encode()),
    # nested $defs, arrays keep order, null and booleans
    (
        {
            "name": "t",
            "inputSchema": {
                "type": "object",
                "$defs": {"b": {"type": "string"}, "a": {"$ref": "#/$defs/b"}},
                "required": ["z", "a"],
                "x": None,
                "y": True,
            },
        },
        b'{"inputSchema":{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"type":"string"}},"required":["z","a"],'
        b'"type":"object","x":null,"y":true},"name":"t"}',
    ),
    # control characters escaped, non-ASCII kept as UTF-8, "/" not escaped
    ({"d": 'a\u0001\n"/\u00e9'}, '{"d":"a\\u0001\\n\\"/\u00e9"}'.encode()),
    # a JSON string (server instructions are hashed this way)
    ("Use the tools wisely.", b'"Use the tools wisely."'),
    # the one extension to JCS: an integer beyond ±(2^53 − 1) keeps its exact digits (JCS would
    # round it through a double); the largest safe integers are JCS's own spelling
    ({"maximum": 2**63 - 1, "minimum": -(2**63)}, b'{"maximum":9223372036854775807,"minimum":-9223372036854775808}'),
    (
        [2**53 - 1, -(2**53 - 1), 2**53, 2**64, 1.5],
        b"[9007199254740991,-9007199254740991,9007199254740992,18446744073709551616,1.5]",
    ),
]


@pytest.mark.parametrize("value,expected", VECTORS)
def test_canonical_bytes(value, expected):
    assert canonical(value) == expected


@pytest.mark.parametrize("value,expected", VECTORS)
def test_hash_is_sha256_of_canonical(value, expected):
    assert definition_hash(value) == "sha256:" + hashlib.sha256(expected).hexdigest()


def test_pinned_hash_values():
    # pinned literally so any drift of the whole pipeline shows up
    assert definition_hash({"b": 1, "a": "x"}) == ("sha256:" + hashlib.sha256(b'{"a":"x","b":1}').hexdigest())
    assert definition_hash({"a": 1.0}) == "sha256:015abd7f5cc57a2dd94b7590f04ad8084273905ee33ec5cebeae62276a97f862"
    assert definition_hash({"a": 1.0}) == definition_hash({"a": 1})


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), float("-inf"), "\ud800", {"\udc00": 1}])
def test_unrepresentable_values_name_the_item(bad):
    with pytest.raises(HashError) as ei:
        definition_hash({"name": "search", "x": bad}, what="tool `docs/search`")
    assert "tool `docs/search`" in ei.value.message
    assert ei.value.exit_code == 2


def test_big_integers_keep_every_digit():
    # a float rounding would make these equal; exact digits keep a last-digit change a change
    assert definition_hash({"maximum": 2**63 - 1}) != definition_hash({"maximum": 2**63 - 2})
    assert definition_hash({"maximum": 2**53 + 1}) != definition_hash({"maximum": 2**53})
    # an integer-valued float is a double, JCS spells it as such (not as the integer's digits)
    assert canonical([float(2**63)]) == rfc8785.dumps([float(2**63)])


def test_is_hash():
    assert is_hash(definition_hash({}))
    assert not is_hash("sha256:xyz")
    assert not is_hash("md5:" + "0" * 64)


_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
_safe_int = st.integers(-(2**53) + 1, 2**53 - 1)
_json = st.recursive(
    st.none() | st.booleans() | _safe_int | st.floats(allow_nan=False, allow_infinity=False) | _text,
    lambda c: st.lists(c, max_size=4) | st.dictionaries(_text, c, max_size=4),
    max_leaves=25,
)


@settings(max_examples=400, deadline=None)
@given(_json)
def test_fast_path_is_exactly_rfc8785(value):
    # canonical() skips the pure-Python encoder when json.dumps is already canonical
    assert canonical(value) == rfc8785.dumps(value)


_big = st.integers(2**53, 2**200) | st.integers(-(2**200), -(2**53))


@settings(max_examples=200, deadline=None)
@given(_json, _big)
def test_big_integers_are_exact_digits_inside_jcs(value, big):
    # the extension changes the integer's spelling only: around it, the bytes are JCS's
    wrapped = {"v": value, "n": big}
    assert canonical(wrapped) == rfc8785.dumps({"v": value, "n": 0}).replace(b'"n":0', b'"n":' + str(big).encode(), 1)


def test_fast_path_edge_cases():
    for v in [{"\ue000": 1, "\U0001f600": 2}, {"a": "\x7f\u2028\x00\x1f"}, [1.0, 2], {"k": 2**53 - 1}]:
        assert canonical(v) == rfc8785.dumps(v)
