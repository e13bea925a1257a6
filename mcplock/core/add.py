"""Adding servers to the lock (which ones: :mod:`mcplock.core.add_sources`): :func:`add_servers`,
the one workflow `add`, `add --from` and `init` end in
(look-alike names, trust, ownership claims, package pins, the probe, staging, the acceptance
rule, the write). What a person is shown and asked goes through :class:`Hooks`.

The rule: critical lint findings are never accepted wholesale — an item with one stays
pending even under ``add --yes`` or "accept all" at the prompt, for a person to review.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from mcplock.core.add_sources import Staged
from mcplock.core.probing import Results, result_of, unpinnable
from mcplock.core.specs import entry_from_spec, lock_dir, probe_spec
from mcplock.errors import HashError, ProbeError, UntrustedError
from mcplock.lock.auth_spec import AuthSpec
from mcplock.lock.model import Entry, ServerEntry
from mcplock.lock.spec import ClientIdentity, ServerSpec
from mcplock.lock.targets import label
from mcplock.model import severity

if TYPE_CHECKING:
    from mcplock.lint import LintFinding
    from mcplock.probe import ProbeOptions
    from mcplock.trust.org_policy import OrgPolicy

Findings = dict[tuple[str, str, str], "list[LintFinding]"]  # (server, kind, key) -> lint findings


def pin_packages(
    specs: list[Staged],
    environ: Mapping[str, str] | None = None,
    on_pin: Callable[[ServerSpec], None] | None = None,
) -> tuple[list[Staged], dict[str, ProbeError], dict[str, ServerSpec]]:
    """Each spec whose command runs a registry package (npx, uvx, docker run…) with its exact
    version and integrity resolved and the artefact installed in the cache; the servers whose
    package could not be resolved (unknown, unreachable registry: not to be probed nor added, exit 3);
    and the spec that runs each verified artefact (its tree checked here, once: the probe launches it)."""
    from mcplock.packages import pin_and_prepare
    from mcplock.packages.command_line import parse
    from mcplock.packages.errors import RegistryError
    from mcplock.packages.launchers import Launch

    out: list[Staged] = []
    failed: dict[str, ProbeError] = {}
    ready: dict[str, ServerSpec] = {}
    for sp, chash in specs:
        if sp.remote or sp.package is not None or not isinstance(parse(sp.command, sp.args), Launch):
            out.append((sp, chash))
            continue
        if on_pin is not None:
            on_pin(sp)
        try:
            pinned, ready[sp.name] = pin_and_prepare(sp, environ)
        except RegistryError as e:
            failed[sp.name] = ProbeError(e.code, e.message, hint=e.hint)
            out.append((sp, chash))  # staged as failed: not probed, not added
            continue
        out.append((pinned, chash))
    return out, failed, ready


def stage_new(
    specs: list[Staged],
    results: Results,
    policy: str,
    client: ClientIdentity | None,
    auths: Mapping[str, AuthSpec | None],
) -> tuple[list[ServerEntry], dict[str, ProbeError]]:
    """New lock entries, everything they offer pending (``auths``: the auth each one records,
    :func:`mcplock.core.oauth.read_lock_auths`); and the servers that failed."""
    from mcplock.lock import review

    staged: list[ServerEntry] = []
    failed: dict[str, ProbeError] = {}
    for sp, chash in specs:
        r = result_of(results, sp.name)
        if isinstance(r, ProbeError):
            failed[sp.name] = r
            continue
        entry = entry_from_spec(sp, policy, chash, auth=auths.get(sp.name))
        entry.client = client
        try:
            review.stage(entry, r)
        except HashError as e:  # this server fails alone; the others are still added
            failed[sp.name] = unpinnable(e)
            continue
        staged.append(entry)
    return staged, failed


def is_critical(server: str, e: Entry, findings: Findings) -> bool:
    """The rule: an item with a critical lint finding is never accepted wholesale (``add --yes``,
    ``accept --all``, ``accept SERVER``, "accept the rest" in the walk); a person names it."""
    return any(f.severity == severity.CRITICAL for f in findings.get((server, e.kind, e.key), []))


def has_critical(entry: ServerEntry, findings: Findings) -> bool:
    return any(is_critical(entry.name, e, findings) for e in entry.entries())


def accept_all_but_critical(
    entry: ServerEntry, findings: Findings, org: OrgPolicy | None = None, forbidden: list[str] | None = None
) -> list[str]:
    """Accept every pending item of a new ``entry`` except those with a critical lint finding
    (returned: the targets held back) and those the organisation's policy forbids (appended to
    ``forbidden``, with the rule): both stay pending."""
    from mcplock.lock import review
    from mcplock.trust.org_policy import forbids_accept

    held: list[str] = []
    for e in list(entry.entries()):
        found = forbids_accept(org, entry, e, None, findings.get((entry.name, e.kind, e.key))) if org else []
        if found:
            (forbidden if forbidden is not None else held).append(f"{label(entry, e)} ({found[0].rule})")
        elif is_critical(entry.name, e, findings):
            held.append(label(entry, e))
        else:
            review.accept(entry, e)
    return held


def write_new(lockfile: str, staged: list[ServerEntry]) -> dict[str, ProbeError]:
    """Add ``staged`` to the lock in one transaction; a name some other process locked
    meanwhile is left alone and returned as failed."""
    from mcplock.lock.store import transaction

    clashes: dict[str, ProbeError] = {}
    if not staged:
        return clashes
    with transaction(lockfile, create=True) as lock:
        for entry in staged:
            if entry.name in lock.servers:
                clashes[entry.name] = ProbeError("exists", "was added to the lock meanwhile by another process")
                continue
            lock.servers[entry.name] = entry
    return clashes


class Hooks:
    """What :func:`add_servers` shows a person and asks them, in the order it happens; the
    caller (the CLI) overrides what it shows. The defaults show nothing and answer no."""

    def lookalike(self, spec: ServerSpec, finding: LintFinding) -> None:
        """``spec`` runs a package named like a well-known one (before anything is trusted)."""

    def trust(self, refused: UntrustedError) -> bool:
        """Trust what ``refused`` names and run it? May raise ``refused`` (no one to ask)."""
        return False

    def pinning(self, spec: ServerSpec) -> None:
        """``spec``'s package is being resolved to an exact release and installed."""

    def probing(self, specs: list[ServerSpec]) -> None:
        """``specs`` are about to be probed (as they will run)."""

    def event(self, name: str, what: str) -> None:
        """A probe's progress: ``what`` is "start", "done" or "failed"."""

    def say(self, text: str) -> None:
        """A line to show as it is (an authorization URL to open)."""

    def probed(self, results: Results) -> None:
        """The probes are over."""

    def confirm(self, entry: ServerEntry, findings: Findings) -> bool:
        """Accept everything new ``entry`` offers, but its critical items? (asked per server)"""
        return False


