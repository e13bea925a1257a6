"""The organisation's view (docs/organisation.md): what one project or one machine runs, as an
inventory (mcplock's JSON or CycloneDX 1.6), and a fleet report that joins many of them.

Nothing here launches a server, opens a connection or prints: :mod:`.inventory` reads a lock and
host configs into a plain inventory (no secret, no argument beyond a package and its version);
:mod:`.cyclonedx` turns one into a CycloneDX BOM and back; :mod:`.fleet` joins inventories and
lock files into counts; :mod:`.fleet_html` renders those as one self-contained page. Reads
lock/, hosts/, trust/, packages/, interop/ and lint/; never core/ or cli/.
"""
