"""The global options, accepted before or after the command: a leaf, read by the console script's
fast path (:mod:`mcplock.__main__`, before typer is imported) and by the CLI (:mod:`mcplock.cli.app`)."""

GLOBAL_FLAGS = {"--no-color", "-q", "--quiet", "-v", "--verbose"}
GLOBAL_VALUED = {"--lockfile"}
