"""Signatures (docs/signing.md): keys made by `ssh-keygen` (and PKCS#8 PEM), `sign` and
`verify-signature`, the policy's `[signing]` enforced by `check`, `diff` and the guard — which
starts no server on a lock no listed key signed — tamper and wrong-key cases, and bad input
(a malformed envelope, an unknown algorithm, a key that is not ed25519): exit 2, never a pass.
The envelope is checked here independently (rfc8785 + cryptography, not mcplock's code)."""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import rfc8785
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519, rsa
from guardhost import Host

from lockdata import make_lock
from runner import SURFACES, stdio_command

SSH_KEYGEN = shutil.which("ssh-keygen")


def keygen(name: str, kind: str = "ed25519") -> Path:
    """A key pair as `ssh-keygen -t KIND` writes it (NAME, NAME.pub). Without ssh-keygen on the
    machine, the same openssh-key-v1 format is written with cryptography."""
    if SSH_KEYGEN:
        extra = ["-b", "2048"] if kind == "rsa" else []
        subprocess.run(
            [SSH_KEYGEN, "-q", "-t", kind, *extra, "-N", "", "-C", "test", "-f", name], check=True, timeout=60
        )
        return Path(name)
    key = (
        ed25519.Ed25519PrivateKey.generate()
        if kind == "ed25519"
        else rsa.generate_private_key(public_exponent=65537, key_size=2048)
    )
    Path(name).write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.OpenSSH, serialization.NoEncryption())
    )
    Path(name + ".pub").write_bytes(
        key.public_key().public_bytes(serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH) + b" test\n"
    )
    return Path(name)


def fingerprint_of(pub_path: str) -> str:
    """sha256-<base64> of the SPKI DER, computed here from the .pub file."""
    key = serialization.load_ssh_public_key(Path(pub_path).read_bytes())
    der = key.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    return "sha256-" + base64.b64encode(hashlib.sha256(der).digest()).decode()


def policy(*keys: str, require: bool = True, name: str = "policy.toml", extra: str = "") -> str:
    Path(name).write_text(
        f"version = 1\n{extra}[signing]\nrequire = {'true' if require else 'false'}\nkeys = {json.dumps(list(keys))}\n"
    )
    return name


def toml_digest(path: str) -> str:
    import tomllib

    return (
        "sha256-"
        + base64.b64encode(hashlib.sha256(rfc8785.dumps(tomllib.loads(Path(path).read_text()))).digest()).decode()
    )


def test_sign_and_verify_with_ssh_keygen_keys(cli):
    make_lock()
    keygen("alice")
    fp = fingerprint_of("alice.pub")
    r = cli("fingerprint", "alice.pub")
    assert r.returncode == 0 and r.stdout.strip() == fp
    assert cli("fingerprint", "alice").stdout.strip() == fp  # from the private key too
    if SSH_KEYGEN:  # not ssh-keygen -l's form
        sshfp = subprocess.run([SSH_KEYGEN, "-l", "-f", "alice.pub"], capture_output=True, text=True).stdout
        assert fp not in sshfp and fp.startswith("sha256-")
    p = policy(fp)
    r = cli("sign", "--key", "alice", "--policy", p)
    assert r.returncode == 0, r.stderr
    assert fp in r.stdout
    env = json.loads(Path("mcp.lock.sig").read_text())
    # the envelope, checked independently
    from jsonschema import Draft202012Validator

    from conftest import ROOT

    schema = json.loads((ROOT / "mcplock/interop/schemas/mcp-lock-signature-v1.schema.json").read_text())
    assert list(Draft202012Validator(schema).iter_errors(env)) == []
    assert env["lockfileDigest"] == toml_digest("mcp.lock")
    assert env["policyDigest"] == toml_digest(p)
    assert env["publicKeyFingerprint"] == fp
    key = serialization.load_ssh_public_key(Path("alice.pub").read_bytes())
    key.verify(
        base64.b64decode(env["signature"]), rfc8785.dumps({k: v for k, v in env.items() if k != "signature"})
    )  # raises if it does not verify
    assert cli("verify-signature", "--key", "alice.pub", "--policy", p).returncode == 0
    assert cli("verify-signature", "--policy", p).returncode == 0  # the policy's keys, the envelope's public key
    r = cli("check", "--policy", p)
    assert r.returncode == 0, r.stdout


