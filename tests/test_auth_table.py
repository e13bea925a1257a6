"""mcplock.lock.spec.auth_table_problem in-process: each rule of a lock's `auth` table, and which one
is said first when several are broken (the order the reader reports them in)."""

from __future__ import annotations

import pytest

from mcplock.lock.auth_spec import auth_table_problem

CC = {"method": "client-credentials", "client-id": "ci"}
IA = {
    "method": "identity-assertion",
    "id-token": "${ID_TOKEN}",
    "idp-token-endpoint": "https://idp.example/token",
    "client-id": "c",
    "client-secret": "${S}",
}


@pytest.mark.parametrize(
    ("table", "key"),
    [
        ({"method": "oauth", "client-secret": "hunter2"}, "client-secret"),
        ({"method": "oauth", "client-secret": "${A}x"}, "client-secret"),
        ({**CC, "client-key": "-----BEGIN PRIVATE KEY-----"}, "client-key"),
        ({**CC, "client-key": "${K}", "client-secret": "${S}"}, "client-key"),  # the secret passes, the key not
        ({"method": "client-credentials", "client-key": "${K}"}, "client-key"),  # no client-id
        ({"method": "oauth", "client-key": "${K}"}, "client-key"),
        ({**CC, "signing-alg": "RS256"}, "signing-alg"),  # no key
        ({**CC, "client-key": "${K}", "signing-alg": "none"}, "signing-alg"),
        ({"method": "oauth", "issuer": "https://x"}, "issuer"),  # an identity-assertion key elsewhere
        ({**IA, "id-token": "eyJ..."}, "id-token"),
        ({**IA, "idp-token-endpoint": ""}, "idp-token-endpoint"),
        ({**IA, "issuer": "http://idp.example"}, "issuer"),
        ({"method": "oauth", "client-metadata-url": "http://x/c.json"}, "client-metadata-url"),
        ({**CC, "client-metadata-url": "https://x/c.json"}, "client-metadata-url"),
        # several broken: the secret first, then the key, then the rest
        (
            {"method": "oauth", "client-secret": "s", "client-key": "k", "client-metadata-url": "http://x"},
            "client-secret",
        ),
        (
            {"method": "oauth", "client-key": "k", "signing-alg": "none", "client-metadata-url": "http://x"},
            "client-key",
        ),
    ],
)
def test_each_rule_names_its_key(table, key):
    problem = auth_table_problem(table)
    assert problem is not None and problem[0] == key, problem


@pytest.mark.parametrize(
    "table",
    [
        {"method": "oauth"},
        {"method": "oauth", "client-id": "c", "client-secret": "${S}${T}"},
        {**CC, "client-key": "${K}", "signing-alg": "ES256"},
        {"method": "oauth", "client-metadata-url": "https://x/c.json"},
        {**IA, "issuer": "http://localhost:8/"},
    ],
)
def test_the_sound_twins_pass(table):
    assert auth_table_problem(table) is None
