"""What OSV (osv.dev) reports about exact package releases: malware first, then vulnerabilities
with a severity and the versions that fix them (docs/advisories.md).

The interface, all of it::

    from mcplock.packages.advisories import Release, lookup, ecosystem_of

    answers = lookup([Release("npm", "postmark-mcp", "1.0.16")])   # one Answer per release, in order
    a = answers[0]
    a.unknown            # True: OSV did not answer for it (a.reason says why): never read as "none"
    a.malware            # the MAL- records (tuple of Advisory), empty when none
    a.vulnerabilities    # the other records, most severe first
    a.worst              # "malware", a severity name, "unknown" or None (no advisory)
    ecosystem_of("pypi") # the OSV ecosystem of a pin's registry ("PyPI"), None when OSV has none

An :class:`Advisory` holds ``id``, ``malware``, ``summary``, ``severity`` (a mcplock severity, or
None when the record gives none mcplock can read), ``score`` (the CVSS base score it came from),
``fixed`` (the versions that fix it), ``aliases`` and ``url``. Every string in it came from OSV and
is already made printable and bounded (:func:`mcplock.text.untrusted.sanitize`); Markdown and HTML
still escape their own characters.

How it asks: ``POST {base}/v1/querybatch`` with the releases (a page token is followed where OSV
returns one), then ``GET {base}/v1/vulns/{id}`` for each distinct record. Only ecosystems, names
and versions leave the machine: no path, argument, environment value or header of a server. The
base URL is ``MCPLOCK_OSV_URL`` (default https://api.osv.dev). Every answer is bounded (body size,
ids, pages); an answer that is not OSV's shape makes the releases it concerns *unknown*, never clean.
:func:`lookup` never raises for OSV's failures: they are answers.

Severity: a record's CVSS vector (v4 first, then v3, then v2), scored with the maintained ``cvss``
library, mapped as CVSS's own rating (9.0 critical, 7.0 high, 4.0 medium, above 0 low, 0 info);
without a vector it reads, GitHub's ``database_specific.severity`` (MODERATE: medium); else None.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from mcplock.model.severity import CRITICAL, HIGH, INFO, LOW, MEDIUM, Severity, rank
from mcplock.text.untrusted import sanitize

DEFAULT_URL = "https://api.osv.dev"
ENV_URL = "MCPLOCK_OSV_URL"
TIMEOUT = 20.0
MiB = 1024 * 1024
MAX_BATCH = 1000  # OSV's own limit on queries in one querybatch
MAX_BATCH_BODY = 8 * MiB  # a querybatch answer holds ids only: 1,000 releases × hundreds of ids fit
MAX_RECORD_BODY = 2 * MiB  # the largest OSV records (Linux kernel CVEs) are a few hundred KiB
MAX_IDS = 500  # per release; more is an answer mcplock does not trust
MAX_PAGES = 10  # per release
MAX_RECORDS = 2000  # distinct records fetched in one lookup
WORKERS = 8

#: a pin's registry → OSV's ecosystem name (https://ossf.github.io/osv-schema/#affectedpackage-field)
_ECOSYSTEMS = {"npm": "npm", "pypi": "PyPI", "crates": "crates.io", "cargo": "crates.io", "go": "Go", "nuget": "NuGet"}
_ID = re.compile(r"[A-Za-z][A-Za-z0-9._:-]{0,99}")


def ecosystem_of(registry: str) -> str | None:
    """OSV's ecosystem for a pin's or a launch's registry; None where OSV has none (OCI images,
    MCPB bundles): such a release cannot be asked about."""
    return _ECOSYSTEMS.get(registry.lower())


def base_url(environ: Mapping[str, str] | None = None) -> str:
    env = os.environ if environ is None else environ
    return (env.get(ENV_URL) or DEFAULT_URL).rstrip("/")


@dataclass(frozen=True)
class Release:
    ecosystem: str  # OSV's name: "npm", "PyPI", …
    name: str
    version: str

    @property
    def label(self) -> str:
        return f"{self.name}=={self.version}" if self.ecosystem == "PyPI" else f"{self.name}@{self.version}"


@dataclass(frozen=True)
class Advisory:
    id: str
    malware: bool
    summary: str
    severity: Severity | None  # None: the record gives no severity mcplock can read
    score: float | None = None  # the CVSS base score the severity came from
    fixed: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    url: str = ""

    def stored(self) -> dict[str, Any]:
        """The JSON form (reports)."""
        return {
            "id": self.id,
            "kind": "malware" if self.malware else "vulnerability",
            "summary": self.summary,
            "severity": "critical" if self.malware else self.severity,
            "score": self.score,
            "fixed": list(self.fixed),
            "aliases": list(self.aliases),
            "url": self.url,
        }


@dataclass(frozen=True)
class Answer:
    release: Release
    advisories: tuple[Advisory, ...] | None  # None: unknown (OSV did not answer for this release)
    reason: str | None = None  # why unknown

    @property
    def unknown(self) -> bool:
        return self.advisories is None

    @property
    def malware(self) -> tuple[Advisory, ...]:
        return tuple(a for a in self.advisories or () if a.malware)

    @property
    def vulnerabilities(self) -> tuple[Advisory, ...]:
        return tuple(a for a in self.advisories or () if not a.malware)

    @property
    def worst(self) -> str | None:
        """``malware``, the most severe vulnerability's severity (``unknown-severity`` when it has
        none), ``unknown`` (no answer) or None (no advisory)."""
        if self.advisories is None:
            return "unknown"
        if self.malware:
            return "malware"
        if not self.advisories:
            return None
        top = self.advisories[0].severity
        return top if top is not None else "unknown-severity"


class _Failed(Exception):
    """OSV did not answer usefully: the text says how (it becomes an Answer's reason)."""


@dataclass
class _Client:
    base: str
    timeout: float
    client: Any = field(default=None)

    def request(self, method: str, path: str, body: object | None, limit: int) -> Any:
        import httpx2

        url = self.base + path
        try:
            with self.client.stream(
                method,
                url,
                content=None if body is None else json.dumps(body).encode(),
                headers={"Content-Type": "application/json"} if body is not None else {},
                timeout=self.timeout,
                follow_redirects=False,
            ) as r:
                if r.status_code != 200:
                    raise _Failed(f"OSV answered HTTP {r.status_code} for {path}")
                too_big = f"OSV's answer for {path} is larger than {limit // MiB} MiB, the most mcplock reads"
                declared = r.headers.get("content-length")
                if declared is not None and declared.isdigit() and int(declared) > limit:
                    raise _Failed(too_big)
                buf = bytearray()
                for chunk in r.iter_bytes():
                    buf.extend(chunk)
                    if len(buf) > limit:
                        raise _Failed(too_big)
        except httpx2.HTTPError as e:
            raise _Failed(f"cannot reach OSV at {self.base} ({type(e).__name__})") from None
        try:
            return json.loads(bytes(buf))
        except (ValueError, RecursionError):
            raise _Failed(f"OSV's answer for {path} is not JSON") from None


def lookup(
    releases: Iterable[Release], *, url: str | None = None, environ: Mapping[str, str] | None = None
) -> list[Answer]:
    """One :class:`Answer` per release (same order; duplicates answered alike). Never raises for
    an OSV that is down, slow, too large or wrong: the releases concerned are *unknown*."""
    import httpx2

    wanted = list(releases)
    distinct = list(dict.fromkeys(wanted))
    if not distinct:
        return []
    api = _Client(url.rstrip("/") if url else base_url(environ), TIMEOUT)
    ids: dict[Release, list[str] | str] = {}  # a str: why unknown
    with httpx2.Client(headers={"User-Agent": _agent()}) as client:  # proxies and CA bundles as the registries
        api.client = client
        for start in range(0, len(distinct), MAX_BATCH):
            ids.update(_ids(api, distinct[start : start + MAX_BATCH]))
        records = _records(api, {i for got in ids.values() if isinstance(got, list) for i in got})
    by_release: dict[Release, Answer] = {}
    for rel in distinct:
        got = ids[rel]
        if isinstance(got, str):
            by_release[rel] = Answer(rel, None, got)
            continue
        missing = [i for i in got if isinstance(records.get(i), str)]
        if missing:
            by_release[rel] = Answer(rel, None, str(records[missing[0]]))
            continue
        advisories = [_advisory(i, records[i], rel) for i in got]  # type: ignore[arg-type]
        advisories.sort(key=lambda a: (not a.malware, rank(a.severity) if a.severity else 5, -(a.score or 0), a.id))
        by_release[rel] = Answer(rel, tuple(advisories))
    return [by_release[r] for r in wanted]


def _agent() -> str:
    from mcplock._version import __version__

    return f"mcplock/{__version__}"


def _ids(api: _Client, batch: Sequence[Release]) -> dict[Release, list[str] | str]:
    """Each release's advisory ids (every page), or why OSV gave none."""
    out: dict[Release, list[str] | str] = {r: [] for r in batch}
    pending: list[tuple[Release, str | None]] = [(r, None) for r in batch]
    for _ in range(MAX_PAGES):
        if not pending:
            break
        queries = [_query(r, token) for r, token in pending]
        try:
            doc = api.request("POST", "/v1/querybatch", {"queries": queries}, MAX_BATCH_BODY)
            results = doc.get("results") if isinstance(doc, dict) else None
            if not isinstance(results, list) or len(results) != len(pending):
                raise _Failed("OSV's querybatch answer is not OSV's shape (one result per query)")
        except _Failed as e:
            for r, _token in pending:
                out[r] = str(e)
            return out
        again: list[tuple[Release, str | None]] = []
        for (rel, _token), result in zip(pending, results, strict=True):
            got = out[rel]
            if isinstance(got, str):
                continue
            try:
                more, token = _result_ids(result)
            except _Failed as e:
                out[rel] = str(e)
                continue
            got.extend(i for i in more if i not in got)
            if len(got) > MAX_IDS:
                out[rel] = f"OSV listed more than {MAX_IDS} advisories for one release"
            elif token:
                again.append((rel, token))
        pending = again
    for rel, _token in pending:
        out[rel] = f"OSV kept paging past {MAX_PAGES} pages for one release"
    return out


def _query(rel: Release, token: str | None) -> dict[str, Any]:
    q: dict[str, Any] = {"package": {"ecosystem": rel.ecosystem, "name": rel.name}, "version": rel.version}
    if token:
        q["page_token"] = token
    return q


def _result_ids(result: object) -> tuple[list[str], str | None]:
    if not isinstance(result, dict):
        raise _Failed("OSV's querybatch answer is not OSV's shape (a result is not an object)")
    vulns = result.get("vulns", [])
    token = result.get("next_page_token")
    if not isinstance(vulns, list) or (token is not None and not isinstance(token, str)):
        raise _Failed("OSV's querybatch answer is not OSV's shape (vulns)")
    ids: list[str] = []
    for v in vulns:
        vid = v.get("id") if isinstance(v, dict) else None
        if not isinstance(vid, str) or not _ID.fullmatch(vid):
            raise _Failed(f"OSV's querybatch answer names an advisory id that is not one: {sanitize(vid, 60)}")
        ids.append(vid)
    return ids, token or None


def _records(api: _Client, ids: set[str]) -> dict[str, dict[str, Any] | str]:
    """Each record by id, or why it could not be read."""
    if len(ids) > MAX_RECORDS:
        return {i: f"OSV listed more than {MAX_RECORDS} distinct advisories" for i in ids}

    def one(vid: str) -> tuple[str, dict[str, Any] | str]:
        try:
            doc = api.request("GET", f"/v1/vulns/{vid}", None, MAX_RECORD_BODY)
        except _Failed as e:
            return vid, str(e)
        if not isinstance(doc, dict) or doc.get("id") != vid:
            return vid, f"OSV's record {vid} is not OSV's shape"
        return vid, doc

    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        return dict(pool.map(one, sorted(ids)))


def _advisory(vid: str, rec: dict[str, Any], rel: Release) -> Advisory:
    aliases = tuple(sanitize(a, 100) for a in _strings(rec.get("aliases"))[:20])
    malware = vid.startswith("MAL-") or any(a.startswith("MAL-") for a in aliases)
    summary = rec.get("summary") if isinstance(rec.get("summary"), str) else None
    if not summary:
        details = rec.get("details") if isinstance(rec.get("details"), str) else ""
        summary = str(details).strip().split("\n", 1)[0] if details else ""
    severity, score = (CRITICAL, None) if malware else _severity(rec)
    return Advisory(
        id=vid,
        malware=malware,
        summary=sanitize(summary, 300),
        severity=severity,
        score=score,
        fixed=_fixed(rec, rel),
        aliases=aliases,
        url=f"https://osv.dev/vulnerability/{vid}",
    )


def _strings(value: object) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _fixed(rec: dict[str, Any], rel: Release) -> tuple[str, ...]:
    """The ``fixed`` versions of the record's ranges for this package (in the record's order)."""
    out: list[str] = []
    affected = rec.get("affected")
    for a in affected if isinstance(affected, list) else ():
        pkg = a.get("package") if isinstance(a, dict) else None
        if not isinstance(pkg, dict) or not _same_package(pkg, rel):
            continue
        ranges = a.get("ranges")
        for r in ranges if isinstance(ranges, list) else ():
            events = r.get("events") if isinstance(r, dict) else None
            for e in events if isinstance(events, list) else ():
                fixed = e.get("fixed") if isinstance(e, dict) else None
                if isinstance(fixed, str) and sanitize(fixed, 80) not in out:
                    out.append(sanitize(fixed, 80))
    return tuple(out[:20])


def _same_package(pkg: dict[str, Any], rel: Release) -> bool:
    name, eco = pkg.get("name"), pkg.get("ecosystem")
    if not isinstance(name, str) or not isinstance(eco, str) or eco.split(":")[0] != rel.ecosystem:
        return False
    if rel.ecosystem == "PyPI":  # PEP 503 normalisation
        return re.sub(r"[-_.]+", "-", name).lower() == re.sub(r"[-_.]+", "-", rel.name).lower()
    return name == rel.name


_GITHUB = {"CRITICAL": CRITICAL, "HIGH": HIGH, "MODERATE": MEDIUM, "MEDIUM": MEDIUM, "LOW": LOW}


def _severity(rec: dict[str, Any]) -> tuple[Severity | None, float | None]:
    listed = rec.get("severity")
    vectors = {
        s.get("type"): s.get("score")
        for s in (listed if isinstance(listed, list) else ())
        if isinstance(s, dict) and isinstance(s.get("score"), str)
    }
    for kind in ("CVSS_V4", "CVSS_V3", "CVSS_V2"):
        vector = vectors.get(kind)
        if isinstance(vector, str):
            score = _score(kind, vector)
            if score is not None:
                return from_score(score), score
    db = rec.get("database_specific")
    word = db.get("severity") if isinstance(db, dict) else None
    return (_GITHUB.get(word.upper()) if isinstance(word, str) else None), None


def _score(kind: str, vector: str) -> float | None:
    """The CVSS base score of a vector; None when the library does not read it."""
    import cvss

    try:
        if kind == "CVSS_V4":
            return float(cvss.CVSS4(vector[:300]).base_score)
        if kind == "CVSS_V3":
            return float(cvss.CVSS3(vector[:300]).scores()[0])
        return float(cvss.CVSS2(vector[:300]).scores()[0])
    except (cvss.CVSSError, ValueError, KeyError, IndexError, TypeError, ArithmeticError):
        return None


def from_score(score: float) -> Severity:
    """CVSS's qualitative rating (v3.1 §5, v4.0 §6) in mcplock's names."""
    if score >= 9.0:
        return CRITICAL
    if score >= 7.0:
        return HIGH
    if score >= 4.0:
        return MEDIUM
    return LOW if score > 0 else INFO