def test_pkcs8_pem_keys_sign_and_verify(cli):
    make_lock()
    key = ed25519.Ed25519PrivateKey.generate()
    Path("k.pem").write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    Path("k.pub.pem").write_bytes(
        key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    )
    assert cli("sign", "--key", "k.pem").returncode == 0
    r = cli("verify-signature", "--key", "k.pub.pem")
    assert r.returncode == 0, r.stderr
    # an encrypted PKCS#8 PEM reads its passphrase from the environment
    Path("enc.pem").write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.BestAvailableEncryption(b"pw")
        )
    )
    r = cli("sign", "--key", "enc.pem")
    assert r.returncode == 2 and "passphrase" in r.stderr and "Traceback" not in r.stderr
    assert cli("sign", "--key", "enc.pem", env={"MCPLOCK_KEY_PASSPHRASE": "pw"}).returncode == 0
    assert cli("verify-signature", "--key", "k.pub.pem").returncode == 0


def test_check_refuses_a_missing_signature_and_one_by_another_key(cli):
    make_lock()
    keygen("alice")
    keygen("mallory")
    p = policy(fingerprint_of("alice.pub"))
    r = cli("check", "--policy", p)
    assert r.returncode == 1 and "no signature" in r.stdout and "mcplock sign --key" in r.stdout
    assert cli("check").returncode == 0  # without the policy nothing asks for one
    assert cli("sign", "--key", "mallory").returncode == 0  # no policy names its signers: any key signs
    r = cli("check", "--policy", p)
    assert r.returncode == 1 and "not one the policy lists" in r.stdout, r.stdout
    assert cli("verify-signature", "--key", "alice.pub", "--policy", p).returncode == 1


def test_check_refuses_a_lock_changed_after_signing(cli):
    make_lock()
    keygen("alice")
    p = policy(fingerprint_of("alice.pub"))
    assert cli("sign", "--key", "alice", "--policy", p).returncode == 0
    assert cli("check", "--policy", p).returncode == 0
    r = cli("disable", "docs/search_docs")
    assert r.returncode == 0 and "no longer matches" in r.stderr and "mcplock sign" in r.stderr
    r = cli("check", "--policy", p)
    assert r.returncode == 1 and "changed after it was signed" in r.stdout
    assert cli("sign", "--key", "alice", "--policy", p).returncode == 0
    assert cli("check", "--policy", p).returncode == 0


def test_check_refuses_a_lock_signed_under_another_policy(cli):
    make_lock()
    keygen("alice")
    p = policy(fingerprint_of("alice.pub"))
    assert cli("sign", "--key", "alice", "--policy", p).returncode == 0
    policy(fingerprint_of("alice.pub"), extra='[tools]\ndeny = ["*delete*"]\n')  # changed after signing
    r = cli("check", "--policy", p)
    assert r.returncode == 1 and "policy" in r.stdout and "changed after it was signed" in r.stdout, r.stdout
    assert cli("sign", "--key", "alice").returncode == 0  # signed with no policy in effect
    r = cli("check", "--policy", p)
    assert r.returncode == 1 and "no policy in effect" in r.stdout


