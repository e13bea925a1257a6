"""The tomlkit internals mcplock/lock/write.py relies on, pinned.

The writer escapes strings itself (hidden characters as ``\\uXXXX``, multi-line text kept line
by line), which tomlkit's public ``tomlkit.string()`` cannot express, so it builds
``tomlkit.items.String`` and ``SingleKey`` with an explicit ``original`` (the exact source text)
and relies on ``dumps`` writing that text verbatim. None of that is documented API: these tests
exercise exactly those pieces, so that a tomlkit release that changes them fails here, by name,
rather than as a changed lock file. pyproject.toml bounds tomlkit to the versions this passed on.
"""

from __future__ import annotations

import tomllib

import tomlkit
from tomlkit.items import KeyType, SingleKey, String, StringType, Trivia


def _dump_one(key, item) -> str:
    doc = tomlkit.document()
    doc.add(key, item)
    return tomlkit.dumps(doc)


def test_string_types_used_by_the_writer_exist():
    assert {StringType.SLB, StringType.MLB, StringType.MLL} <= set(StringType)
    assert KeyType.Basic in set(KeyType)


def test_single_line_basic_string_is_written_from_its_original_text():
    value = 'a\u200bb "q"'
    s = String(StringType.SLB, value, 'a\\u200Bb \\"q\\"', Trivia())
    assert isinstance(s, str) and s == value  # a str subclass carrying the value
    text = _dump_one("description", s)
    assert text == 'description = "a\\u200Bb \\"q\\""\n'  # the original, not tomlkit's own escaping
    assert tomllib.loads(text)["description"] == value


def test_multi_line_basic_string_is_written_from_its_original_text():
    value = "line1\n\u200bline2\n"
    original = "\nline1\n\\u200Bline2\n\\\n"
    text = _dump_one("description", String(StringType.MLB, value, original, Trivia()))
    assert text == 'description = """' + original + '"""\n'
    assert tomllib.loads(text)["description"] == value


def test_multi_line_literal_string_is_written_from_its_original_text():
    value = '{\n  "type": "object"\n}'
    text = _dump_one("input-schema", String(StringType.MLL, value, "\n" + value, Trivia()))
    assert text == "input-schema = '''\n" + value + "'''\n"
    assert tomllib.loads(text)["input-schema"] == value


def test_quoted_single_key_is_written_from_its_original_text():
    key = SingleKey("a.b \u200b", t=KeyType.Basic, original='"a.b \\u200B"')
    t = tomlkit.inline_table()
    t.append(key, String(StringType.SLB, "v", "v", Trivia()))
    text = _dump_one("env", t)
    assert text == 'env = {"a.b \\u200B" = "v"}\n'
    assert tomllib.loads(text)["env"] == {"a.b \u200b": "v"}


def test_quoted_key_in_a_super_table_names_the_sub_table():
    servers = tomlkit.table(is_super_table=True)
    inner = tomlkit.table()
    inner.add("transport", "stdio")
    servers.add(SingleKey("my server", t=KeyType.Basic, original='"my server"'), inner)
    doc = tomlkit.document()
    doc.add("server", servers)
    text = tomlkit.dumps(doc)
    assert text == '[server."my server"]\ntransport = "stdio"\n'  # no bare [server] header
    assert tomllib.loads(text) == {"server": {"my server": {"transport": "stdio"}}}
