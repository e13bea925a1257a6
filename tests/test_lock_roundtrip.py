"""The lock stores any JSON definition losslessly, in deterministic bytes."""

from __future__ import annotations

import tomllib

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcplock.lock import read, write
from mcplock.lock.hashing import definition_hash
from mcplock.lock.model import Entry, Lock, Pending, ServerEntry
from mcplock.lock.spec import ServerSpec

# any text, including quotes, backslashes, CR, control, invisible and non-BMP characters
text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)
scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(2**53) + 1, 2**53 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | text
)
json_values = st.recursive(
    scalars, lambda c: st.lists(c, max_size=4) | st.dictionaries(text, c, max_size=4), max_leaves=20
)
wire_fields = st.sampled_from(
    [
        "title",
        "description",
        "inputSchema",
        "outputSchema",
        "annotations",
        "icons",
        "execution",
        "_meta",
        "x-vendor",
        "enabled",
        "input-schema",
        "extra",
        "hash",
    ]
)


@st.composite
def definitions(draw, key_field="name"):
    d = draw(st.dictionaries(wire_fields | text.filter(lambda s: s != key_field), json_values, max_size=6))
    d[key_field] = draw(text)
    return d


def _lock_with(defs, pending_defs, instructions):
    srv = ServerEntry(
        name="s", spec=ServerSpec("s", transport="stdio", command="cmd", args=("a b", '"q"'), env={"K": "${K}"})
    )
    for d in defs:
        e = Entry(kind="tool", key=d["name"], definition=d, hash=definition_hash(d), enabled=True, approval="never")
        srv.items["tool"][e.key] = e
    for d in pending_defs:
        e = srv.items["tool"].get(d["name"]) or Entry(kind="tool", key=d["name"])
        e.pending = Pending(
            change="changed" if e.definition else "new",
            definition=d,
            hash=definition_hash(d),
            enabled_before=True if e.definition else None,
        )
        srv.items["tool"][e.key] = e
    if instructions is not None:
        srv.instructions = Entry(
            kind="instructions",
            key="instructions",
            definition=instructions,
            hash=definition_hash(instructions),
            enabled=True,
        )
    return Lock(servers={"s": srv})


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(definitions(), max_size=3, unique_by=lambda d: d["name"]),
    st.lists(definitions(), max_size=2, unique_by=lambda d: d["name"]),
    st.none() | text,
)
def test_load_write_roundtrip(defs, pending_defs, instructions):
    lock = _lock_with(defs, pending_defs, instructions)
    text1 = write.dumps(lock)
    tomllib.loads(text1)  # valid TOML for any reader
    back = read.loads(text1)
    srv = back.servers["s"]
    expected = {d["name"]: d for d in defs}
    for name, d in expected.items():
        assert srv.tools[name].definition == d
        assert srv.tools[name].hash == definition_hash(srv.tools[name].definition)
    for d in pending_defs:
        assert srv.tools[d["name"]].pending.definition == d
    if instructions is not None:
        assert srv.instructions.definition == instructions
    # deterministic: writing what was read gives the same bytes
    assert write.dumps(back) == text1


@settings(max_examples=60, deadline=None)
@given(definitions(key_field="uriTemplate"))
def test_resource_templates_roundtrip(d):
    srv = ServerEntry(name="s", spec=ServerSpec("s", transport="http", url="http://127.0.0.1/mcp"))
    srv.items["resource-template"][d["uriTemplate"]] = Entry(
        kind="resource-template", key=d["uriTemplate"], definition=d, hash=definition_hash(d), enabled=True
    )
    back = read.loads(write.dumps(Lock(servers={"s": srv})))
    assert back.servers["s"].items["resource-template"][d["uriTemplate"]].definition == d


