"""Lint family: package names that look like a well-known MCP package's, checked before
anything is installed (``lookalike-package``, high).

``@modeicontextprotocol/server-memory`` (an ``i`` for the ``l``), ``@modeIcontextprotocol/…``
(a capital ``I``), ``@modelcontextprotoco1/…``, a Cyrillic ``о`` in ``mcp-server-time``: one
character away from a package people trust, or the same once confusable characters are read
as what they imitate. Impersonation packages of exactly this kind have been found on npm. The
reference names are the MCP reference servers and SDK packages, and for a server added by its
MCP Registry name, the entry's own namespace (``io.github.OWNER/…`` names the npm scope
``@OWNER``). A name that *is* a reference name is never flagged.
"""

from __future__ import annotations

import re

from mcplock.lint.finding import LintFinding
from mcplock.model.severity import HIGH

WELL_KNOWN: dict[str, tuple[str, ...]] = {
    "npm": (
        "@modelcontextprotocol/sdk",
        "@modelcontextprotocol/inspector",
        "@modelcontextprotocol/server-everything",
        "@modelcontextprotocol/server-filesystem",
        "@modelcontextprotocol/server-memory",
        "@modelcontextprotocol/server-sequential-thinking",
        "@modelcontextprotocol/server-github",
        "@modelcontextprotocol/server-gitlab",
        "@modelcontextprotocol/server-postgres",
        "@modelcontextprotocol/server-puppeteer",
        "@modelcontextprotocol/server-brave-search",
        "@modelcontextprotocol/server-google-maps",
        "@modelcontextprotocol/server-slack",
        "@modelcontextprotocol/server-redis",
        "@modelcontextprotocol/server-gdrive",
        "@modelcontextprotocol/server-everart",
        "@modelcontextprotocol/server-aws-kb-retrieval",
        "@playwright/mcp",
        "@upstash/context7-mcp",
        "@notionhq/notion-mcp-server",
        "@stripe/mcp",
        "@supabase/mcp-server-supabase",
        "@sentry/mcp-server",
        "@cloudflare/mcp-server-cloudflare",
        "mcp-remote",
        "firecrawl-mcp",
        "postmark-mcp",
    ),
    "pypi": (
        "mcp",
        "fastmcp",
        "mcp-server-time",
        "mcp-server-git",
        "mcp-server-fetch",
        "mcp-server-sqlite",
        "mcp-server-sentry",
        "mcp-proxy",
        "awslabs.core-mcp-server",
    ),
    "oci": (
        "mcp/time",
        "mcp/fetch",
        "mcp/git",
        "mcp/filesystem",
        "mcp/memory",
        "mcp/everything",
        "ghcr.io/github/github-mcp-server",
    ),
}
# ASCII look-alikes read as the letter they imitate (after case folding)
_ASCII = (("rn", "m"), ("vv", "w"), ("cl", "d"), ("0", "o"), ("1", "l"), ("i", "l"), ("|", "l"))


def _fold(name: str) -> str:
    """``name`` as a reader sees it: Unicode confusables as their ASCII look-alikes, case folded,
    the ASCII look-alikes above merged."""

    t = name if name.isascii() else (_reading_keep_punct(name) or name)
    t = t.lower()
    for a, b in _ASCII:
        t = t.replace(a, b)
    return t


def _reading_keep_punct(name: str) -> str | None:
    """lint.names.reading per segment (it drops separators): keep ``@``, ``/``, ``-``, ``.``."""
    from mcplock.lint.names import reading

    parts = re.split(r"([@/\-._])", name)
    out = []
    for p in parts:
        if not p or re.fullmatch(r"[@/\-._]", p):
            out.append(p)
            continue
        r = reading(p)
        if r is None:
            return None
        out.append(r)
    return "".join(out)


def _substitution_or_swap(a: str, b: str) -> bool:
    """``a`` and ``b`` (of one length) differ in one character, or by a swap of two neighbours."""
    diff = [i for i in range(len(a)) if a[i] != b[i]]
    return len(diff) == 1 or (len(diff) == 2 and _swapped_neighbours(a, b, *diff))


def _swapped_neighbours(a: str, b: str, i: int, j: int) -> bool:
    """Positions ``i`` < ``j`` are neighbours whose characters ``a`` and ``b`` hold swapped."""
    return j == i + 1 and a[i] == b[j] and a[j] == b[i]


def one_edit(a: str, b: str) -> bool:
    """Exactly one insertion, deletion, substitution or swap of neighbours apart."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        return _substitution_or_swap(a, b)
    return _one_insertion(*sorted((a, b), key=len))


def _one_insertion(short: str, long_: str) -> bool:
    """``long_`` is ``short`` (one character shorter) with one character inserted."""
    i = 0
    while i < len(short) and short[i] == long_[i]:
        i += 1
    return short[i:] == long_[i + 1 :]


def references(registry: str, registry_name: str | None = None) -> list[str]:
    """The names a package of ``registry`` must not imitate; with the MCP Registry entry it was
    added by, that entry's npm scope (``io.github.OWNER/…`` -> ``@OWNER``) too."""
    refs = list(WELL_KNOWN.get(registry, ()))
    if registry_name and registry == "npm":
        owner = registry_name.split("/", 1)[0].rsplit(".", 1)[-1]
        refs.append(f"@{owner.lower()}/")
    return refs


