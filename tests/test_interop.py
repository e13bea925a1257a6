"""The open `mcp-lock/1` format (docs/interop.md): every vector of the specification byte for byte,
a document of each shape accepted, each rule's violation rejected with the rule named (and its
honest twin accepted), and the round trip `export --format mcp-lock-v1` → `verify-lock`, with the
export's digests recomputed here independently (rfc8785 + hashlib, not mcplock's code).

Vectors: tests/data/mcp-lock-v1/vectors.json and remote-with-surface.json, copied from ToolPin's
repository (proofofwork-agency/toolpin, test/fixtures/spec/, commit 7bf541d; Apache-2.0, see the
NOTICE there). The fixture documents for each rule are this file's own.
"""

from __future__ import annotations

import base64
import copy
import hashlib
import json
from pathlib import Path

import pytest
import rfc8785

from mcplock.interop import canonical, digests, reader
from mcplock.lock import review, store
from mcplock.lock.model import Lock, ServerEntry
from mcplock.lock.spec import ServerSpec
from mcplock.model.snapshot import Snapshot
from mcplock.packages.pin import PackagePin, RegistryRef

from conftest import ROOT

DATA = ROOT / "tests" / "data" / "mcp-lock-v1"
VECTORS = json.loads((DATA / "vectors.json").read_text(encoding="utf-8"))
SCHEMA = json.loads((ROOT / "mcplock" / "interop" / "schemas" / "mcp-lockfile-v1.schema.json").read_text())


# -- an independent implementation of the digests, for the tests -------------------------------------


def _doubles(v):
    if isinstance(v, bool) or not isinstance(v, (int, dict, list)):
        return v
    if isinstance(v, int):
        return float(v) if abs(v) > 2**53 - 1 else v
    if isinstance(v, dict):
        return {k: _doubles(x) for k, x in v.items()}
    return [_doubles(x) for x in v]


def jcs(v) -> bytes:
    return rfc8785.dumps(_doubles(v))


def sri(b: bytes) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(b).digest()).decode()


def seal(entry: dict) -> dict:
    entry = {k: v for k, v in entry.items() if k != "integrity"}
    entry["integrity"] = sri(jcs(entry))
    return entry


def surface(tools: list[dict], coverage=("name", "description", "inputSchema")) -> str:
    records = sorted(
        ({f: t[f] for f in coverage if f in t} for t in tools), key=lambda r: r["name"].encode("utf-16-be")
    )
    return sri(jcs(records))


# -- the specification's vectors, byte for byte ------------------------------------------------------


@pytest.mark.parametrize("case", VECTORS["canonicalization"], ids=lambda c: c["canonical"][:20])
def test_canonicalization_vectors(case):
    assert canonical.canonical(case["input"]) == case["canonical"].encode("utf-8")


def test_surface_vector():
    v = VECTORS["surface"]
    assert digests.surface_hash(v["tools"], v["coverage"]) == v["hash"]
    assert surface(v["tools"], v["coverage"]) == v["hash"]  # and the independent computation agrees


def test_entry_integrity_vector():
    v = VECTORS["entryIntegrity"]
    entry = json.loads(v["canonicalPayload"])
    assert entry["name"] == v["entryName"]
    assert canonical.canonical(entry) == v["canonicalPayload"].encode("utf-8")
    assert digests.entry_integrity({**entry, "integrity": "sha256-ignored"}) == v["integrity"]


def test_whole_lock_digest_vector():
    v = VECTORS["wholeLockDigest"]
    doc = canonical.loads((DATA / Path(v["document"]).name).read_bytes())
    assert reader.check(doc) == []
    assert digests.whole_lock_digest(doc) == v["digest"]
    # timestamps are outside it
    assert digests.whole_lock_digest({**doc, "generatedAt": "2030-01-01T00:00:00Z"}) == v["digest"]