@dataclass
class Added:
    """What :func:`add_servers` did: the entries written, the servers that failed (a probe,
    a package, a name another process locked meanwhile), per server the items held back for
    their critical findings, and the MCP Registry names claimed by imported packages."""

    entries: list[ServerEntry] = field(default_factory=list)
    failed: dict[str, ProbeError] = field(default_factory=dict)
    held: dict[str, list[str]] = field(default_factory=dict)
    forbidden: dict[str, list[str]] = field(default_factory=dict)  # held back by the organisation's policy
    claims: list[tuple[str, str, str]] = field(default_factory=list)  # (server, package, registry name)
    interrupted: bool = False  # Ctrl-C at a server's question: the rest written with their items pending

    def pending(self) -> list[ServerEntry]:
        return [e for e in self.entries if e.pending_count()]


def add_servers(
    specs: list[Staged],
    *,
    lockfile: str,
    policy: str,
    opts: ProbeOptions,
    login: bool = False,
    client: ClientIdentity | None = None,
    consent: bool,
    how: str,
    hooks: Hooks,
) -> Added:
    """Lock new servers: probe them, stage what they offer, accept it where ``hooks.confirm``
    says yes (never an item with a critical finding), write them in one transaction.

    Nothing runs before it is trusted: ``consent`` (typed on the command line, --trust,
    --yes), an earlier trust in this project, or a yes to ``hooks.trust``; else the refusal
    names ``how`` (the command that trusts)."""
    from mcplock.core import trust as core_trust
    from mcplock.core.oauth import discovered_launch, read_lock_auths
    from mcplock.core.registry import check_claims
    from mcplock.trust.org_policy import refuse_adding

    org = refuse_adding([sp for sp, _ in specs], opts.environ)  # the policy before anything is fetched or run
    base = lock_dir(lockfile)
    _name_lookalikes(specs, hooks)  # named before anything is trusted, fetched or installed
    # trusted before anything is fetched: the commands as the person sees them (nothing is
    # resolved or downloaded for a server that is not trusted), then the launch as it will run,
    # its package pinned to the exact release that command named (docs/least-privilege.md)
    _trust_or_ask([probe_spec(sp, base) for sp, _ in specs], base, consent=consent, how=how, hooks=hooks)
    check_claims([sp for sp, _ in specs], opts.environ)  # an impostor registry entry: refused, nothing installed
    specs, unpinned, ready = pin_packages(specs, opts.environ, on_pin=hooks.pinning)
    launch = [probe_spec(sp, base) for sp, _ in specs if sp.name not in unpinned]
    core_trust.trust(launch, base)
    results = _probe_launch(launch, {n: probe_spec(sp, base) for n, sp in ready.items()}, opts, lockfile, login, hooks)
    # The token store is read a second time here, after the probe, on purpose: the probe's own read
    # (auth.read_uses_oauth, at each connection) answers "use a stored login?" before a login that
    # the probe may then do (core/oauth.after_probe logs in where a server asks and probes again;
    # an identity assertion stores the authorization server it discovered). What the lock records
    # (auth = "oauth", the discovered issuer) is what the store holds after those writes.
    auths = read_lock_auths(s for s in launch if not isinstance(results.get(s.name), ProbeError))
    core_trust.trust(discovered_launch(launch, auths), base)  # (SEP-990: the issuer it found is locked)
    results.update(unpinned)
    staged, failed = stage_new(specs, results, policy, client, auths)
    publisher = vouch_staged(staged, results, opts.environ, hooks.say)
    return _accept_and_write(staged, failed, lockfile, hooks, publisher, org)


