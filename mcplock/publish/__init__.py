"""The publisher kit (docs/publishers.md): a server's surface as a statement its author publishes
(``mcp-surface.json``), two statements or locks compared with no server contacted, what a release
does to every pinned client, and the statement's detached ed25519 signature, which ``add`` and
``refresh`` check against the live server when a pinned package ships one.

:mod:`.statement` (the format: build, write, read), :mod:`.offline` (``diff OLD NEW``),
:mod:`.impact` (``surface --against``), :mod:`.signature` (sign, verify), :mod:`.publishers`
(the policy's ``[publishers]`` keys), :mod:`.vouch` (a shipped statement against a live probe).
Nothing here prints; nothing here imports the MCP SDK.
"""