def test_signature_vector():
    from mcplock.trust import signing

    v = VECTORS["signature"]
    der = base64.b64decode(v["publicKeySpkiDerBase64"])
    env = v["envelope"]
    assert signing.payload(env) == v["signingPayloadCanonical"].encode("utf-8")
    key = signing.public_key_from_der(der)
    assert signing.fingerprint(key) == env["publicKeyFingerprint"] == sri(der)
    signing.verify_envelope(env, key, "vector")  # raises unless it verifies
    forged = {**env, "signedAt": "2026-07-07T12:00:02.000Z"}
    with pytest.raises(signing.SignatureError):
        signing.verify_envelope(forged, key, "vector")


def test_jcs_orders_keys_by_utf16_and_writes_numbers_as_ecmascript():
    # U+1F600 is D83D DE00 in UTF-16: before U+E000, although after it in code points
    value = {"\ue000": 1, "\U0001f600": 2, "a": 3}
    assert canonical.canonical(value) == '{"a":3,"\U0001f600":2,"\ue000":1}'.encode()
    assert (
        canonical.canonical([1e-07, 1e21, 1e20, 0.1, -0.0, 1.0, 5e-324])
        == b"[1e-7,1e+21,100000000000000000000,0.1,0,1,5e-324]"
    )
    # an integer beyond 2^53 as the double every JSON reader makes of it
    assert canonical.canonical(2**63 - 1) == b"9223372036854776000"  # JavaScript's String(2 ** 63)
    assert canonical.canonical({"e": "\u2028\x7f\x1f"}) == '{"e":"\u2028\x7f\\u001f"}'.encode()


# -- documents of each shape: this file's own fixtures -------------------------------------------------

NPM = {
    "type": "package",
    "registryType": "npm",
    "identifier": "@acme/mcp-notes",
    "version": "2.1.0",
    "transport": "stdio",
}
TOOLS = [
    {"name": "read_note", "description": "Read a note.", "inputSchema": {"type": "object"}},
    {"name": "\U0001f4ddlist", "description": "List notes.", "inputSchema": {"type": "object", "properties": {}}},
]


def _entry(**over) -> dict:
    e = {
        "name": "com.acme/notes",
        "version": "2.1.0",
        "client": "cursor",
        "scope": "project",
        "source": {"registry": "https://registry.modelcontextprotocol.io", "id": "com.acme/notes"},
        "target": dict(NPM),
        "surface": {"hash": surface(TOOLS), "coverage": ["name", "description", "inputSchema"], "toolCount": 2},
        "configDigest": sri(jcs({"command": "npx", "args": ["-y", "@acme/mcp-notes@2.1.0"]})),
        "resolvedAt": "2026-11-30T10:00:00Z",
        "lockedAt": "2026-11-30T10:00:01.5+01:00",
    }
    e.update(over)
    return seal(e)


def _doc(*entries, **top) -> dict:
    return {"specVersion": 1, "generatedAt": "2026-11-30T10:00:02Z", "entries": list(entries), **top}


SHAPES = {
    "empty": _doc(),
    "npm package, no artefact": _doc(_entry()),
    "npm package with artefact and evidence": _doc(
        _entry(
            target={**NPM, "artifact": {"digest": sri(b"tarball"), "method": "npm-sri"}},
            verification=[{"code": "artifact-integrity", "status": "passed", "verifier": "x/1", "required": True}],
        )
    ),
    "oci by digest": _doc(
        _entry(
            target={
                "type": "package",
                "registryType": "oci",
                "identifier": "ghcr.io/acme/notes@sha256:" + "c" * 64,
                "artifact": {"digest": sri(b"manifest"), "method": "oci-manifest-digest"},
            }
        )
    ),
    "reverse-DNS registry type": _doc(
        _entry(target={"type": "package", "registryType": "dev.example.local", "identifier": "./server"})
    ),
    "remote with secret names": _doc(
        _entry(
            target={
                "type": "remote",
                "transport": "streamable-http",
                "url": "https://mcp.acme.com/",
                "headerSecretNames": ["ACME_TOKEN"],
            },
            source={"registry": "manual"},
            scope="user",
        )
    ),
    "no surface, name-description coverage elsewhere": _doc(
        _entry(
            surface={
                "hash": surface(TOOLS, ("name", "description")),
                "coverage": ["name", "description"],
                "toolCount": 2,
            }
        ),
        seal({k: v for k, v in _entry(client="claude-code").items() if k != "surface"}),
    ),
    "unknown members and extensions": _doc(
        _entry(futureMember={"x": [1, 2.5]}, extensions={"dev.example": {"note": "kept and hashed"}}),
        extensions={"dev.example": {"top": True}},
        futureTop="tolerated",
    ),
    "same name, other scope": _doc(_entry(), _entry(scope="user")),
}