def _trust_or_ask(asked: list[ServerSpec], base: str, *, consent: bool, how: str, hooks: Hooks) -> None:
    """The commands as the person sees them: trusted by the ``consent`` given, else trusted
    already here or now (``hooks.trust``), else refused."""
    from mcplock.core import trust as core_trust

    if consent:
        core_trust.trust(asked, base)
    else:
        _gate(asked, base, how, hooks)


def _name_lookalikes(specs: list[Staged], hooks: Hooks) -> None:
    """``hooks.lookalike`` for each package named like a popular one it is not."""
    from mcplock.lint.packages import lookalike, named_package

    for sp, _ in specs:
        named = named_package(sp.command, sp.args) if sp.stdio else None
        found = lookalike(*named, sp.registry.name if sp.registry is not None else None) if named else None
        if found is not None:
            hooks.lookalike(sp, found)


def _probe_launch(
    launch: list[ServerSpec],
    prepared: dict[str, ServerSpec],
    opts: ProbeOptions,
    lockfile: str,
    login: bool,
    hooks: Hooks,
) -> Results:
    """The trusted launches probed concurrently (``prepared``: the pinned packages' specs, ready
    to run), told to the hooks before and after."""
    from mcplock.core.probing import probe

    if not launch:
        return {}
    hooks.probing(launch)
    results = probe(
        launch, opts, lockfile=lockfile, login=login, on_event=hooks.event, say=hooks.say, prepared=prepared
    )
    hooks.probed(results)
    return results


def _accept_and_write(
    staged: list[ServerEntry],
    failed: dict[str, ProbeError],
    lockfile: str,
    hooks: Hooks,
    publisher: Findings,
    org: OrgPolicy | None,
) -> Added:
    """Accept each staged server ``hooks.confirm`` says yes to (never an item with a critical
    finding, a publisher statement's among them), write them all in one transaction; a name
    another process locked meanwhile fails.

    Ctrl-C at a server's question keeps what was probed: every staged server is written, the
    ones answered as answered, the rest with everything they offer pending (as a "no" leaves
    them): `check` fails until a person reviews them, and `init` again probes nothing."""
    from mcplock.lint.entries import lint_entries

    findings = lint_entries(staged)
    for k, found in publisher.items():
        findings.setdefault(k, []).extend(found)
    done = Added()
    try:
        for entry in staged:
            if hooks.confirm(entry, findings):
                done.held[entry.name] = accept_all_but_critical(
                    entry, findings, org, done.forbidden.setdefault(entry.name, [])
                )
    except KeyboardInterrupt:
        done.interrupted = True
    clashes = write_new(lockfile, staged)
    done.failed = {**failed, **clashes}
    done.entries = [e for e in staged if e.name not in clashes]
    done.claims = claimed_names(done.entries)
    return done


def vouch_staged(
    staged: list[ServerEntry], results: Results, environ: Mapping[str, str] | None, say: Callable[[str], None]
) -> Findings:
    """Each new server whose pinned package ships a publisher statement, checked against what it
    answered (mcplock.publish.vouch): told through ``say``; the key that vouched recorded on the
    entry; the items answered otherwise as critical findings."""
    from mcplock.publish.vouch import check_servers

    return check_servers([(e, results.get(e.name)) for e in staged], environ, say)


def _gate(specs: list[ServerSpec], base: str, how: str, hooks: Hooks) -> None:
    """The trust gate; what it refuses is asked (``hooks.trust``), a yes recorded."""
    from mcplock.core import trust as core_trust

    try:
        core_trust.gate(specs, base, how=how)
    except UntrustedError as e:
        if not hooks.trust(e):
            raise UntrustedError("not trusted: nothing ran", specs=e.specs, hint=e.hint) from None
        core_trust.trust(e.specs, base)
        core_trust.gate(specs, base, how=how)


def _may_claim(spec: ServerSpec) -> bool:
    """Whether a server's package may be claimed by an MCP Registry name: imported from a host
    config (not added by a registry name), an npm or PyPI pin."""
    pin = spec.package
    return spec.registry is None and spec.source is not None and pin is not None and pin.registry in ("npm", "pypi")


def claimed_names(entries: list[ServerEntry]) -> list[tuple[str, str, str]]:
    """The servers imported from a host config whose npm or PyPI package claims an MCP Registry
    name: (server, package, that name), for `init` and `add --from` to offer. A registry that cannot be asked
    changes nothing."""
    from mcplock.packages.claims import claimed
    from mcplock.packages.errors import RegistryError

    out: list[tuple[str, str, str]] = []
    for entry in entries:
        pin = entry.spec.package
        if pin is None or not _may_claim(entry.spec):
            continue
        try:
            got = claimed(pin.registry, pin.name, pin.version)
        except RegistryError:
            continue
        if got:
            out.append((entry.name, pin.label, got))
    return out
