"""One key at a time from a terminal: the only place mcplock changes the terminal's mode.

``read_key()`` puts the terminal in cbreak mode (no line buffering, no echo; signals stay on,
so Ctrl-C is still SIGINT), reads one key and restores the saved mode on every way out: a key,
Ctrl-C (``KeyboardInterrupt``), SIGTERM or SIGHUP (mcplock turns them into the same), an error.
Off a terminal there are no keys: callers read lines (:func:`available` says which).
:func:`drop_typeahead`, before a question shows, drops what was typed before it (the answers are
to what is on the screen: :mod:`mcplock.cli.prompt`).
"""

from __future__ import annotations

import os
import sys

EOF_KEY = "\x04"  # Ctrl-D: end of input, as on a line
ENTER = "\n"


def available() -> bool:
    """Whether keys can be read one at a time (stdin and stdout are a terminal)."""
    try:
        return sys.stdin.isatty() and sys.stdout.isatty()
    except (AttributeError, ValueError):  # closed or replaced streams
        return False


def drop_typeahead() -> None:
    """Drop what was typed at the terminal and not read yet (the Enter after a key, a key typed
    before the question it would answer shows). Nothing off a terminal."""
    import termios

    try:
        if sys.stdin.isatty():
            termios.tcflush(sys.stdin.fileno(), termios.TCIFLUSH)
    except (AttributeError, ValueError, OSError):  # closed or replaced streams
        return


def read_key() -> str:
    """One key: a character, :data:`ENTER`, :data:`EOF_KEY`, or ``""`` for a key that is none of
    these (an arrow, a function key: their escape sequences are read whole and dropped)."""
    import select
    import termios
    import tty

    from mcplock.cli.waiting import wait_readable

    fd = sys.stdin.fileno()
    saved = termios.tcgetattr(fd)
    try:
        tty.setcbreak(fd, termios.TCSADRAIN)
        wait_readable(fd)  # not a bare read: a Ctrl-C handed to another thread would be lost
        data = os.read(fd, 1)
        if data == b"\x1b":  # an escape sequence: take the rest that is already there
            while select.select([fd], [], [], 0.05)[0]:
                data += os.read(fd, 16)
            return ""
        if data and data[0] >= 0xC0:  # the rest of one UTF-8 character
            data += os.read(fd, _continuation(data[0]))
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)
    return _key_of(data)


def _continuation(lead: int) -> int:
    """How many bytes follow the lead byte ``lead`` of a UTF-8 character."""
    if lead < 0xE0:
        return 1
    return 2 if lead < 0xF0 else 3


def _key_of(data: bytes) -> str:
    """The key the bytes read are: :data:`EOF_KEY` for none, :data:`ENTER` for a line end."""
    if not data:
        return EOF_KEY
    key = data.decode("utf-8", "replace")
    return ENTER if key in ("\r", "\n") else key