@pytest.mark.parametrize("name", list(SHAPES))
def test_a_document_of_each_shape_is_accepted(name):
    doc = SHAPES[name]
    from jsonschema import Draft202012Validator

    assert list(Draft202012Validator(SCHEMA).iter_errors(doc)) == []  # valid for the schema as published
    assert reader.check(doc) == []
    data = json.dumps(doc, indent=3).encode()
    assert reader.read(data)[1] == []


def _rules(doc_or_bytes) -> set[str]:
    data = doc_or_bytes if isinstance(doc_or_bytes, bytes) else json.dumps(doc_or_bytes).encode()
    return {p.rule for p in reader.read(data)[1]}


def _mut(f, *, reseal: bool = True) -> dict:
    """A valid one-entry document with ``f`` applied to its entry (re-sealed: only the rule meant breaks)."""
    e = copy.deepcopy(_entry())
    f(e)
    return _doc(seal(e) if reseal else e)


NEGATIVE = {
    "digest-format": [
        _mut(lambda e: e.update(configDigest="sha256:deadbeef")),
        _mut(lambda e: e.update(configDigest="sha256-AAAA")),  # base64 of 3 bytes
        _mut(lambda e: e["surface"].update(hash="sha512-" + "A" * 86 + "==")),
    ],
    "missing-field": [
        _mut(lambda e: e.pop("integrity"), reseal=False),
        _mut(lambda e: e.pop("configDigest")),
        _mut(lambda e: e.pop("lockedAt")),
        _mut(lambda e: e["target"].pop("identifier")),
    ],
    "unknown-target-type": [
        _mut(lambda e: e.update(target={"type": "git", "identifier": "x"})),
        _mut(lambda e: e.update(target={"identifier": "x"})),
    ],
    "remote-url-https": [
        _mut(lambda e: e.update(target={"type": "remote", "transport": "sse", "url": "http://mcp.acme.com/"}))
    ],
    "header-secret-name": [
        _mut(
            lambda e: e.update(
                target={
                    "type": "remote",
                    "transport": "sse",
                    "url": "https://a.example/",
                    "headerSecretNames": ["Bearer abc123"],
                }
            )
        )
    ],
    "surface-coverage": [
        _mut(lambda e: e["surface"].update(coverage=["description"])),
        _mut(lambda e: e["surface"].update(coverage=["name", "description", "outputSchema"])),
        _mut(lambda e: e["surface"].update(coverage=["name", "name", "description"])),
    ],
    "oci-mutable-identifier": [
        _mut(
            lambda e: e.update(
                target={"type": "package", "registryType": "oci", "identifier": "ghcr.io/acme/notes:2.1.0"}
            )
        ),
        _mut(lambda e: e.update(target={"type": "package", "registryType": "oci", "identifier": "acme/notes"})),
    ],
    "integrity": [
        _mut(lambda e: e.update(version="2.1.1"), reseal=False),
        _mut(lambda e: e["surface"].update(toolCount=3), reseal=False),
        _mut(lambda e: e.update(extensions={"dev.example": {"late": 1}}), reseal=False),
    ],
    "duplicate-entry-identity": [
        _doc(_entry(), _entry(version="9")),
        _doc(_entry(), seal({k: v for k, v in _entry().items() if k != "scope"})),
    ],
    "spec-version": [{**_doc(_entry()), "specVersion": 2}, {**_doc(_entry()), "specVersion": "1"}],
    "secret-value": [_mut(lambda e: e.update(extensions={"dev.example": {"token": "ghp_" + "a1B2" * 9}}))],
    "timestamp-format": [_mut(lambda e: e.update(lockedAt="yesterday"))],
}
TWINS = {  # the same words without the violation: accepted
    "digest-format": _mut(lambda e: e.update(configDigest=sri(b"{}"))),
    "unknown-target-type": _mut(
        lambda e: e.update(target={"type": "package", "registryType": "dev.acme.git", "identifier": "x"})
    ),
    "remote-url-https": _mut(
        lambda e: e.update(target={"type": "remote", "transport": "sse", "url": "https://mcp.acme.com/"})
    ),
    "header-secret-name": _mut(
        lambda e: e.update(
            target={
                "type": "remote",
                "transport": "sse",
                "url": "https://a.example/",
                "headerSecretNames": ["BEARER_ABC123"],
            }
        )
    ),
    "oci-mutable-identifier": _mut(
        lambda e: e.update(
            target={
                "type": "package",
                "registryType": "oci",
                "identifier": "ghcr.io/acme/notes:2.1.0@sha256:" + "0" * 64,
            }
        )
    ),
    "duplicate-entry-identity": _doc(_entry(), _entry(client="vscode")),
    "secret-value": _mut(lambda e: e.update(extensions={"dev.example": {"token": "${GITHUB_TOKEN}"}})),
}


