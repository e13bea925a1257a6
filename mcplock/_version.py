"""The one version source, a leaf: pyproject.toml reads it (setuptools ``attr:``, statically),
``mcplock --version`` prints it before the CLI (typer, rich) is imported, and the modules that
name mcplock's version (the client identity, SARIF, the lock's header) import it from here, not
through the package's lazy facade."""

__version__ = "0.1.0"