def test_hard_cases_are_lossless_and_reviewable():
    d = {
        "name": "weird tool\u200b",
        "description": 'line 1\r\nhas \'\'\' and """ and \\ and \t tab\n<<<<<<< HEAD\n=======\n>>>>>>> x\nend"',
        "inputSchema": {
            "type": "object",
            "properties": {"q": {"type": "string", "description": "中文 Straße 😀 '''"}},
            "$defs": {"a": {"minimum": 1.5, "maximum": 1e-7, "const": 1.0}},
            "x": None,
        },
        "x-vendor": {"k": [1, 2.5, None, True]},
        "title": 42,
        "_meta": {"io.example/flag": True},
    }
    lock = _lock_with([d], [], "Use\u202e me")
    text1 = write.dumps(lock)
    back = read.loads(text1)
    assert back.servers["s"].tools[d["name"]].definition == d
    # hidden characters are visible in the file, conflict-marker lookalikes are escaped
    assert "\u200b" not in text1 and "\\u200B" in text1
    assert "\u202e" not in text1
    for marker in ("<<<<<<<", "=======", ">>>>>>>"):
        assert not any(line.startswith(marker) for line in text1.splitlines())
    # reviewable: the description is multi-line text, the schema pretty JSON on its own lines
    assert "\nline 1\\r\n" in text1
    assert '\n  "type": "object"' in text1


def test_layout_matches_design():
    d = {"name": "search_docs", "description": "Search the docs.", "inputSchema": {"type": "object"}}
    text1 = write.dumps(_lock_with([d], [], None))
    assert text1.startswith("# This file is @generated by mcplock. Do not edit it by hand.\n")
    assert "\nversion = 1\n" in text1
    assert '\n[server.s]\ntransport = "stdio"\n' in text1
    assert '\n[server.s.tool.search_docs]\nenabled = true\napproval = "never"\nhash = "sha256:' in text1
    assert text1.endswith("\n") and "\r" not in text1


def test_server_text_never_starts_a_line_with_a_bracket():
    """Only mcplock's own table headers start a line with `[`: a description cannot forge one."""
    d = {
        "name": "t",
        "description": 'ok\n[server.evil]\ntransport = "stdio"\ncommand = "sh"\n[x]',
        "inputSchema": {"type": "object"},
        "icons": [{"src": "a"}],
    }
    text1 = write.dumps(_lock_with([d], [], 'line\n[server.evil2]\ncommand = "sh"'))
    headers = [line for line in text1.splitlines() if line.startswith("[") and line.rstrip().endswith("]")]
    assert all(h.startswith("[server.s") for h in headers), headers
    assert read.loads(text1).servers["s"].tools["t"].definition == d


def test_the_client_identity_and_capabilities_keep_their_tables_and_reach_the_launch():
    # the lock's `client` (version optional) and `client-capabilities`: one type in the entry and
    # the spec it launches (mcplock.lock.spec.ClientIdentity, a tuple of names), the TOML unchanged
    from mcplock._version import __version__
    from mcplock.lock.spec import ClientIdentity

    lock = Lock()
    for name, client in (("a", ClientIdentity("cursor")), ("b", ClientIdentity("vscode", "1.2"))):
        srv = ServerEntry(name=name, spec=ServerSpec(name, transport="stdio", command="cmd"))
        srv.client, srv.client_capabilities = client, ("roots", "elicitation")
        lock.servers[name] = srv
    text = write.dumps(lock)
    assert 'client = {name = "cursor"}' in text
    assert 'client = {name = "vscode", version = "1.2"}' in text
    assert 'client-capabilities = ["roots", "elicitation"]' in text
    back = read.loads(text)
    assert back.servers["a"].client == ClientIdentity("cursor")
    assert back.servers["b"].client_capabilities == ("roots", "elicitation")
    assert write.dumps(back) == text
    launched = back.servers["a"].as_launched("/tmp")
    assert launched.client == ClientIdentity("cursor", __version__)
    assert launched.client_capabilities == ("roots", "elicitation")
    assert back.servers["b"].as_launched("/tmp", use_stored_client=False).client is None