@pytest.mark.parametrize(("rule", "i"), [(r, i) for r, docs in NEGATIVE.items() for i in range(len(docs))])
def test_each_rule_is_rejected_with_its_name(rule, i):
    assert _rules(NEGATIVE[rule][i]) == {rule}


@pytest.mark.parametrize("rule", list(TWINS))
def test_the_honest_twin_of_each_rule_is_accepted(rule):
    assert _rules(TWINS[rule]) == set()


def test_nfc_and_exact_duplicate_member_names_are_rejected():
    base = json.dumps(_doc(_entry()))
    nfc = base.replace('"client"', '"ext\\u00e9": 1, "exte\\u0301": 2, "client"', 1)
    assert _rules(nfc.encode()) == {"nfc-duplicate-key"}
    raw = base.replace('"client"', '"caf\u00e9": 1, "cafe\u0301": 2, "client"', 1)  # as UTF-8, not escapes
    assert _rules(raw.encode()) == {"nfc-duplicate-key"}
    dup = base.replace('"client": "cursor"', '"client": "cursor", "client": "vscode"', 1)
    assert _rules(dup.encode()) == {"duplicate-key"}
    twin = base.replace('"client"', '"caf\u00e9": 1, "cafe": 2, "client"', 1)  # not equal under NFC
    assert _rules(twin.encode()) == {"integrity"}  # a member added after sealing; no duplicate


@pytest.mark.parametrize("data", [b"", b"{", b"\xef\xbb\xbf{}", b"\xff\xfe", b'{"specVersion": NaN}', b"[]"])
def test_what_is_not_a_document_is_named(data):
    rules = _rules(data)
    assert rules and rules <= {"json", "schema"}


@pytest.mark.parametrize("rule", ["nfc-duplicate-key", "integrity", "oci-mutable-identifier"])
def test_verify_lock_names_the_rule_and_exits_1(cli, rule):
    # the CLI says what the reader finds (every rule is judged through the reader above)
    doc = NEGATIVE[rule][0] if rule in NEGATIVE else None
    if rule == "nfc-duplicate-key":
        Path("doc.json").write_text(
            json.dumps(_doc(_entry())).replace('"client"', '"\\u00e9": 1, "e\\u0301": 2, "client"', 1)
        )
    else:
        Path("doc.json").write_text(json.dumps(doc))
    r = cli("verify-lock", "doc.json")
    assert r.returncode == 1, (rule, r.stdout, r.stderr)
    assert f"{rule}:" in r.stdout and reader.RULES[rule] in r.stdout and "Traceback" not in r.stderr, r.stdout
    j = json.loads(cli("verify-lock", "doc.json", "--format", "json").stdout)
    assert j["exit_code"] == 1 and j["conforms"] is False and rule in {p["rule"] for p in j["problems"]}


