"""`mcplock verify-lock`, `sign`, `verify-signature`, `fingerprint`: the open `mcp-lock/1` format
as a reader and enforcer, and ed25519 signatures over the lock and the policy (docs/interop.md,
docs/signing.md). `export --format mcp-lock-v1` (the producer) is in export.py."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import typer
from rich.text import Text

from mcplock.cli import context
from mcplock.cli.options import ORG_POLICY
from mcplock.text.untrusted import safe_text, shell_word

if TYPE_CHECKING:
    from collections.abc import Callable

    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from mcplock.core.verify_lock import Verdict
    from mcplock.lock.model import Lock
    from mcplock.trust.org_policy import OrgPolicy


def cmd_verify_lock(
    ctx: typer.Context,
    file: str = typer.Argument(..., metavar="FILE", help="An mcp-lock/1 document (mcp-lock.json)."),
    fmt: str = typer.Option("text", "--format", help="text or json."),
    against: bool = typer.Option(
        True,
        "--lock/--no-lock",
        help=(
            "Also say whether the document agrees with the lock (--lockfile, default ./mcp.lock) when there is one "
            "(default); --no-lock judges the document alone."
        ),
    ),
    expect: str | None = typer.Option(
        None,
        "--digest",
        metavar="sha256-…",
        help=("The whole-lock digest the document must have (one carried in a CI variable, say)."),
    ),
    signature: str | None = typer.Option(
        None,
        "--signature",
        metavar="SIG",
        help=(
            "A detached mcp-lock-signature envelope over the document's whole-lock digest (mcp-lock.sig); "
            "checked with --key."
        ),
    ),
    key: str | None = typer.Option(
        None, "--key", metavar="PUB", help=("The public key --signature must be made with (OpenSSH .pub or PEM).")
    ),
) -> int:
    """Check an mcp-lock/1 document as a conforming reader and enforcer: its schema, canonical form,
    each entry's integrity and every rule of the specification, each problem named by its rule;
    beside an mcp.lock, whether the two agree (targets, pins, surface hashes, config digests).

    Exit 0: conforms (and agrees); 1: a rule is broken, the lock is empty, or it disagrees with mcp.lock;
    2: the file cannot be read."""
    from mcplock.core.verify_lock import verify_document
    from mcplock.errors import UsageError

    cli = context.of(ctx)
    cli.report_format("verify-lock", fmt, ("text", "json"))
    if (signature is None) != (key is None):
        raise UsageError("--signature and --key go together", hint="give both: --signature mcp-lock.sig --key KEY.pub")
    verdict = verify_document(
        _read_document(file),
        file,
        expect=expect,
        signature=(signature, key) if signature is not None and key is not None else None,
        lockfile=cli.lockfile if against else None,
    )
    if fmt == "json":
        cli.write_json(_verdict_json(file, verdict))
    else:
        _say_verdict(cli, file, verdict, expected=expect is not None, signed=signature is not None)
    return verdict.code


def _read_document(file: str) -> bytes:
    from mcplock.errors import UsageError
    from mcplock.model.files import DOCUMENT_MAX, read_bounded

    try:
        return read_bounded(file, DOCUMENT_MAX)
    except OSError as e:
        raise UsageError(
            f"cannot read {file}: {e.strerror or e}",
            hint="give the path of an mcp-lock/1 document (`mcplock export --format mcp-lock-v1` writes mcp-lock.json)",
        ) from None


def _verdict_json(file: str, v: Verdict) -> dict[str, object]:
    return {
        "version": 1,
        "command": "verify-lock",
        "file": file,
        "exit_code": v.code,
        "conforms": v.conforms,
        "lock_digest": v.digest,
        "problems": [p.as_json() for p in v.problems],
        "lockfile": v.compared,
        "agrees": None if v.compared is None else not v.disagreements,
        "disagreements": [d.as_json() for d in v.disagreements],
    }


def _say_verdict(cli: context.Cli, file: str, v: Verdict, *, expected: bool, signed: bool) -> None:
    """Each problem with the rule it breaks, each disagreement, then the verdict on the document
    and (when compared) on its agreement with the lock."""
    from mcplock.interop.reader import RULES

    for p in v.problems:
        cli.out.print(Text(f"{p.rule}: ", style="bold red").append_text(safe_text(p.message, keep_newlines=False)))
        cli.out.print(Text(f"  rule: {RULES[p.rule]}", style="dim"))
    for d in v.disagreements:
        cli.out.print(
            Text(f"disagrees ({d.code}): ", style="bold red").append_text(safe_text(d.message, keep_newlines=False))
        )
    cli.say(_conformance_line(file, v, expected=expected, signed=signed))
    if v.compared is not None:
        cli.say(_agreement_line(v.compared, len(v.disagreements), _by_mcplock(v.doc), file))


def _conformance_line(file: str, v: Verdict, *, expected: bool, signed: bool) -> Text:
    if v.problems:
        return Text(f"{len(v.problems)} problem(s) in ", style="bold red").append_text(
            safe_text(file, "bold red", keep_newlines=False)
        )
    return (
        Text("ok: ")
        .append_text(safe_text(file, keep_newlines=False))
        .append(
            f": conforms to mcp-lock/1 ({v.entries} entries, every integrity verified"
            + ("; the whole-lock digest is the one expected" if expected else "")
            + ("; the signature verifies with the key given" if signed else "")
            + ")"
        )
    )


def _by_mcplock(doc: Any) -> bool:
    """Whether the document carries mcplock's own extension (mcplock wrote it)."""
    from mcplock.interop.produce import NAMESPACE

    entries = doc.get("entries") if isinstance(doc, dict) else None
    parts = [doc, *(entries if isinstance(entries, list) else [])]
    return any(
        isinstance(p, dict) and isinstance(p.get("extensions"), dict) and NAMESPACE in p["extensions"] for p in parts
    )


