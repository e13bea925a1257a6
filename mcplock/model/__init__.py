"""The vocabulary every layer speaks: transports, URIs, documents, snapshots, severities, client
capabilities, paths, the machine key, and the command lines mcplock reads before its CLI loads
(argv, guard_argv). Imports nothing of mcplock but errors."""
