"""Entry point of the ``mcplock`` console script.

``--version`` is answered before anything heavy is imported. Global options
(``--lockfile``, ``--no-color``, ``-q``, ``-v``) are accepted before or after the
command name: they are moved to the front here, up to a ``--``.
"""

from __future__ import annotations

import sys

from mcplock.model.argv import GLOBAL_FLAGS, GLOBAL_VALUED  # a leaf: the CLI reads them too


def normalise(argv: list[str]) -> list[str]:
    front: list[str] = []
    rest: list[str] = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--":
            rest.extend(argv[i:])
            break
        if a in GLOBAL_FLAGS:
            front.append(a)
        elif a in GLOBAL_VALUED and i + 1 < len(argv):
            front.extend([a, argv[i + 1]])
            i += 1
        elif any(a.startswith(v + "=") for v in GLOBAL_VALUED):
            front.append(a)
        else:
            rest.append(a)
        i += 1
    return front + rest


def _answers_version(args: list[str]) -> bool:
    """Whether the command line asks only for the version (``--version`` before any ``--``, or
    a lone ``-V``)."""
    before_dashdash = args[: args.index("--")] if "--" in args else args
    return "--version" in before_dashdash or before_dashdash == ["-V"]


def _fast_run(args: list[str]) -> int | None:
    """The exit code of a plain ``run NAME …`` served without typer and rich (None: the full CLI
    reads this command line)."""
    if "run" not in args or "-h" in args or "--help" in args:
        return None
    from mcplock.cli import fast_run

    run_opts = fast_run.parse(args)
    return fast_run.run(run_opts) if run_opts is not None else None


def _fast_check(args: list[str]) -> int | None:
    """The exit code of a ``check`` whose answer is the all-clear, without typer and rich (None:
    the full CLI runs it, and says what is wrong)."""
    if "check" not in args:
        return None
    from mcplock.cli import fast_check

    check_opts = fast_check.parse(args)
    return fast_check.run(*check_opts) if check_opts is not None else None


def main(argv: list[str] | None = None) -> None:
    # jsonschema imports rfc3987-syntax at its own import wherever that optional package is installed
    # (jsonschema's format-nongpl extra, which Jupyter's environments and CycloneDX's validation
    # bring) and builds ~40 grammars: ~1.3 s of CPU before a schema is read. mcplock checks no
    # string format (no FormatChecker), so the command never loads it.
    sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]
    args = list(sys.argv[1:] if argv is None else argv)
    if "run" not in args:  # the guard keeps its host's pipe itself
        from mcplock.cli.streams import guard_stdout

        guard_stdout()  # a closed stdout (`mcplock check | true`) leaves the exit code alone (issue 42.11)
    if _answers_version(args):
        from mcplock._version import __version__

        sys.stdout.write(f"mcplock {__version__}\n")
        raise SystemExit(0)
    args = normalise(args)
    code = _fast_run(args)
    if code is None:
        code = _fast_check(args)
    if code is not None:
        raise SystemExit(code)
    from mcplock.cli.app import run

    raise SystemExit(run(args))


if __name__ == "__main__":
    main()
