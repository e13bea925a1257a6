"""mcplock/model/uris.py, in-process: what a listed or read URI reaches (each verdict, and its honest twin)."""

from __future__ import annotations

import pytest

from mcplock.model.uris import internal_target, walks_out

METADATA = "a cloud metadata service"
LOOPBACK = "this machine's loopback"
OUT = "a path out of its directory (..)"


@pytest.mark.parametrize(
    ("uri", "verdict"),
    [
        ("http://169.254.169.254/latest/meta-data/", METADATA),
        ("http://169.254.1.7/", METADATA),  # any link-local address
        ("http://[fe80::1]/", METADATA),
        ("http://[fd00:ec2::254]/", METADATA),
        ("http://[::ffff:169.254.169.254]/", METADATA),  # IPv4-mapped
        ("http://METADATA.google.internal./v1/", METADATA),  # case and the trailing dot
        ("http://2852039166/", METADATA),  # what inet_aton reads
        ("http://0251.0376.0251.0376/", METADATA),
        ("http://127.0.0.1:8080/admin", LOOPBACK),
        ("http://[::ffff:127.0.0.1]/", LOOPBACK),
        ("http://0.0.0.0/", LOOPBACK),  # unspecified
        ("http://[::]/", LOOPBACK),
        ("http://localhost/", LOOPBACK),
        ("http://api.localhost/", LOOPBACK),
        ("http://localhost/../secret", LOOPBACK),  # the host is named first
        ("file:///srv/notes/../../etc/shadow", OUT),
        ("file:///srv/notes/%2e%2e/x", OUT),
        ("http://[not-an-address/../x", OUT),  # an unparseable host still walks out
        ("https://docs.example.com/pages/creds-howto", None),
        ("https://localhost.example.com/", None),
        ("http://10.0.0.1/", None),
        ("file:///srv/notes/a.md", None),
        ("ui://widget/view.html", None),
    ],
)
def test_internal_target_names_what_a_uri_reaches(uri, verdict):
    assert internal_target(uri) == verdict


def test_walks_out_reads_dots_encoded_and_backslashed():
    assert walks_out("file:///a/%252e%252e/b") and walks_out("file:///a\\..\\b") and walks_out("x/./y")
    assert not walks_out("file:///a/..b/c") and not walks_out("https://x/a?p=../b")