def _agreement_line(compared: str, disagreements: int, ours: bool, file: str) -> Text:
    if disagreements:
        hint = (
            "; export it again: `mcplock export --format mcp-lock-v1`"
            if ours
            else f"; mcplock did not write this document: judge it alone with `mcplock verify-lock {shell_word(file)} "
            "--no-lock`"
        )
        return (
            Text(f"{disagreements} disagreement(s) with ", style="bold red")
            .append_text(safe_text(compared, "bold red", keep_newlines=False))
            .append(hint, style="dim")
        )
    return (
        Text("agrees with ")
        .append_text(safe_text(compared, keep_newlines=False))
        .append(": targets, pins, surface hashes and config digests")
    )


def _passphrase_prompt() -> Callable[[str], str] | None:
    """At a terminal: a prompt that reads a key's passphrase without echo (Ctrl-C stops the
    command); elsewhere None (CI sets MCPLOCK_KEY_PASSPHRASE)."""
    import sys

    if not (sys.stdin.isatty() and sys.stderr.isatty()):
        return None

    def ask(prompt: str) -> str:
        import getpass

        return getpass.getpass(prompt, stream=sys.stderr)

    return ask


def cmd_sign(
    ctx: typer.Context,
    key: str = typer.Option(
        ...,
        "--key",
        metavar="KEY",
        help=(
            "The private key: an OpenSSH ed25519 key (as `ssh-keygen -t ed25519` writes, e.g. ~/.ssh/id_ed25519) "
            "or a PKCS#8 PEM. A passphrase is asked for at a terminal, else read from $MCPLOCK_KEY_PASSPHRASE (CI)."
        ),
    ),
    policy: str | None = ORG_POLICY,
    document: str | None = typer.Option(
        None,
        "--document",
        metavar="FILE",
        help=(
            "Sign an mcp-lock/1 document instead (its whole-lock digest): writes mcp-lock.sig beside it, for "
            "other tools (`verify-lock FILE --signature mcp-lock.sig --key PUB`)."
        ),
    ),
) -> int:
    """Sign the lock (and the policy in effect) with an ed25519 key: writes mcp.lock.sig beside the
    lock, an mcp-lock-signature v1 envelope (docs/signing.md). Review first: a signature says that
    the key's holder approved exactly this lock under exactly this policy."""
    from mcplock.core.check import integrity
    from mcplock.errors import McplockError
    from mcplock.lock.read import load
    from mcplock.lock.store import write_atomic
    from mcplock.trust import org_policy, signing

    cli = context.of(ctx)
    org = org_policy.resolve(policy)
    private = signing.load_private_key(key, _passphrase_prompt())
    if document is not None:
        return _sign_document(cli, private, document, org)
    lock = load(cli.lockfile)
    bad = integrity(lock)
    if bad:
        raise McplockError(
            f"{cli.lockfile} fails its own hashes ({bad[0].message}); mcplock does not sign a lock "
            "`mcplock check` fails",
            hint=bad[0].hint,
            code="signature",
        )
    from mcplock.trust import rollback

    _refuse_unlisted_key(org, signing.fingerprint(private.public_key()))
    path = signing.signature_path(cli.lockfile)
    try:
        on_disk = signing.read_envelope(path)
    except signing.SigningInputError:
        on_disk = None  # a malformed signature is replaced; its sequence counts for nothing
    sequence = rollback.next_sequence(path, on_disk)
    env = signing.sign(
        private, signing.lock_digest(cli.lockfile), org.digest if org is not None else None, sequence=sequence
    )
    write_atomic(path, signing.dumps(env))
    fp = env["publicKeyFingerprint"]
    cli.say(
        Text("signed ")
        .append_text(safe_text(cli.lockfile, keep_newlines=False))
        .append(f" with {fp}" + (f" under the policy {signing.policy_paths(org)}" if org is not None else ""))
        .append(" → ")
        .append_text(safe_text(path, keep_newlines=False))
    )
    _after_signing(cli, lock, org, fp)
    return 0