def test_verify_lock_accepts_a_conforming_document_and_fails_an_empty_one(cli):
    Path("doc.json").write_text(json.dumps(SHAPES["npm package, no artefact"]))
    r = cli("verify-lock", "doc.json")
    assert r.returncode == 0 and "conforms to mcp-lock/1" in r.stdout, r.stdout
    Path("doc.json").write_text(json.dumps(SHAPES["empty"]))
    r = cli("verify-lock", "doc.json")
    assert r.returncode == 1 and "empty-lock" in r.stdout  # a conforming reader accepts it; an enforcer fails
    r = cli("verify-lock", "missing.json")
    assert r.returncode == 2 and "cannot read missing.json" in r.stderr


# -- the round trip: export → verify-lock ----------------------------------------------------------

BIG = 2**63 - 1


def _server(name: str, spec: ServerSpec, tools: list[dict], enable: dict[str, bool] | None = None) -> ServerEntry:
    srv = ServerEntry(name=name, spec=spec)
    review.stage(
        srv, Snapshot(server_info={"name": name, "version": "0.3.0"}, protocol_version="2025-11-25", tools=tools)
    )
    for e in list(srv.entries()):
        review.accept(srv, e)
    for t, on in (enable or {}).items():
        srv.tools[t].enabled = on
    return srv


LOCAL_TOOLS = [
    {"name": "\ue000private", "description": "Private-use name.", "inputSchema": {"type": "object"}},
    {"name": "\U0001f600smile", "description": "Astral name.", "inputSchema": {"type": "object"}},
    {
        "name": "limits",
        "description": "Numbers JCS writes its own way.",
        "inputSchema": {
            "type": "object",
            "properties": {"n": {"type": "integer", "maximum": BIG, "multipleOf": 1e-07, "exclusiveMaximum": 1e21}},
        },
    },
    {"name": "off", "description": "Disabled, still part of the surface.", "inputSchema": {"type": "object"}},
]


def _round_trip_lock() -> Lock:
    servers = [
        _server(
            "local",
            ServerSpec(
                "local", transport="stdio", command="python", args=("server.py",), env={"API_KEY": "${API_KEY}"}
            ),
            LOCAL_TOOLS,
            {"off": False},
        ),
        _server(
            "notes",
            ServerSpec(
                "notes",
                transport="stdio",
                command="npx",
                args=("-y", "@acme/notes"),
                package=PackagePin("npm", "@acme/notes", "2.1.0", "sha512-" + "Q" * 86 + "==", "sha256:" + "1" * 64),
                registry=RegistryRef("com.acme/notes", "2.1.0", "https://registry.example"),
            ),
            TOOLS,
        ),
        _server(
            "img", ServerSpec("img", transport="stdio", command="docker", args=("run", "-i", "acme/img:1")), TOOLS[:1]
        ),
        _server(
            "py",
            ServerSpec(
                "py",
                transport="stdio",
                command="uvx",
                args=("acme-mcp==1.0",),
                package=PackagePin("pypi", "acme-mcp", "1.0", "sha256:" + "2" * 64),
            ),
            TOOLS[1:],
        ),
        _server(
            "api",
            ServerSpec(
                "api",
                transport="http",
                url="https://mcp.acme.com/mcp",
                headers={"Authorization": "Bearer ${ACME_TOKEN}"},
            ),
            TOOLS,
        ),
        _server("plain", ServerSpec("plain", transport="http", url="http://127.0.0.1:9/mcp"), TOOLS),
    ]
    img = servers[2]
    img.spec = ServerSpec(
        "img",
        transport="stdio",
        command="docker",
        args=("run", "-i", "acme/img:1"),
        package=PackagePin("oci", "acme/img", "1", "sha256:" + "3" * 64),
    )
    return Lock(servers={s.name: s for s in servers})