def test_a_tampered_envelope_does_not_verify(cli):
    make_lock()
    keygen("alice")
    p = policy(fingerprint_of("alice.pub"))
    assert cli("sign", "--key", "alice", "--policy", p).returncode == 0
    good = json.loads(Path("mcp.lock.sig").read_text())
    cases = {
        "signedAt": {**good, "signedAt": "2020-01-01T00:00:00Z"},
        # a lock digest moved to what the lock now is, by hand: the signature no longer covers it
        "lockfileDigest": {**good, "lockfileDigest": "sha256-" + base64.b64encode(b"x" * 32).decode()},
        "publicKey": {
            **good,
            "publicKey": base64.b64encode(
                ed25519.Ed25519PrivateKey.generate()
                .public_key()
                .public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
            ).decode(),
        },
    }
    for what, env in cases.items():
        Path("mcp.lock.sig").write_text(json.dumps(env))
        r = cli("check", "--policy", p)
        assert r.returncode == 1 and "signature" in r.stdout, (what, r.stdout, r.stderr)
        assert cli("verify-signature", "--key", "alice.pub", "--policy", p).returncode == 1, what


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("not json", "not a signature envelope"),
        ('{"schema": "mcp-lock-signature", "version": 1, "algorithm": "rsa-pss"}', "unknown signature algorithm"),
        ('{"schema": "mcp-lock-signature", "version": 2}', "not a valid mcp-lock-signature v1 envelope"),
        ("[1]", "not a JSON object"),
        ("SIG", "signature is not 64 bytes"),
    ],
)
def test_a_malformed_envelope_is_exit_2(cli, text, words):
    make_lock()
    keygen("alice")
    p = policy(fingerprint_of("alice.pub"))
    assert cli("sign", "--key", "alice", "--policy", p).returncode == 0
    if text == "SIG":
        env = json.loads(Path("mcp.lock.sig").read_text())
        text = json.dumps({**env, "signature": base64.b64encode(b"short").decode()})
    Path("mcp.lock.sig").write_text(text)
    for args in (
        ["check", "--policy", p],
        ["verify-signature", "--key", "alice.pub"],
        ["diff", "--policy", p],
        ["run", "docs", "--policy", p],
    ):
        r = cli(*args)
        assert r.returncode == 2, (args, r.stdout, r.stderr)
        assert words in r.stderr and "Traceback" not in r.stderr, (args, r.stderr)


def test_a_key_that_is_not_ed25519_is_exit_2(cli):
    make_lock()
    keygen("rsa", "rsa")
    Path("junk").write_text("hello\n")
    for args, words in (
        (["sign", "--key", "rsa"], "not an ed25519 key"),
        (["sign", "--key", "rsa.pub"], "is a public key"),
        (["sign", "--key", "junk"], "not a private key"),
        (["sign", "--key", "missing"], "cannot read the key"),
        (["verify-signature", "--key", "rsa.pub"], "not an ed25519 key"),
        (["verify-signature", "--key", "junk"], "not a public key"),
        (["fingerprint", "rsa.pub"], "not an ed25519 key"),
    ):
        r = cli(*args)
        assert r.returncode == 2 and words in r.stderr and "Traceback" not in r.stderr, (args, r.stderr)
    assert not Path("mcp.lock.sig").exists()


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("[signing]\nrequire = true\nkeys = []\n", "needs the fingerprints"),
        ('[signing]\nrequire = true\nkeys = ["SHA256:abc"]\n', "not a key fingerprint"),
        ('[signing]\nrequire = "yes"\n', "`signing.require` must be a bool"),
        ("[signing]\nkey = []\n", "unknown key `signing.key`"),
    ],
)
def test_a_broken_signing_policy_is_exit_2(cli, text, words):
    make_lock()
    Path("p.toml").write_text("version = 1\n" + text)
    r = cli("check", "--policy", "p.toml")
    assert r.returncode == 2 and words in r.stderr, r.stderr


def test_diff_refuses_an_unsigned_lock_before_probing(cli):
    make_lock()  # `python server.py`, which does not exist: a probe would fail with exit 3
    keygen("alice")
    p = policy(fingerprint_of("alice.pub"))
    r = cli("diff", "--policy", p)
    assert r.returncode == 1 and "no signature" in r.stderr, (r.stdout, r.stderr)


def test_accept_and_refresh_say_the_lock_needs_signing_again(cli):
    make_lock(accept=False)
    keygen("alice")
    r = cli("accept", "--all")
    assert r.returncode == 0 and "sign" not in r.stderr  # no signature file: nothing to say
    make_lock(accept=False)
    assert cli("sign", "--key", "alice").returncode == 0
    r = cli("accept", "--all")
    assert r.returncode == 0 and "mcp.lock.sig no longer matches it" in r.stderr, r.stderr
    r = cli("list")
    assert "no longer matches" not in r.stderr  # said by the commands that change the lock


# -- the guard: no server starts on a lock no listed key signed ----------------------------------------