def _refuse_unlisted_key(org: OrgPolicy | None, fp: str) -> None:
    """A policy that lists its signers refuses a signature by any other key: writing one would
    replace a good signature with one `check` fails (issue 42.9), so nothing is written."""
    from mcplock.errors import UsageError

    if org is not None and org.signing_keys and fp not in org.signing_keys:
        raise UsageError(
            f"the policy {org.path} does not list this key ({fp}) in [signing] keys: a signature by it "
            "would fail `mcplock check`; nothing was written",
            hint=f'sign with a key the policy lists, or add "{fp}" to its [signing] keys first (docs/signing.md)',
        )


def _after_signing(cli: context.Cli, lock: Lock, org: OrgPolicy | None, fp: str) -> None:
    """What the signer should know next: pending proposals need a new signature once accepted;
    a policy that lists other keys refuses this one; without a list, how to require it."""
    if lock.servers and any(s.pending_count() for s in lock.servers.values()):
        cli.note(
            "the lock has pending proposals: they stay unserved until accepted, and accepting them changes "
            "the lock, which then needs signing again"
        )
    _say_key_in_policy(cli, org, fp)


def _say_key_in_policy(cli: context.Cli, org: OrgPolicy | None, fp: str) -> None:
    """A policy that lists other keys refuses this one (said); one that lists none: how to require it."""
    if org is not None and org.signing_keys and fp not in org.signing_keys:
        cli.note(
            f'the policy {org.path} does not list this key: add "{fp}" to its [signing] keys, or check '
            "and the guard will refuse this signature"
        )
    elif org is None or not org.signing_keys:
        cli.info(f'to require it, the policy says: [signing] require = true, keys = ["{fp}"]')


