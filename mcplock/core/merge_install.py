"""The merge driver installed in a repository (docs/merging.md): the ``merge`` attribute for the
lock in ``.gitattributes`` (a path quoted as git reads it) and the ``merge.mcplock.*`` git config
that names this mcplock; whether it is installed, and the warnings ``check`` gives when a merge
would not use it (not installed, or another attribute overriding it). Running the driver and
resolving what it leaves is :mod:`mcplock.core.merge_driver`."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from mcplock.errors import McplockError, UsageError
from mcplock.model.files import work_tree

if TYPE_CHECKING:
    import subprocess

    from mcplock.core.check import Finding


DRIVER = "mcplock"


DRIVER_NAME = "mcplock: merge mcp.lock as data (mcplock merge-driver install)"


def own_command() -> str:
    """The running mcplock as a shell command: ``mcplock`` when that is what PATH finds, else its
    absolute path, else this Python running the module (``python -m mcplock``)."""
    import shlex
    import shutil

    argv0 = sys.argv[0] if sys.argv else ""
    if os.path.basename(argv0) == "mcplock" and os.path.isfile(argv0):
        script = os.path.realpath(argv0)
        found = shutil.which("mcplock")
        if found and os.path.realpath(found) == script:
            return "mcplock"
        return shlex.quote(os.path.abspath(argv0))
    return f"{shlex.quote(sys.executable)} -m mcplock"


def _git(args: list[str], cwd: str) -> subprocess.CompletedProcess[str]:
    import subprocess  # not at import: `check` reads this module for its warnings, and never runs git

    try:
        return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)
    except FileNotFoundError:
        raise UsageError(
            "git is not installed (or not on PATH)", hint="install git, then run the command again", code="no-git"
        ) from None


def repo_top(directory: str) -> str:
    """The top of the git work tree holding ``directory``."""
    proc = _git(["rev-parse", "--show-toplevel"], directory)
    if proc.returncode != 0:
        raise UsageError(
            f"{directory} is not inside a git repository",
            hint="run it inside the clone that holds the lock (or `git init` first)",
            code="no-repo",
        )
    return proc.stdout.strip()


@dataclass
class Installed:
    attributes: str  # the .gitattributes file
    attributes_added: bool
    driver: str  # the command git runs
    config_changed: bool
    lines: list[str] = field(default_factory=list)  # the attribute lines added


def attribute_pattern(name: str) -> str:
    """``name`` as a gitattributes pattern that matches that file name alone: glob characters
    (``*?[\\``) escaped, and the pattern C-quoted (``"my lock.toml"``) when it holds whitespace,
    a quote, a backslash or a control character, or starts with ``#`` or ``!`` (gitattributes(5):
    "Patterns that begin with a double quote are quoted in C style")."""
    glob = _escape_glob(name)
    if glob == name and _plain_pattern(name):
        return name
    return '"' + "".join(_c_escape(c) for c in glob) + '"'


def _escape_glob(name: str) -> str:
    """``name`` with its glob characters (``*?[\\``) and a leading ``!`` backslash-escaped."""
    return "".join("\\" + c if c in "*?[\\" or (c == "!" and i == 0) else c for i, c in enumerate(name))


def _plain_pattern(name: str) -> bool:
    """Whether ``name`` can stand unquoted in .gitattributes: printable, no whitespace or
    quote, not starting as a comment (``#``) or a negation (``!``)."""
    return name.isprintable() and not any(c.isspace() or c == '"' for c in name) and not name.startswith(("#", "!"))


_C_ESCAPES = {"\\": "\\\\", '"': '\\"', "\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _c_escape(c: str) -> str:
    """One character of a C-quoted pattern: its C escape, octal for another control character."""
    if c in _C_ESCAPES:
        return _C_ESCAPES[c]
    return f"\\{ord(c):03o}" if ord(c) < 0x20 or ord(c) == 0x7F else c


def attribute_line(lock_path: str) -> str:
    return f"{attribute_pattern(os.path.basename(lock_path))} merge={DRIVER}"


def attribute_lines(lock_path: str) -> list[str]:
    """The lock's line and its export record's (``mcp.lock.exports.json``, merged as data too)."""
    from mcplock.core.export_record import record_path

    return [attribute_line(lock_path), attribute_line(record_path(lock_path))]


def has_attribute(text: str, lock_path: str) -> bool:
    return _has_pattern(text, attribute_pattern(os.path.basename(lock_path)))


def _has_pattern(text: str, want: str) -> bool:
    for line in text.splitlines():
        if not line.startswith(want) or not line[len(want) :][:1].isspace():
            continue
        if f"merge={DRIVER}" in line[len(want) :].split():
            return True
    return False


def _git_dir(top: str) -> str | None:
    p = os.path.join(top, ".git")
    if os.path.isdir(p):
        return p
    try:  # a worktree or submodule: `gitdir: PATH`
        with open(p, encoding="utf-8") as f:
            line = f.readline().strip()
    except OSError:
        return None
    if not line.startswith("gitdir:"):
        return None
    d = line[len("gitdir:") :].strip()
    return d if os.path.isabs(d) else os.path.join(top, d)


def merge_warnings(lock_path: str) -> list[Finding]:
    """``check``'s warning when git would not run the installed driver on the lock."""
    from mcplock.core.check import Finding

    found = override_warning(lock_path)
    return [Finding("merge-driver-overridden", "", *found)] if found else []


def override_warning(lock_path: str) -> tuple[str, str] | None:
    """(message, hint) when the repository installed the driver for the lock (the top
    ``.gitattributes`` line) but git would not run it on this lock: a ``.gitattributes`` of a
    sub-directory, or ``.git/info/attributes``, sets the lock's ``merge`` attribute otherwise.
    Files only, unless such a file exists; then git itself is asked (``git check-attr``)."""
    directory = os.path.dirname(os.path.abspath(lock_path))
    top = work_tree(directory)
    if top is None or not _top_sets_driver(top, lock_path):
        return None
    others = _other_attributes(top, directory)
    if not others:
        return None
    value = _merge_attribute(top, lock_path)
    if value is None or value == DRIVER:
        return None
    import shlex

    shown = ", ".join(os.path.relpath(p, top) for p in others)
    return (
        f"git does not merge {os.path.basename(lock_path)} with mcplock's driver: its `merge` attribute reads "
        f"`{value}`, though {os.path.join(top, '.gitattributes')} sets merge={DRIVER} (overridden by {shown})",
        f"remove the `merge` setting for the lock from {shown}, then `git check-attr merge -- "
        f"{shlex.quote(os.path.relpath(os.path.abspath(lock_path), top))}` says {DRIVER}",
    )


def _top_sets_driver(top: str, lock_path: str) -> bool:
    """Whether the top ``.gitattributes`` holds the lock's attribute line (unreadable: no)."""
    from mcplock.model.files import SMALL_MAX, read_bounded

    try:
        return has_attribute(read_bounded(os.path.join(top, ".gitattributes"), SMALL_MAX).decode("utf-8"), lock_path)
    except (OSError, UnicodeDecodeError):
        return False


def _other_attributes(top: str, directory: str) -> list[str]:
    """The attribute files that may set the lock's attributes otherwise: a ``.gitattributes``
    of each directory from the lock's up to (not including) the top, ``.git/info/attributes``."""
    others: list[str] = []
    d = directory
    while len(d) > len(top):
        if os.path.isfile(os.path.join(d, ".gitattributes")):
            others.append(os.path.join(d, ".gitattributes"))
        d = os.path.dirname(d)
    git_dir = _git_dir(top)
    info = os.path.join(git_dir, "info", "attributes") if git_dir else None
    if info and os.path.isfile(info):
        others.append(info)
    return others


def _merge_attribute(top: str, lock_path: str) -> str | None:
    """The lock's ``merge`` attribute as git reads it (``git check-attr``); None: git could not say."""
    proc = _git(["check-attr", "-z", "merge", "--", os.path.relpath(os.path.abspath(lock_path), top)], top)
    fields = proc.stdout.split("\0")
    if proc.returncode != 0 or len(fields) < 3:
        return None
    return fields[2]


def installed(lock_path: str) -> bool:
    """Whether the repository holding ``lock_path`` has the driver (attribute and config)."""
    directory = os.path.dirname(os.path.abspath(lock_path))
    try:
        top = repo_top(directory)
    except UsageError:
        return False
    from mcplock.model.files import SMALL_MAX, read_bounded

    try:
        text = read_bounded(os.path.join(top, ".gitattributes"), SMALL_MAX).decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    from mcplock.core.export_record import record_path

    return (
        has_attribute(text, lock_path)
        and has_attribute(text, record_path(lock_path))
        and bool(_git(["config", f"merge.{DRIVER}.driver"], top).stdout.strip())
    )


def install(lock_path: str, command: str | None = None) -> Installed:
    """Add the attribute line to the top ``.gitattributes`` and the driver to the repository's
    own git config (``.git/config``). Running it again changes nothing."""
    directory = os.path.dirname(os.path.abspath(lock_path))
    if not os.path.isdir(directory):
        raise UsageError(f"the lock's directory {directory} does not exist", hint="pass the right --lockfile")
    top = repo_top(directory)
    attributes = os.path.join(top, ".gitattributes")
    lines = _add_attributes(attributes, lock_path)
    lines += _add_host_files(attributes, top, lock_path)
    driver = f"{command or own_command()} merge-driver run %O %A %B %P"
    changed = False
    for key, value in ((f"merge.{DRIVER}.name", DRIVER_NAME), (f"merge.{DRIVER}.driver", driver)):
        changed = _set_config(top, key, value) or changed
    return Installed(attributes, bool(lines), driver, changed, lines)


def _add_attributes(attributes: str, lock_path: str) -> list[str]:
    """The lock's and its export record's attribute lines appended to ``attributes`` where
    missing (never through a link); returns the lines added."""
    from mcplock.core.export_record import record_path
    from mcplock.lock.store import write_atomic

    text = _read_attributes(attributes)
    lines = [
        line
        for line, path in zip(attribute_lines(lock_path), (lock_path, record_path(lock_path)), strict=True)
        if not has_attribute(text, path)
    ]
    if lines:
        if text and not text.endswith("\n"):
            text += "\n"
        text += "".join(line + "\n" for line in lines)
        write_atomic(attributes, text.encode("utf-8"))
    return lines


def _host_file_lines(top: str, lock_path: str, rels: list[str] | None = None) -> list[str]:
    """The attribute lines of the host files the export wrote (``rels``, relative to the lock's
    directory; default: every file the export record names), their paths relative to ``top``:
    git runs the driver on them too (:mod:`mcplock.core.merge_exports`)."""
    from mcplock.core import export_record

    if rels is None:
        try:
            rels = sorted(export_record.load(lock_path).files)
        except McplockError:
            rels = []
    base = os.path.dirname(os.path.abspath(lock_path))
    out = []
    for rel in rels:
        path = os.path.relpath(os.path.join(base, rel), top).replace(os.sep, "/")
        if not path.startswith("../"):
            out.append(f"{attribute_pattern(path)} merge={DRIVER}")
    return out


def _add_host_files(attributes: str, top: str, lock_path: str, rels: list[str] | None = None) -> list[str]:
    """The host files' attribute lines appended to ``attributes`` where missing; the lines added."""
    from mcplock.lock.store import write_atomic

    text = _read_attributes(attributes)
    lines = [line for line in _host_file_lines(top, lock_path, rels) if not _has_pattern(text, line.rsplit(" ", 1)[0])]
    if lines:
        if text and not text.endswith("\n"):
            text += "\n"
        write_atomic(attributes, (text + "".join(line + "\n" for line in lines)).encode("utf-8"))
    return lines


def register_exports(lock_path: str, rels: list[str]) -> list[str]:
    """After an export: the host files it wrote get the driver's attribute too, where the
    repository installed the driver for the lock (the top ``.gitattributes`` names it; no git
    process is started). Returns the lines added ([]: none needed, or no driver)."""
    top = work_tree(os.path.dirname(os.path.abspath(lock_path)))
    if top is None or not _top_sets_driver(top, lock_path):
        return []
    return _add_host_files(os.path.join(top, ".gitattributes"), top, lock_path, rels)


def _read_attributes(attributes: str) -> str:
    """What the .gitattributes file holds ("" when there is none); a link is refused (it is
    never written through)."""
    if os.path.islink(attributes):
        raise UsageError(
            f"{attributes} is a symbolic link; mcplock does not write through links (it could point "
            "outside the repository)",
            hint="replace the link with a file of its own (copy what it holds, then `mcplock "
            "merge-driver install` again)",
            code="symlink",
        )
    from mcplock.model.files import SMALL_MAX, read_bounded

    try:
        text = read_bounded(attributes, SMALL_MAX).decode("utf-8")
    except FileNotFoundError:
        text = ""
    except (OSError, UnicodeDecodeError) as e:
        raise UsageError(
            f"cannot read {attributes}: {getattr(e, 'strerror', None) or e}",
            hint="fix the file's permissions or encoding, then run the command again",
        ) from None
    return text


def _set_config(top: str, key: str, value: str) -> bool:
    """``git config --local key value`` unless it holds that already; whether it changed."""
    current = _git(["config", "--local", key], top)
    if current.returncode == 0 and current.stdout.rstrip("\n") == value:
        return False
    proc = _git(["config", "--local", key, value], top)
    if proc.returncode != 0:
        raise McplockError(
            f"git config failed: {proc.stderr.strip()}",
            hint="check that .git/config is writable, then run the command again",
        )
    return True