def test_export_then_verify_lock_round_trip(cli):
    lock = _round_trip_lock()
    store.save(lock, "mcp.lock")
    secret = "s3cr3t-" + "x" * 20
    r = cli("export", "--format", "mcp-lock-v1", env={"ACME_TOKEN": secret, "API_KEY": secret})
    assert r.returncode == 0, r.stderr
    assert "plain is not in the export" in r.stderr and "not https" in r.stderr
    text = Path("mcp-lock.json").read_text()
    assert secret not in text and "${ACME_TOKEN}" in text
    doc = json.loads(text)
    from jsonschema import Draft202012Validator

    assert list(Draft202012Validator(SCHEMA).iter_errors(doc)) == []
    by = {e["name"]: e for e in doc["entries"]}
    assert sorted(by) == ["api", "img", "local", "notes", "py"]
    # the digests, recomputed here
    for e in doc["entries"]:
        assert e["integrity"] == seal(e)["integrity"], e["name"]
        srv = lock.servers[e["name"]]
        tools = [t.definition for t in srv.tools.values()]
        assert e["surface"] == {
            "hash": surface(tools),
            "coverage": ["name", "description", "inputSchema"],
            "toolCount": len(tools),
        }
        assert e["configDigest"] == sri(jcs(e["extensions"]["dev.mcplock"]["config"]))
    whole = sri(jcs({k: doc[k] for k in ("specVersion", "entries", "extensions") if k in doc}))
    assert f"lock digest {whole}" in r.stdout
    # the surface covers the disabled tool; the flags are in the extension
    assert by["local"]["surface"]["toolCount"] == 4
    assert by["local"]["extensions"]["dev.mcplock"]["items"]["tool"]["off"]["enabled"] is False
    # targets
    assert by["notes"]["target"] == {
        "type": "package",
        "registryType": "npm",
        "identifier": "@acme/notes",
        "version": "2.1.0",
        "transport": "stdio",
    }  # sha512: evidence, not artifact
    assert by["notes"]["source"] == {"registry": "https://registry.example", "id": "com.acme/notes"}
    assert by["notes"]["extensions"]["dev.mcplock"]["package"]["integrity"].startswith("sha512-")
    assert by["img"]["target"]["identifier"] == "acme/img@sha256:" + "3" * 64
    assert by["img"]["target"]["artifact"] == {
        "digest": "sha256-" + base64.b64encode(bytes.fromhex("3" * 64)).decode(),
        "method": "oci-manifest-digest",
    }
    assert by["py"]["target"]["artifact"]["digest"] == "sha256-" + base64.b64encode(bytes.fromhex("2" * 64)).decode()
    assert by["local"]["target"] == {
        "type": "package",
        "registryType": "dev.mcplock.local",
        "identifier": "python",
        "transport": "stdio",
    }
    assert by["api"]["target"] == {
        "type": "remote",
        "transport": "streamable-http",
        "url": "https://mcp.acme.com/mcp",
        "headerSecretNames": ["ACME_TOKEN"],
    }
    assert all(e["resolvedAt"] == e["lockedAt"] == "1970-01-01T00:00:00Z" for e in doc["entries"])
    # the reader and enforcer agree, and so does the lock
    r = cli("verify-lock", "mcp-lock.json")
    assert r.returncode == 0, r.stdout
    assert "agrees with mcp.lock" in r.stdout
    # an unchanged lock: the file is left as it is; other timestamps never change the digests
    before = Path("mcp-lock.json").read_bytes()
    r = cli("export", "--format", "mcp-lock-v1", env={"SOURCE_DATE_EPOCH": "2000000000"})
    assert r.returncode == 0 and "unchanged" in r.stdout and Path("mcp-lock.json").read_bytes() == before
    r = cli("export", "--format", "mcp-lock-v1", "-o", "-", env={"SOURCE_DATE_EPOCH": "2000000000"})
    other = json.loads(r.stdout)
    assert other["generatedAt"] == "2033-05-18T03:33:20Z"
    assert digests.whole_lock_digest(other) == whole