def _sign_document(cli: context.Cli, private: Ed25519PrivateKey, document: str, org: OrgPolicy | None) -> int:
    from mcplock.errors import McplockError, UsageError
    from mcplock.interop import digests, reader
    from mcplock.lock.store import write_atomic
    from mcplock.model.files import DOCUMENT_MAX, read_bounded
    from mcplock.trust import signing

    try:
        doc, problems = reader.read(read_bounded(document, DOCUMENT_MAX))
    except OSError as e:
        raise UsageError(
            f"cannot read {document}: {e.strerror or e}",
            hint="`mcplock export --format mcp-lock-v1` writes mcp-lock.json",
        ) from None
    if problems or not isinstance(doc, dict):
        raise McplockError(
            f"{document} does not conform to mcp-lock/1 ({problems[0].rule}: {problems[0].message}); "
            "mcplock signs only a conforming document"
            if problems
            else f"{document} is not a document",
            hint=f"`mcplock verify-lock {document}` names every problem",
            code="signature",
        )
    env = signing.sign(private, digests.whole_lock_digest(doc), org.digest if org is not None else None)
    path = os.path.join(os.path.dirname(document), "mcp-lock.sig")
    write_atomic(path, signing.dumps(env))
    cli.say(
        Text("signed ")
        .append_text(safe_text(document, keep_newlines=False))
        .append(f" (whole-lock digest {env['lockfileDigest']}) with {env['publicKeyFingerprint']} → ")
        .append_text(safe_text(path, keep_newlines=False))
    )
    return 0


def cmd_verify_signature(
    ctx: typer.Context,
    key: str | None = typer.Option(
        None,
        "--key",
        metavar="PUB",
        help=(
            "The public key that must have signed: an OpenSSH .pub file or a PEM public key. Default: the keys the "
            "policy lists ([signing] keys)."
        ),
    ),
    policy: str | None = ORG_POLICY,
) -> int:
    """Verify mcp.lock.sig: signed by the key (--key, or one the policy lists), over this lock, under
    the policy in effect. Exit 0 valid; 1 missing, another key, or the lock or policy changed after
    signing; 2 a malformed envelope, an unknown algorithm, or a key that is not ed25519."""
    from mcplock.errors import UsageError
    from mcplock.trust import org_policy, signing

    cli = context.of(ctx)
    org = org_policy.resolve(policy)
    pub = signing.load_public_key(key) if key else None
    trusted = org.signing_keys if org is not None else ()
    if pub is None and not trusted:
        raise UsageError(
            "no key to verify with",
            hint="give one: `mcplock verify-signature --key KEY.pub`, or a "
            "policy whose [signing] keys lists the signers",
        )
    v = signing.verify(
        cli.lockfile,
        key=pub,
        trusted=trusted,
        policy_digest=org.digest if org else None,
        policy_path=signing.policy_paths(org) if org else None,
    )
    cli.say(
        Text("ok: ")
        .append_text(safe_text(signing.signature_path(cli.lockfile), keep_newlines=False))
        .append(
            f": signed by {v.fingerprint} at {v.signed_at}, over this lock"
            + (f" under the policy {signing.policy_paths(org)}" if v.policy and org else "")
        )
    )
    return 0


def cmd_fingerprint(
    ctx: typer.Context,
    key: str = typer.Argument(..., metavar="KEY", help="A public key (.pub, PEM) or a private key file."),
) -> int:
    """Print a key's fingerprint as the policy's [signing] keys lists it: sha256-<base64> of the
    public key's SPKI DER encoding (not `ssh-keygen -l`'s form)."""
    from mcplock.trust import signing

    cli = context.of(ctx)
    cli.out.print(Text(signing.fingerprint(signing.load_public_key(key))))
    return 0


def register(app: typer.Typer) -> None:
    app.command("verify-lock")(cmd_verify_lock)
    app.command("sign")(cmd_sign)
    app.command("verify-signature")(cmd_verify_signature)
    app.command("fingerprint")(cmd_fingerprint)
