"""The open ``mcp-lock/1`` lock format (ToolPin's draft specification), both ways.

:mod:`.canonical` is its canonical form (RFC 8785, NFC-duplicate keys refused) and its SRI
digests; :mod:`.reader` is a conforming reader and enforcer (every rule named); :mod:`.produce`
writes a conforming document from ``mcp.lock``; :mod:`.agree` says whether a document and an
``mcp.lock`` say the same. docs/interop.md describes the format, the mapping and the choices.
Nothing here imports the MCP SDK or ``cryptography`` (signatures: :mod:`mcplock.trust.signing`).
"""
