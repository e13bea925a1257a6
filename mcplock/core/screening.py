"""What is screened before a release is proposed (`outdated`, `update`, `update-pr`; docs/updates.md,
"Screening"), from the registries' own metadata and OSV:

- **minimum release age** (``--min-age DAYS``, policy ``updates.min-age``, default 7): a release
  younger than that is *held* — not proposed yet, and the report says from when it will be (npm's
  ``time[VERSION]``, PyPI's earliest ``upload_time_iso_8601`` of the release);
- **malware**: a release OSV reports with a ``MAL-`` record is *refused*, never proposed; a known
  vulnerability of the candidate is named, and one of the pinned release the candidate no longer
  has is named as a reason to update;
- **install-time code**: an npm release that adds or changes a lifecycle script (``preinstall``,
  ``install``, ``postinstall``, ``prepare``; or newly builds natively, ``hasInstallScript``), or a
  PyPI release that ships only an sdist where the pinned one had wheels, reads ``high`` with the
  script's text (or the files);
- **deprecated or yanked**: refused, with the registry's reason.

Only npm and PyPI releases carry this metadata; an image or an MCP Registry entry is said to be
not screened. A registry or OSV that cannot answer is said, never read as "clean".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from mcplock.core.update import Row

LIFECYCLE = ("preinstall", "install", "postinstall", "prepare")


@dataclass
class Screened:
    """What screening found about the release a row would move to."""

    published: str | None = None
    held_until: str | None = None  # too young: proposed from then on
    refused: str | None = None  # deprecated, yanked or malware: why, in the registry's or OSV's words
    findings: list[dict[str, str]] = field(default_factory=list)  # {"severity", "rule", "message", "text"}
    vulnerabilities: list[str] = field(default_factory=list)  # the candidate's known ones: "ID (severity)"
    fixes: list[str] = field(default_factory=list)  # the pinned release's, which the candidate no longer has
    malware_checked: bool = False
    not_screened: str | None = None  # why a check could not run (OSV or the registry did not answer)

    def as_json(self) -> dict[str, Any]:
        return {
            "published": self.published,
            "held_until": self.held_until,
            "refused": self.refused,
            "findings": self.findings,
            "vulnerabilities": self.vulnerabilities,
            "fixes": self.fixes,
            "malware_checked": self.malware_checked,
            "not_screened": self.not_screened,
        }


def _instant(iso: str) -> datetime:
    t = datetime.fromisoformat(iso.replace("Z", "+00:00"))
    return t if t.tzinfo else t.replace(tzinfo=UTC)


def _day(t: datetime) -> str:
    return t.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def _npm(row: Row, sc: Screened, environ: Mapping[str, str] | None) -> None:
    from mcplock.packages.registries import npm_document

    doc = npm_document(row.package or "", environ)
    versions = doc.get("versions") or {}
    cand = versions.get(row.latest) or {}
    cur = versions.get(row.current) or {} if row.current else {}
    t = (doc.get("time") or {}).get(row.latest)
    sc.published = t if isinstance(t, str) else None
    if isinstance(cand.get("deprecated"), str) and cand["deprecated"]:
        sc.refused = f"npm marks {row.package}@{row.latest} deprecated: {cand['deprecated']}"
    new, old = cand.get("scripts") or {}, cur.get("scripts") or {}
    for k in LIFECYCLE:
        if isinstance(new.get(k), str) and new.get(k) != old.get(k):
            how = "changes" if k in old else "adds" if row.current else "has"
            sc.findings.append(
                {
                    "severity": "high",
                    "rule": "install-script",
                    "message": f"{row.latest} {how} the `{k}` script, which npm runs on install",
                    "text": new[k],
                }
            )
    if cand.get("hasInstallScript") and not cur.get("hasInstallScript") and not any(k in new for k in LIFECYCLE):
        sc.findings.append(
            {
                "severity": "high",
                "rule": "install-script",
                "message": f"{row.latest} now runs a build on install (npm's hasInstallScript: a binding.gyp)",
                "text": "",
            }
        )


def _is_wheel(f: Any) -> bool:
    return isinstance(f, dict) and str(f.get("filename", "")).endswith(".whl")


def _pypi(row: Row, sc: Screened, environ: Mapping[str, str] | None) -> None:
    from mcplock.packages.registries import pypi_project

    releases = pypi_project(row.package or "", environ).get("releases") or {}
    files = [f for f in releases.get(row.latest) or [] if isinstance(f, dict)]
    cur = [f for f in releases.get(row.current) or [] if isinstance(f, dict)] if row.current else []
    times = sorted(str(f["upload_time_iso_8601"]) for f in files if f.get("upload_time_iso_8601"))
    sc.published = times[0] if times else None
    if files and all(f.get("yanked") for f in files):
        reason = next((str(f["yanked_reason"]) for f in files if f.get("yanked_reason")), "no reason given")
        sc.refused = f"PyPI marks {row.package} {row.latest} yanked: {reason}"
    if files and not any(_is_wheel(f) for f in files) and any(_is_wheel(f) for f in cur):
        sc.findings.append(
            {
                "severity": "high",
                "rule": "sdist-only",
                "message": f"{row.latest} ships only a source distribution where {row.current} had wheels: "
                "installing it runs its build code",
                "text": ", ".join(str(f.get("filename")) for f in files),
            }
        )


def _age(sc: Screened, min_age: float, now: datetime) -> None:
    if sc.published is None or min_age <= 0:
        return
    try:
        ready = _instant(sc.published) + timedelta(days=min_age)
    except ValueError:
        return
    if ready > now:
        sc.held_until = _day(ready)


def _advisories(rows: list[Row], environ: Mapping[str, str] | None) -> None:
    """Ask OSV about each candidate and its pinned release in one lookup; malware refuses."""
    from mcplock.packages.advisories import Release, ecosystem_of, lookup

    asked: list[tuple[Row, Release, Release | None]] = []
    for r in rows:
        eco = ecosystem_of(r.registry or "")
        if eco is None or not r.package or not r.latest:
            continue
        asked.append((r, Release(eco, r.package, r.latest), Release(eco, r.package, r.current) if r.current else None))
    if not asked:
        return
    releases = [x for _, cand, cur in asked for x in (cand, cur) if x is not None]
    answers = {a.release: a for a in lookup(releases, environ=environ)}
    for r, cand, cur in asked:
        _advised(r, answers.get(cand), answers.get(cur) if cur else None)


def _advised(r: Row, cand: Any, cur: Any) -> None:
    sc = r.screen
    assert sc is not None
    if cand is None or cand.unknown:
        why = cand.reason if cand is not None else "no answer"
        sc.not_screened = f"malware and vulnerabilities not checked: OSV did not answer ({why})"
        return
    sc.malware_checked = True
    if cand.malware:
        ids = ", ".join(a.id for a in cand.malware)
        sc.refused = f"OSV reports {r.package} {r.latest} as malware ({ids}): never proposed"
    sc.vulnerabilities = [f"{a.id} ({a.severity or 'severity unknown'})" for a in cand.vulnerabilities]
    if cur is not None and not cur.unknown:
        still = {a.id for a in cand.vulnerabilities}
        sc.fixes = [f"{a.id} ({a.severity or 'severity unknown'})" for a in cur.vulnerabilities if a.id not in still]


def screen_rows(
    rows: list[Row], min_age: float, environ: Mapping[str, str] | None = None, now: datetime | None = None
) -> None:
    """Screen the release of every row behind (npm, PyPI): each row's ``screen``, and its status
    ``held`` (too young) or ``refused`` (deprecated, yanked, malware) when it is not proposed."""
    from mcplock.errors import McplockError

    now = now or datetime.now(UTC)
    todo = [r for r in rows if r.status in ("behind", "unpinned") and r.registry in ("npm", "pypi") and r.latest]
    for r in todo:
        r.screen = Screened()
        try:
            (_npm if r.registry == "npm" else _pypi)(r, r.screen, environ)
        except McplockError as e:
            r.screen.not_screened = f"the registry's metadata could not be read: {e.message}"
        _age(r.screen, min_age, now)
    _advisories(todo, environ)
    for r in todo:
        assert r.screen is not None
        if r.screen.refused:
            r.status = "refused"
        elif r.screen.held_until:
            r.status = "held"
