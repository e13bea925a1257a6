"""One module per command (or small group of commands); each ``register``s its commands
on the root app. A command parses, calls :mod:`mcplock.core`, renders, returns an exit code."""