@pytest.mark.timeout(300)  # a dozen mcplock processes and a real server, one after another
def test_the_guard_starts_no_server_without_a_valid_signature(cli):
    shutil.copy(SURFACES / "demo.json", "surface.json")
    marker = Path("started.log").resolve()
    inner = " ".join(stdio_command(surface="surface.json"))
    cmd = ["/bin/sh", "-c", f"echo started >> '{marker}'; exec {inner}"]
    r = cli("add", "docs", "--yes", "--timeout", "20", "--", *cmd)
    assert r.returncode == 0, r.stderr
    probes = marker.read_text().count("started")
    assert probes >= 1
    keygen("alice")
    keygen("mallory")
    p = policy(fingerprint_of("alice.pub"))

    def guard_refuses(words: str) -> None:
        r = subprocess.run(
            [sys.executable, "-m", "mcplock", "run", "docs", "--policy", p],
            input="",
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert r.returncode != 0 and words in r.stderr, r.stderr
        assert marker.read_text().count("started") == probes  # the server never started

    guard_refuses("no signature")
    assert cli("sign", "--key", "mallory", "--policy", p).returncode == 2  # refused: nothing written
    assert cli("sign", "--key", "mallory").returncode == 0  # signed by a key the policy does not list
    guard_refuses("not one the policy lists")
    assert cli("sign", "--key", "alice", "--policy", p).returncode == 0
    lock = Path("mcp.lock").read_text()
    Path("mcp.lock").write_text(lock.replace("enabled = true", "enabled = false", 1))  # a hand edit after signing
    guard_refuses("changed after it was signed")
    Path("mcp.lock").write_text(lock)
    assert cli("sign", "--key", "alice", "--policy", p).returncode == 0
    with Host("docs", "--policy", p) as h:  # signed by a listed key: it serves
        h.initialize()
        names = [t["name"] for t in h.request("tools/list")["result"]["tools"]]
        assert "search_docs" in names
        assert h.close() == 0
    assert marker.read_text().count("started") == probes + 1


def test_check_without_signing_does_not_import_cryptography(cli):
    make_lock()
    keygen("alice")
    assert cli("sign", "--key", "alice").returncode == 0
    probe = (
        "import sys\nfrom mcplock.__main__ import main\ntry:\n    main(sys.argv[1:])\nexcept SystemExit:\n"
        "    pass\nsys.stderr.write('SCHEMA=' + str('jsonschema' in sys.modules) + ' CRYPTO=' + "
        "str('cryptography' in sys.modules))\n"
    )
    plain = subprocess.run([sys.executable, "-c", probe, "check"], capture_output=True, text=True, timeout=60)
    assert plain.stderr.endswith("CRYPTO=False"), plain.stderr
    p = policy(fingerprint_of("alice.pub"), require=False)  # keys listed, nothing required
    plain = subprocess.run(
        [sys.executable, "-c", probe, "check", "--policy", p], capture_output=True, text=True, timeout=60
    )
    assert plain.stderr.endswith("CRYPTO=False"), plain.stderr
    p = policy(fingerprint_of("alice.pub"))
    signed = subprocess.run(
        [sys.executable, "-c", probe, "check", "--policy", p], capture_output=True, text=True, timeout=60
    )
    assert signed.stderr.endswith("SCHEMA=False CRYPTO=True"), signed.stderr  # it verifies; jsonschema: never


def test_a_flag_policy_adds_to_the_environments_and_never_widens_its_keys(cli):
    make_lock()
    keygen("alice")
    keygen("bob")
    org = policy(fingerprint_of("alice.pub"), name="org.toml")
    env = {"MCPLOCK_POLICY": org}
    Path("repo.toml").write_text('version = 1\n[tools]\ndeny = ["*delete*"]\n')
    assert cli("sign", "--key", "alice", env=env).returncode == 0
    assert cli("check", env=env).returncode == 0
    r = cli("check", "--policy", "repo.toml", env=env)  # another rule book than the one signed
    assert r.returncode == 1 and "changed after it was signed" in r.stdout, r.stdout
    assert cli("disable", "docs/delete_page").returncode == 0
    assert cli("sign", "--key", "alice", "--policy", "repo.toml", env=env).returncode == 0
    assert cli("check", "--policy", "repo.toml", env=env).returncode == 0
    # a repository's own policy listing its own key does not let that key pass the organisation's rule
    policy(fingerprint_of("bob.pub"), name="repo.toml")
    assert cli("sign", "--key", "bob", "--policy", "repo.toml", env=env).returncode == 0
    r = cli("check", "--policy", "repo.toml", env=env)
    assert r.returncode == 1 and "not one the policy lists" in r.stdout, r.stdout


def test_an_exported_document_signed_for_other_tools(cli):
    make_lock()
    keygen("alice")
    assert cli("export", "--format", "mcp-lock-v1").returncode == 0
    r = cli("sign", "--key", "alice", "--document", "mcp-lock.json")
    assert r.returncode == 0, r.stderr
    env = json.loads(Path("mcp-lock.sig").read_text())
    doc = json.loads(Path("mcp-lock.json").read_text())
    whole = (
        "sha256-"
        + base64.b64encode(
            hashlib.sha256(
                rfc8785.dumps({k: doc[k] for k in ("specVersion", "entries", "extensions") if k in doc})
            ).digest()
        ).decode()
    )
    assert env["lockfileDigest"] == whole and "policyDigest" not in env
    key = serialization.load_ssh_public_key(Path("alice.pub").read_bytes())
    key.verify(base64.b64decode(env["signature"]), rfc8785.dumps({k: v for k, v in env.items() if k != "signature"}))
    r = cli("verify-lock", "mcp-lock.json", "--signature", "mcp-lock.sig", "--key", "alice.pub")
    assert r.returncode == 0 and "the signature verifies" in r.stdout, r.stdout
    keygen("mallory")
    r = cli("verify-lock", "mcp-lock.json", "--signature", "mcp-lock.sig", "--key", "mallory.pub")
    assert r.returncode == 1 and "signature:" in r.stdout
    Path("bad.json").write_text('{"specVersion": 2, "entries": []}')
    r = cli("sign", "--key", "alice", "--document", "bad.json")
    assert r.returncode == 2 and "spec-version" in r.stderr and "Traceback" not in r.stderr  # an input error


def test_the_envelope_rules_are_the_schemas():
    """`mcplock.trust.signing.envelope_problem` writes the vendored schema's rules out (no jsonschema on the
    guard's start): both give the same verdict on each envelope here."""
    from jsonschema import Draft202012Validator

    from mcplock.trust.signing import envelope_problem

    from conftest import ROOT

    schema = json.loads((ROOT / "mcplock/interop/schemas/mcp-lock-signature-v1.schema.json").read_text())
    good = {
        "schema": "mcp-lock-signature",
        "version": 1,
        "algorithm": "ed25519",
        "lockfileDigest": "sha256-" + "A" * 43 + "=",
        "policyDigest": "sha256-" + "B" * 43 + "=",
        "publicKeyFingerprint": "sha256-" + "C" * 43 + "=",
        "signedAt": "2026-12-01T21:45:01.322Z",
        "signature": "D" * 86 + "==",
        "publicKey": "MCow",
        "extra": [1],
    }
    cases = [good, {k: v for k, v in good.items() if k != "policyDigest"}]
    for k in ("schema", "version", "algorithm", "lockfileDigest", "publicKeyFingerprint", "signedAt", "signature"):
        cases.append({x: v for x, v in good.items() if x != k})
    for k, bad in (
        ("schema", "mcp-lock"),
        ("version", 2),
        ("version", "1"),
        ("version", True),
        ("algorithm", "rsa"),
        ("lockfileDigest", "sha256:ab"),
        ("policyDigest", "sha512-AA=="),
        ("publicKeyFingerprint", 7),
        ("signedAt", "2026-12-01"),
        ("signedAt", "2026-12-01T21:45:01+0100"),
        ("signedAt", "2026-12-01T21:45:01+01:00"),
        ("signature", "not base64!"),
        ("signature", None),
    ):
        cases.append({**good, k: bad})
    for env in cases:
        by_schema = not list(Draft202012Validator(schema).iter_errors(env))
        assert (envelope_problem(env) is None) == by_schema, env


@pytest.mark.parametrize(
    ("signed", "in_effect", "why"),
    [
        ("sha256-a", "sha256-a", None),
        (None, None, None),
        ("sha256-a", None, "it was signed under a policy, and no policy is in effect now"),
        (None, "sha256-b", "it was signed with no policy in effect, and org.toml is in effect now"),
        ("sha256-a", "sha256-b", "the policy org.toml changed after it was signed"),
    ],
)
def test_why_the_policy_in_effect_is_not_the_signed_one(signed, in_effect, why) -> None:
    from mcplock.trust.signing import _policy_moved

    assert _policy_moved(signed, in_effect, "org.toml") == why
    if signed is not None and in_effect is not None and why is not None:
        assert _policy_moved(signed, in_effect, None) == "the policy changed after it was signed"