def test_verify_lock_says_where_the_document_and_the_lock_disagree(cli):
    lock = _round_trip_lock()
    store.save(lock, "mcp.lock")
    assert cli("export", "--format", "mcp-lock-v1").returncode == 0
    assert cli("disable", "local/limits").returncode == 0
    r = cli("verify-lock", "mcp-lock.json")
    assert r.returncode == 1 and "disagrees (items)" in r.stdout and "tool limits" in r.stdout, r.stdout
    assert cli("verify-lock", "mcp-lock.json", "--no-lock").returncode == 0  # the document alone conforms
    # a changed definition: the surface hash no longer matches the lock's
    lock = _round_trip_lock()
    review.stage(
        lock.servers["api"], Snapshot(tools=[{**TOOLS[0], "description": "Read a note, then mail it."}, TOOLS[1]])
    )
    for e in list(lock.servers["api"].entries()):
        review.accept(lock.servers["api"], e)
    store.save(lock, "mcp.lock")
    j = json.loads(cli("verify-lock", "mcp-lock.json", "--format", "json").stdout)
    assert j["agrees"] is False and {"surface", "items"} <= {d["code"] for d in j["disagreements"]}
    assert {d["server"] for d in j["disagreements"]} == {"api"}  # a fresh lock: local/limits enabled again
    # a document edited by hand: its integrity breaks
    doc = json.loads(Path("mcp-lock.json").read_text())
    doc["entries"][0]["extensions"]["dev.mcplock"]["items"]["tool"] = {}
    Path("mcp-lock.json").write_text(json.dumps(doc))
    r = cli("verify-lock", "mcp-lock.json", "--no-lock")
    assert r.returncode == 1 and "integrity:" in r.stdout


def test_export_format_is_checked(cli):
    store.save(_round_trip_lock(), "mcp.lock")
    r = cli("export", "--format", "mcp-lock-v2")
    assert r.returncode == 2 and "hosts|mcp-lock-v1" in r.stderr
    r = cli("export", "--format", "mcp-lock-v1", "-o", "mcp.lock")
    assert r.returncode == 2 and "Traceback" not in r.stderr


def test_verify_lock_checks_a_given_digest_and_the_specifications_signature(cli):
    # §9.5: a provided whole-lock digest or signature; the vector's envelope over the vector's document
    v = VECTORS["signature"]
    der = base64.b64decode(v["publicKeySpkiDerBase64"])
    Path("vec.pem").write_text(
        "-----BEGIN PUBLIC KEY-----\n" + base64.b64encode(der).decode() + "\n-----END PUBLIC KEY-----\n"
    )
    Path("mcp-lock.sig").write_text(json.dumps(v["envelope"]))
    doc = json.loads((DATA / "remote-with-surface.json").read_text())
    Path("doc.json").write_text(json.dumps(doc))
    r = cli(
        "verify-lock",
        "doc.json",
        "--signature",
        "mcp-lock.sig",
        "--key",
        "vec.pem",
        "--digest",
        VECTORS["wholeLockDigest"]["digest"],
    )
    assert r.returncode == 0 and "the signature verifies" in r.stdout, (r.stdout, r.stderr)
    doc["extensions"]["dev.toolpin"]["source"] = "elsewhere"  # no integrity covers the top-level extensions
    Path("doc.json").write_text(json.dumps(doc))
    assert reader.check(doc) == []  # still a conforming document …
    j = json.loads(
        cli(
            "verify-lock",
            "doc.json",
            "--signature",
            "mcp-lock.sig",
            "--key",
            "vec.pem",
            "--digest",
            VECTORS["wholeLockDigest"]["digest"],
            "--format",
            "json",
        ).stdout
    )
    assert {p["rule"] for p in j["problems"]} == {"signature", "lock-digest"}  # … but not the one signed
    assert cli("verify-lock", "doc.json", "--signature", "mcp-lock.sig").returncode == 2  # --key is needed


def test_a_coverage_downgrade_disagrees_with_the_lock(cli):
    store.save(_round_trip_lock(), "mcp.lock")
    doc = json.loads(cli("export", "--format", "mcp-lock-v1", "-o", "-").stdout)
    e = doc["entries"][0]
    srv = _round_trip_lock().servers[e["name"]]
    tools = [t.definition for t in srv.tools.values()]
    e["surface"] = {
        "hash": surface(tools, ("name", "description")),
        "coverage": ["name", "description"],
        "toolCount": len(tools),
    }  # a true hash, over less
    doc["entries"][0] = seal(e)
    Path("doc.json").write_text(json.dumps(doc))
    assert _rules(doc) == set()  # a conforming document
    j = json.loads(cli("verify-lock", "doc.json", "--format", "json").stdout)
    assert j["agrees"] is False and [d["code"] for d in j["disagreements"]] == ["surface"]
    assert "coverage downgrade" in j["disagreements"][0]["message"]
