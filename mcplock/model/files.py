"""The one way mcplock reads and writes a file a repository controls (docs/failing-safe.md,
round 5, items 18 and 21).

A repository can hold anything at a path mcplock reads or writes: a link to ``/dev/zero``, to
``/dev/stdin``, to a FIFO, to a directory, to a person's file outside the project. So:

- :func:`read_bounded` reads only a regular file (a link to one is followed; a FIFO, device,
  socket or directory is refused without blocking, since the file is opened non-blocking and
  checked on its descriptor) and at most ``limit`` bytes (a larger one is refused unread).
- :func:`write_target` says where a write of ``path`` may land: the path itself, or the target
  of a link that stays inside the project and names a regular file (or nothing yet). A link
  that leaves the project, or that names a device, FIFO, socket or directory — and a path that
  is itself such a thing — is refused. The write then replaces that file by a rename, never
  writing through anything else.

Both refuse with an :class:`OSError` whose ``strerror`` says what was found, so every caller's
existing "cannot read: …"/"cannot write: …" error carries it.
"""

from __future__ import annotations

import errno
import os
import stat

MiB = 1024 * 1024
DOCUMENT_MAX = 64 * MiB  # the lock, the export record, an mcp-lock/1 document
SMALL_MAX = 1 * MiB  # a signature, a policy, .gitattributes


def _kind(mode: int) -> str:
    """What a file that is not a regular file is, in a few words."""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _limit_text(limit: int) -> str:
    return f"{limit // MiB} MiB" if limit >= MiB else f"{limit // 1024} KiB"


class NotRegularFile(OSError):
    """A path that is (or links to) something other than a regular file."""


class TooLarge(OSError):
    """A file larger than what mcplock reads of its kind."""


def read_bounded(path: str | os.PathLike[str], limit: int) -> bytes:
    """The bytes of the regular file at ``path``, at most ``limit`` of them.

    Raises :class:`NotRegularFile` for a directory, FIFO, device or socket (or a link to one),
    :class:`TooLarge` past ``limit``, and the usual :class:`OSError` otherwise."""
    p = os.fspath(path)
    fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            linked = " (through a symbolic link)" if os.path.islink(p) else ""
            raise NotRegularFile(errno.EINVAL, f"it is {_kind(st.st_mode)}{linked}, not a regular file", p)
        if st.st_size > limit:
            raise TooLarge(errno.EFBIG, f"it is larger than {_limit_text(limit)}, more than mcplock reads", p)
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        chunks: list[bytes] = []
        got = 0
        while got <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - got))
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
        if got > limit:
            raise TooLarge(errno.EFBIG, f"it is larger than {_limit_text(limit)}, more than mcplock reads", p)
        return b"".join(chunks)
    finally:
        os.close(fd)


def work_tree(directory: str, *, follow_links: bool = True) -> str | None:
    """The nearest directory from ``directory`` up that holds ``.git`` (no git process; None: none
    does). ``follow_links=False`` counts a ``.git`` that is a dangling link too."""
    exists = os.path.exists if follow_links else os.path.lexists
    d = os.path.abspath(directory)
    while True:
        if exists(os.path.join(d, ".git")):
            return d
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


def project_root(path: str) -> str:
    """The project a repository file belongs to: the nearest directory above ``path`` (read as
    written, links not followed) that holds ``.git``; without one, ``path``'s own directory."""
    start = os.path.dirname(os.path.abspath(path))
    return work_tree(start, follow_links=False) or start


def _inside(target: str, root: str) -> bool:
    root = os.path.realpath(root)
    return target == root or target.startswith(root.rstrip(os.sep) + os.sep)


def write_target(path: str, root: str | None = None) -> str:
    """Where a write of ``path`` lands: ``path`` itself, or the target of the link it is when
    that target lies inside ``root`` (default: :func:`project_root`) and is a regular file or
    does not exist yet. Anything else raises :class:`NotRegularFile`, naming what was found."""
    root = project_root(path) if root is None else root
    target = os.path.realpath(path)
    link = os.path.islink(path)
    directory = os.path.realpath(os.path.dirname(os.path.abspath(path)))
    if not _inside(directory, root):
        raise NotRegularFile(
            errno.EXDEV,
            f"its directory is a link to {directory}, outside the project ({os.path.realpath(root)}); "
            "mcplock does not write through it",
            path,
        )
    if link and not _inside(target, root):
        raise NotRegularFile(
            errno.EXDEV,
            f"it is a symbolic link to {target}, outside the project ({os.path.realpath(root)}); "
            "mcplock does not write through it",
            path,
        )
    try:
        st = os.stat(target)
    except FileNotFoundError:
        return target if link else path
    except OSError:
        return target if link else path  # the write itself says what is wrong
    if not stat.S_ISREG(st.st_mode):
        through = f"a symbolic link to {target}, which is " if link else ""
        raise NotRegularFile(
            errno.EINVAL, f"it is {through}{_kind(st.st_mode)}, not a regular file; mcplock does not write it", path
        )
    return target if link else path
