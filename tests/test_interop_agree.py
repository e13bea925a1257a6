"""``verify-lock`` beside a lock, in-process (:func:`mcplock.interop.agree.compare`): each kind
of disagreement from one edit of an agreeing document, in the order a reader meets them; the
document's integrity is not the comparison's business (the CLI tests in test_interop check it)."""

from __future__ import annotations

import copy

from test_interop import _round_trip_lock

from mcplock.interop import agree, produce

LOCK = _round_trip_lock()
DOC, _ = produce.document(LOCK, lint=False)


def _edited(edit) -> list[tuple[str, str]]:
    doc = copy.deepcopy(DOC)
    edit({e["name"]: e for e in doc["entries"]}, doc)
    return [(d.code, d.server) for d in agree.compare(doc, LOCK)]


def _messages(edit) -> list[str]:
    doc = copy.deepcopy(DOC)
    edit({e["name"]: e for e in doc["entries"]}, doc)
    return [d.message for d in agree.compare(doc, LOCK)]


def test_the_exported_document_agrees_and_its_omitted_server_is_not_missing():
    assert agree.compare(DOC, LOCK) == []
    assert _edited(lambda by, doc: doc.pop("extensions")) == [("not-in-document", "plain")]


def test_each_fact_an_enforcer_acts_on_is_compared():
    assert _edited(lambda by, doc: by["img"]["target"].update(version="2")) == [("target", "img")]
    assert _edited(lambda by, doc: by["img"]["target"]["artifact"].update(digest="sha256-x")) == [("target", "img")]
    assert _edited(lambda by, doc: by["py"].update(configDigest="sha256-x")) == [("config", "py")]
    assert _edited(lambda by, doc: by["py"].pop("surface")) == [("surface", "py")]
    assert _edited(lambda by, doc: by["py"]["surface"].update(toolCount=7)) == [("surface", "py")]
    assert _edited(lambda by, doc: by["py"]["surface"].update(hash="sha256-x")) == [("surface", "py")]
    items = lambda by, doc: by["local"]["extensions"]["dev.mcplock"]["items"]["tool"].clear()  # noqa: E731
    assert _edited(items) == [("items", "local")]
    # an entry no server matches, and the server left without one
    assert _edited(lambda by, doc: by["api"].update(name="elsewhere")) == [
        ("not-in-lock", "elsewhere"),
        ("not-in-document", "api"),
    ]


def test_the_messages_say_what_differs():
    (msg,) = _messages(lambda by, doc: by["img"]["target"].update(version="2", identifier="x"))
    assert msg.startswith("`img`: the target differs") and "(identifier, version)" in msg
    (msg,) = _messages(lambda by, doc: by["py"]["surface"].update(toolCount=7))
    assert msg == "`py`: toolCount 7 but the lock accepted 1 tools"
    (msg,) = _messages(lambda by, doc: by["py"].pop("surface"))
    assert msg == "`py`: the entry pins no surface; the lock accepted 1 tools"


def test_a_coverage_downgrade_is_drift_before_the_hash():
    def downgrade(by, doc):
        by["py"]["surface"].update(coverage=["name", "description"], hash="sha256-x")

    (msg,) = _messages(downgrade)
    assert "does not cover inputSchema" in msg and "coverage downgrade" in msg


def test_a_registry_entry_is_matched_by_its_source_id():
    def renamed(by, doc):
        by["notes"]["name"] = "acme-notes"
        by["notes"]["source"] = {"id": "com.acme/notes"}

    assert _edited(renamed) == []
