"""`mcplock audit`: what OSV reports about every exact release one project's lock pins or
launches, and the gate's verdict (docs/advisories.md).

Which releases: a server's package pin (``pinned``); without a pin, an exact version its command
line names (``npx -y pkg@1.2.3``: ``launched``). Everything else is *not asked*, with the reason:
a floating launch (no exact version to ask about), a registry OSV has no ecosystem for (OCI,
MCPB), a local command, a remote server.

Exit code: 1 when a release is malware, or has a vulnerability at or above ``fail_on`` (a
vulnerability without a severity counts as at any level); else 3 when OSV did not answer for a
release (unknown: a CI job that tolerates outages can allow 3, and still never passes a known
finding); else 0. Pure apart from :func:`run_audit`'s one call to OSV; nothing prints.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from mcplock.model.severity import SEVERITIES, at_least

if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Mapping

    from mcplock.lock.model import Lock
    from mcplock.packages.advisories import Advisory, Answer, Release

#: ``--fail-on`` values: a severity (that one and above fail), or ``malware`` (only malware fails)
FAIL_ON = ("critical", "high", "medium", "low", "info", "malware")
DEFAULT_FAIL_ON = "low"


@dataclass(frozen=True)
class Row:
    """One server of the lock: the release asked about and OSV's answer, or why none was asked."""

    server: str
    how: str  # "pinned" | "launched" | "not-asked"
    registry: str | None = None
    release: Release | None = None
    answer: Answer | None = None
    note: str | None = None  # why not asked

    @property
    def state(self) -> str:
        """``malware``, ``vulnerable``, ``clean``, ``unknown`` or ``not-asked``."""
        if self.answer is None:
            return "not-asked"
        if self.answer.unknown:
            return "unknown"
        if self.answer.malware:
            return "malware"
        return "vulnerable" if self.answer.vulnerabilities else "clean"


@dataclass(frozen=True)
class Audit:
    lockfile: str
    osv: str  # the OSV base URL asked (user info, query and fragment dropped)
    fail_on: str
    rows: tuple[Row, ...]

    @property
    def asked(self) -> tuple[Row, ...]:
        return tuple(r for r in self.rows if r.answer is not None)

    def failing(self, advisory: Advisory) -> bool:
        """Whether this advisory fails the gate."""
        if advisory.malware:
            return True
        if self.fail_on == "malware":
            return False
        return advisory.severity is None or at_least(advisory.severity, self.fail_on)

    @property
    def exit_code(self) -> int:
        if any(self.failing(a) for r in self.asked if r.answer for a in r.answer.advisories or ()):
            return 1
        return 3 if any(r.state == "unknown" for r in self.rows) else 0

    def counts(self) -> dict[str, int]:
        """Releases by state, and vulnerabilities by severity (``unrated``: none given)."""
        out = {s: 0 for s in ("malware", "vulnerable", "clean", "unknown", "not-asked")}
        for r in self.rows:
            out[r.state] += 1
        sev = {s: 0 for s in (*SEVERITIES, "unrated")}
        seen: set[tuple[str, str]] = set()
        for r in self.asked:
            for a in r.answer.vulnerabilities if r.answer else ():
                key = (r.release.label if r.release else "", a.id)
                if key not in seen:
                    seen.add(key)
                    sev[a.severity or "unrated"] += 1
        return {**out, **{f"vulnerabilities-{k}": v for k, v in sev.items()}}


def rows_of(lock: Lock) -> list[tuple[str, str, str | None, Release | None, str | None]]:
    """(server, how, registry, release, why not asked) for every server of the lock, in order.

    What runs decides (:func:`mcplock.packages.runs.runs`): a pin that governs the launch is asked
    about; a launch the pin does not govern (behind a wrapper, another package, ``uvx --from
    git+…``) is asked about as what it launches, when that names an exact version."""
    from mcplock.packages.advisories import Release, ecosystem_of
    from mcplock.packages.pin import pin_problem
    from mcplock.packages.runs import runs

    out: list[tuple[str, str, str | None, Release | None, str | None]] = []
    for name, srv in lock.servers.items():
        spec = srv.spec
        ran = runs(spec.command, spec.args, spec.package, stdio=spec.stdio)
        got = ran.launch
        if ran.kind == "remote":
            out.append((name, "not-asked", None, None, "remote server: no package runs here"))
            continue
        if ran.kind == "pinned" and spec.package is not None:
            pin = spec.package
            registry, pkg, version, how = pin.registry, pin.name, pin.version, "pinned"
        elif got is not None:
            if got.requested is None or pin_problem(got.registry, got.name, got.requested) is not None:
                why = f"runs {got.registry} package {got.name} with no exact version (pin it with `mcplock update`)"
                out.append((name, "not-asked", got.registry, None, why))
                continue
            registry, pkg, version, how = got.registry, got.name, got.requested, "launched"
        else:
            why = "a local command: it runs the project's own code" if ran.kind == "local" else ran.reason
            out.append((name, "not-asked", None, None, why))
            continue
        eco = ecosystem_of(registry)
        if eco is None:
            why = f"OSV has no advisories for {registry} artefacts ({pkg})"
            out.append((name, "not-asked", registry, None, why))
            continue
        out.append((name, how, registry, Release(eco, pkg, version), None))
    return out


def run_audit(lock: Lock, lockfile: str, fail_on: str, environ: Mapping[str, str] | None = None) -> Audit:
    """Ask OSV once about every distinct release of the lock (see the module's docstring)."""
    from mcplock.packages.advisories import base_url, lookup

    base = base_url(environ)
    found = rows_of(lock)
    releases = [rel for _n, _h, _r, rel, _w in found if rel is not None]
    answers = iter(lookup(releases, url=base)) if releases else iter(())
    rows = []
    for name, how, registry, rel, why in found:
        answer = next(answers) if rel is not None else None
        rows.append(Row(name, how, registry, rel, answer, why))
    return Audit(lockfile, _shown_url(base), fail_on, tuple(rows))


def _shown_url(url: str) -> str:
    from urllib.parse import urlsplit, urlunsplit

    p = urlsplit(url)
    host = p.hostname or ""
    netloc = f"[{host}]" if ":" in host else host
    if p.port:
        netloc += f":{p.port}"
    return urlunsplit((p.scheme, netloc, p.path, "", ""))
