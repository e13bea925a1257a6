"""``mcplock fleet``: many projects' inventories joined into counts — never a score — and the
lists behind each count (docs/organisation.md, "fleet").

- **sprawl**: each server (a package, a remote endpoint, a local command by name) with the
  projects that run it and the versions they run;
- **unpinned** launches (``unpinned`` and ``floating``: what runs is whatever the registry serves);
- **review**: items pending review, tools disabled, items accepted with a high or critical finding;
- **divergent surfaces** (critical): one package version locked with different surfaces in two
  projects — one of them saw another answer from the same release; each surface named with the
  projects that locked it;
- **unsigned**: projects whose lock is not validly signed where a policy requires signing;
- **violations** of the policy, per project; **stale** inventories (older than ``max_age``);
- **advisories** (``--advisories``): a function given every exact release the projects pin or
  launch (:data:`Release`), answering per release; see :func:`join`.

Pure: :mod:`.sources` reads the inputs, this joins them, the CLI and :mod:`.fleet_html` render.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from mcplock.model.severity import at_least
from mcplock.org.records import NEEDS_PIN, disabled

if TYPE_CHECKING:
    from mcplock.org.sources import Inputs, Project
    from mcplock.trust.org_policy import OrgPolicy

FORMAT = "mcplock-fleet"
VERSION = 1
Release = tuple[str, str, str]  # (registry, name, version): "npm" | "pypi" | "oci" | "mcpb"
# what `--advisories` plugs in: every release → what is known of each (malware, vulnerabilities, or unknown)
Advisories = Callable[[set[Release]], Mapping[Release, Any]]

# each count a report answers: (key, the question in words, the severity it is shown with when not zero)
COUNT_LINES: tuple[tuple[str, str, str], ...] = (
    ("malware", "releases reported as malware (--advisories)", "critical"),
    ("vulnerable", "releases with a known vulnerability (--advisories)", "high"),
    ("advisories_unknown", "releases OSV gave no answer about (--advisories)", "medium"),
    ("divergent_surfaces", "package versions locked with different surfaces in two projects", "critical"),
    ("accepted_high_or_critical", "items accepted with a high or critical finding", "high"),
    ("unsigned", "projects not validly signed where a policy requires signing", "high"),
    ("policy_violations", "policy violations", "high"),
    ("unpinned", "unpinned or floating launches", "medium"),
    ("pending", "items pending review", "medium"),
    ("disabled", "tools disabled", "info"),
    ("stale", "inventories older than the maximum age", "medium"),
    ("servers_in_several_projects", "servers run by more than one project", "info"),
    ("servers_at_several_versions", "servers run at more than one version", "info"),
)


def identity(srv: dict[str, Any]) -> tuple[str, str]:
    """(what a server is across projects, the version this one runs)."""
    pkg, launch = srv["package"], srv["launch"]
    if launch:  # what the command line runs, where no pin governs it
        return f"{launch['registry']}:{launch['name']}", launch.get("requested") or "(floating)"
    if pkg:
        return f"{pkg['registry']}:{pkg['name']}", pkg["version"]
    if srv["endpoint"]:
        return srv["endpoint"], (srv.get("server_info") or {}).get("version") or "(remote)"
    if srv["transport"] != "stdio":
        return f"remote:{srv['name']}", "(remote)"
    return f"local:{srv['name']}", (srv.get("server_info") or {}).get("version") or "(local)"


def release(srv: dict[str, Any]) -> Release | None:
    """The exact release a server pins (or launches by an exact version), else None."""
    pkg, launch = srv["package"], srv["launch"]
    if launch:  # no pin governs the launch: the release is the one the command line names
        if srv["pinning"] == "unpinned" and launch.get("requested"):
            return (launch["registry"], launch["name"], launch["requested"])
        return None
    if pkg:
        return (pkg["registry"], pkg["name"], pkg["version"])
    return None


def _age(generated_at: str, now: datetime) -> timedelta | None:
    try:
        when = datetime.fromisoformat(generated_at.replace("Z", "+00:00"))
    except ValueError:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return now - when


def _signing(inv: dict[str, Any], policy: OrgPolicy | None) -> tuple[bool, tuple[str, ...]]:
    """(whether signing is required of this project, the keys that may sign): the fleet's policy,
    else the one the inventory was made under."""
    if policy is not None and policy.signing_required:
        return True, policy.signing_keys
    own = inv["policy"] or {}
    return bool(own.get("signing_required")), tuple(own.get("signing_keys") or ())


def _unsigned(inv: dict[str, Any], keys: tuple[str, ...]) -> str | None:
    lock = inv["lock"]
    if lock is None:
        return "no lock"
    state = lock["signature"]
    if state != "valid":
        return {"missing": "not signed", "stale": "signed, but the lock changed since"}.get(state, "signature invalid")
    if keys and lock["signing_key"] not in keys:
        return f"signed by {lock['signing_key']}, a key the policy does not list"
    return None


class _Join:
    def __init__(self, max_age: timedelta | None, now: datetime, policy: OrgPolicy | None) -> None:
        self.max_age, self.now, self.policy = max_age, now, policy
        self.sprawl: dict[str, dict[str, set[str]]] = {}
        self.surfaces: dict[Release, dict[str, list[dict[str, str]]]] = {}
        self.uses: dict[Release, list[dict[str, str]]] = {}
        self.unpinned: list[dict[str, Any]] = []
        self.pending: list[dict[str, Any]] = []
        self.disabled: list[dict[str, Any]] = []
        self.high: list[dict[str, Any]] = []
        self.unsigned: list[dict[str, str]] = []
        self.violations: list[dict[str, Any]] = []
        self.stale: list[dict[str, Any]] = []
        self.projects: list[dict[str, Any]] = []

    def project(self, p: Project) -> None:
        inv = p.inventory
        for srv in inv["servers"]:
            self.server(p.name, srv)
        required, keys = _signing(inv, self.policy)
        why = _unsigned(inv, keys) if required else None
        if why is not None:
            self.unsigned.append({"project": p.name, "reason": why})
        if inv["violations"]:
            rules: dict[str, int] = {}
            for v in inv["violations"]:
                rules[str(v.get("rule"))] = rules.get(str(v.get("rule")), 0) + 1
            self.violations.append({"project": p.name, "count": len(inv["violations"]), "rules": rules})
        stale = self._stale(p)
        self.projects.append(
            {
                "name": p.name,
                "path": p.path,
                "kind": p.kind,
                "scope": inv["scope"],
                "generated_at": inv["generated_at"],
                "servers": len(inv["servers"]),
                "signature": (inv["lock"] or {}).get("signature"),
                "signing_key": (inv["lock"] or {}).get("signing_key"),
                "violations": len(inv["violations"]),
                "stale": stale,
            }
        )

    def _stale(self, p: Project) -> bool:
        if self.max_age is None or p.kind == "lock":
            return False  # a lock read now is as fresh as it gets
        age = _age(p.inventory["generated_at"], self.now)
        if age is not None and age <= self.max_age:
            return False
        days = None if age is None else round(age.total_seconds() / 86400, 1)
        self.stale.append({"project": p.name, "generated_at": p.inventory["generated_at"], "age_days": days})
        return True

    def server(self, project: str, srv: dict[str, Any]) -> None:
        ident, version = identity(srv)
        self.sprawl.setdefault(ident, {}).setdefault(version, set()).add(project)
        where = {"project": project, "server": srv["name"]}
        if srv["pinning"] in NEEDS_PIN:
            self.unpinned.append({**where, "pinning": srv["pinning"], "package": ident, "version": version})
        rel = release(srv)
        if rel is not None:
            self.uses.setdefault(rel, []).append(where)
            surface = srv["surface"]
            if surface and surface["tools"]:
                self.surfaces.setdefault(rel, {}).setdefault(surface["mcp-lock-v1"], []).append(where)
        for it in srv["items"]:
            self.item(where, it)

    def item(self, where: dict[str, str], it: dict[str, Any]) -> None:
        label = it["name"] if it["kind"] == "tool" else f"{it['kind']}:{it['name']}"
        rec = {**where, "item": label}
        if it["state"] == "pending":
            self.pending.append({**rec, "change": it.get("change")})
        elif disabled(it):
            self.disabled.append(rec)
        if it["state"] == "accepted" and it["highest_finding"] and at_least(it["highest_finding"], "high"):
            self.high.append({**rec, "severity": it["highest_finding"]})


def _divergent(surfaces: dict[Release, dict[str, list[dict[str, str]]]]) -> list[dict[str, Any]]:
    out = []
    for rel, by_digest in sorted(surfaces.items()):
        if len(by_digest) < 2:
            continue
        out.append(
            {
                "severity": "critical",
                "package": {"registry": rel[0], "name": rel[1], "version": rel[2]},
                "surfaces": [{"digest": d, "locked_by": by_digest[d]} for d in sorted(by_digest)],
            }
        )
    return out


def _sprawl(sprawl: dict[str, dict[str, set[str]]]) -> list[dict[str, Any]]:
    rows = []
    for ident, versions in sprawl.items():
        projects = set().union(*versions.values())
        rows.append(
            {
                "server": ident,
                "projects": len(projects),
                "versions": {v: len(ps) for v, ps in sorted(versions.items())},
            }
        )
    return sorted(rows, key=lambda r: (-r["projects"], -len(r["versions"]), r["server"]))


def join(
    inputs: Inputs,
    *,
    max_age: timedelta | None = None,
    now: datetime | None = None,
    policy: OrgPolicy | None = None,
    advisories: Advisories | None = None,
) -> dict[str, Any]:
    """The fleet report (``mcplock-fleet`` version 1) of ``inputs``; ``advisories``, when given,
    is asked once about every exact release (:data:`Advisories`)."""
    when = now or datetime.now(UTC)
    j = _Join(max_age, when, policy)
    for p in inputs.projects:
        j.project(p)
    divergent = _divergent(j.surfaces)
    sprawl = _sprawl(j.sprawl)
    report: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "generated_at": when.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "counts": {
            "projects": len(inputs.projects),
            "set_aside": len(inputs.set_aside),
            "servers": sum(p["servers"] for p in j.projects),
            "distinct_servers": len(sprawl),
            "servers_in_several_projects": sum(1 for r in sprawl if r["projects"] > 1),
            "servers_at_several_versions": sum(1 for r in sprawl if len(r["versions"]) > 1),
            "unpinned": len(j.unpinned),
            "pending": len(j.pending),
            "disabled": len(j.disabled),
            "accepted_high_or_critical": len(j.high),
            "divergent_surfaces": len(divergent),
            "unsigned": len(j.unsigned),
            "policy_violations": sum(v["count"] for v in j.violations),
            "projects_with_violations": len(j.violations),
            "stale": len(j.stale),
        },
        "max_age_days": None if max_age is None else max_age.total_seconds() / 86400,
        "projects": j.projects,
        "set_aside": inputs.set_aside,
        "sprawl": sprawl,
        "unpinned": j.unpinned,
        "pending": j.pending,
        "disabled": j.disabled,
        "accepted_high_or_critical": j.high,
        "divergent_surfaces": divergent,
        "unsigned": j.unsigned,
        "violations": j.violations,
        "stale": j.stale,
        "advisories": None,
    }
    counts = report["counts"]
    counts.update(malware=None, vulnerable=None, advisories_unknown=None)
    if advisories is not None:
        answers = advisories(set(j.uses))
        rows = [
            {"package": {"registry": r[0], "name": r[1], "version": r[2]}, "used_by": j.uses[r], **answers[r]}
            for r in sorted(j.uses, key=lambda r: (_STATE_ORDER.get(answers[r]["state"], 9), r))
        ]
        report["advisories"] = rows
        for key, state in (("malware", "malware"), ("vulnerable", "vulnerable"), ("advisories_unknown", "unknown")):
            counts[key] = sum(1 for row in rows if row["state"] == state)
    return report


_STATE_ORDER = {"malware": 0, "vulnerable": 1, "unknown": 2, "not-asked": 3, "none": 4}


def osv(releases: set[Release]) -> dict[Release, dict[str, Any]]:
    """What OSV reports of each release (:mod:`mcplock.packages.advisories`): ``state`` ``malware``,
    ``vulnerable``, ``none``, ``unknown`` (OSV did not answer: never read as none) or ``not-asked``
    (OSV has no ecosystem for the registry: OCI images, MCPB bundles), ``worst``, the advisories,
    and the reason for the last two."""
    from mcplock.packages.advisories import Release as Asked
    from mcplock.packages.advisories import ecosystem_of, lookup

    asked = {r: Asked(eco, r[1], r[2]) for r in releases if (eco := ecosystem_of(r[0])) is not None}
    answers = {a.release: a for a in lookup(sorted(set(asked.values()), key=str))} if asked else {}
    out: dict[Release, dict[str, Any]] = {}
    for r in releases:
        if r not in asked:
            why = f"not asked: OSV has no advisories for {r[0]} packages"
            out[r] = {"state": "not-asked", "worst": None, "reason": why, "advisories": []}
            continue
        a = answers.get(asked[r])
        if a is None or a.unknown:
            why = (a.reason if a is not None else None) or "OSV did not answer"
            out[r] = {"state": "unknown", "worst": "unknown", "reason": why, "advisories": []}
            continue
        state = "malware" if a.malware else "vulnerable" if a.vulnerabilities else "none"
        found = [x.stored() for x in (*a.malware, *a.vulnerabilities)]
        out[r] = {"state": state, "worst": a.worst, "reason": None, "advisories": found}
    return out


def exit_code(report: dict[str, Any]) -> int:
    """1 when the report holds a critical finding (a release reported as malware, a divergent
    surface); else 3 when OSV did not answer about a release (``--advisories``, as ``audit``); else 0."""
    if report["divergent_surfaces"] or report["counts"]["malware"]:
        return 1
    return 3 if report["counts"]["advisories_unknown"] else 0