def _scope(name: str) -> str | None:
    return name.split("/", 1)[0] + "/" if name.startswith("@") and "/" in name else None


def _reference_scope(ref: str) -> str | None:
    """The scope a reference stands for: ``@OWNER/`` itself, a scoped package's scope, else None."""
    return ref if ref.endswith("/") else _scope(ref)


def _close(got: str, want: str) -> bool:
    """The same once folded, or one edit apart (for names long enough that one edit is rare)."""
    return got == want or (len(want) >= 7 and one_edit(got, want))


def _imitated(ref: str, name: str, scope: str | None) -> str | None:
    """What ``name`` (in ``scope``) looks like when it imitates the reference ``ref``, else None: a
    scoped reference's scope must not be imitated by the name's, any other reference by the name."""
    want = _reference_scope(ref)
    if want is None:
        return ref if _close(_fold(name), _fold(ref)) else None
    hit = scope is not None and _close(_fold(scope), _fold(want))
    return f"{want}{name.split('/', 1)[1]}" if hit else None


def _owned(name: str, scope: str | None, refs: list[str]) -> bool:
    """``name`` is a reference name, or sits in a reference scope (only its owner publishes there)."""
    scopes = {_reference_scope(r) for r in refs} - {None}
    return name in refs or (scope is not None and scope in scopes)


def _first_imitated(refs: list[str], name: str, scope: str | None) -> str | None:
    """What ``name`` looks like for the first reference it imitates, else None."""
    for ref in refs:
        shown = _imitated(ref, name, scope)
        if shown is not None:
            return shown
    return None


def lookalike(registry: str, name: str, registry_name: str | None = None) -> LintFinding | None:
    """A ``lookalike-package`` finding when ``name`` imitates a reference name, else None. A
    package in a reference scope is the scope owner's own (only they can publish there)."""
    refs = references(registry, registry_name)
    scope = _scope(name)
    if _owned(name, scope, refs):
        return None
    shown = _first_imitated(refs, name, scope)
    if shown is None:
        return None
    return LintFinding(
        "lookalike-package",
        HIGH,
        f"{registry} package `{_escaped(name)}` looks like `{shown}` (confusable "
        "characters, or one character away): look-alikes of well-known packages are how "
        "impersonation packages spread; check who publishes it before trusting it",
        "package",
    )


_LAUNCHERS = ("npx", "pnpx", "bunx", "uvx")


def named_package(command: str | None, args: tuple[str, ...] | list[str]) -> tuple[str, str] | None:
    """(registry, package) a command line names, read loosely: the launchers' parser
    (mcplock.packages.launchers) refuses names it cannot pin (``@modeIcontextprotocol/…`` has a
    capital letter), but such a command still runs, so its name is checked too."""
    import os

    from mcplock.packages.command_line import parse
    from mcplock.packages.launchers import Launch

    got = parse(command, args)
    if isinstance(got, Launch):
        return got.registry, got.name
    base = os.path.basename(command or "")
    rest = _launcher_arguments(base, list(args))
    token = _package_argument(rest) if rest is not None else None
    return _launched_package(base, token) if token is not None else None


def _launcher_arguments(base: str, args: list[str]) -> list[str] | None:
    """The arguments a package launcher (``base``) reads its package from; None for a command
    that launches no package (``pnpm`` launches one with ``dlx``)."""
    if base == "pnpm" and args[:1] == ["dlx"]:
        return args[1:]
    return args if base in _LAUNCHERS else None


def _launched_package(base: str, token: str) -> tuple[str, str]:
    """(registry, package) of the launcher ``base``'s package argument, its version dropped."""
    if base == "uvx":
        return "pypi", re.split(r"[=<>!~\[@ ]", token, maxsplit=1)[0]
    at = token.find("@", 1)
    return "npm", token[:at] if at > 0 else token


def _package_argument(args: list[str]) -> str | None:
    """The package a launcher's arguments name: a ``-p``/``--package``/``--from`` value, else the
    first argument that is not an option."""
    for i, a in enumerate(args):
        if a in ("-p", "--package", "--from") and i + 1 < len(args):
            return args[i + 1]
        if a.startswith(("--package=", "--from=")):
            return a.split("=", 1)[1]
        if not a.startswith("-"):
            return a
    return None


def _escaped(name: str) -> str:
    return "".join(c if c.isascii() and c.isprintable() else f"\\u{ord(c):04x}" for c in name)
