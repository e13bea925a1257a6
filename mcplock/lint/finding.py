"""What the security lint reports: :class:`LintFinding`, and the rules it knows (:data:`RULES`)."""

from __future__ import annotations

from dataclasses import dataclass

from mcplock.model.severity import INFO, Severity

# what tells two findings of one rule in one text apart (a rule's own key, the span it matched):
# findings are deduplicated, and a decoded reading's are compared with the plain text's, by it
Sig = tuple[object, ...]


@dataclass(frozen=True)
class LintFinding:
    rule: str
    severity: Severity
    message: str
    where: str  # JSON path inside the definition ("description", "inputSchema.properties.q.description")

    def as_json(self) -> dict[str, str]:
        return {"rule": self.rule, "severity": self.severity, "message": self.message, "where": self.where}


RULES: dict[str, str] = {
    "skill-content-unbound": "A skill the lock bound by content (each file with its digest) that now says "
    '`resources: "dynamic"`: its SKILL.md and scripts would reach the host live, never reviewed (critical; '
    "accepted by name only).",
    "skill-file-unread": "A skill's file past what mcplock reads (8 MiB) that is new or changed: its text is "
    "neither shown nor linted (high: read it yourself).",
    "script-fetches-code": "A skill's text file (a script, a SKILL.md) that now downloads code and runs it "
    '(`curl … | sh`, `bash <(curl …)`, `eval "$(curl …)"`, `iwr … | iex`, `pip install git+https://…`).',
    "hidden-unicode": "Zero-width or other invisible format characters (U+200B–U+200F, U+2060–U+2064, U+FEFF, "
    "soft hyphen, runs of variation selectors) that hide text from a reviewer.",
    "bidi-control": "Bidirectional control characters (U+202A–U+202E, U+2066–U+2069) that make text read "
    "differently from how it is stored.",
    "unicode-tag": "Unicode tag characters (U+E0000–U+E007F): invisible ASCII, the classic way to smuggle an "
    "instruction to the model.",
    "ansi-escape": "Terminal escapes or other control characters (ESC, CSI, C0/C1 controls) that can rewrite "
    "what a terminal shows.",
    "unusual-unicode": "Private-use, unassigned, surrogate or line/paragraph-separator code points that may "
    "render as nothing.",
    "hidden-instructions": "Instruction-like text aimed at the model, in any language of the table (English, Chinese, "
    "Spanish, German, French, Japanese, Portuguese, Russian, Korean) and in decoded disguises: "
    '<IMPORTANT>/<SYSTEM> tags, "ignore previous instructions", "do not tell the user", '
    "orders to send the user's data away, claims on other servers' tools, chat-template tokens.",
    "internal-uri": "A resource or resource template whose URI reaches a cloud metadata service (169.254.169.254, "
    "metadata.google.internal …), this machine's loopback, or walks out of its directory with `..`.",
    "sensitive-path": "Names a secrets location (~/.ssh, id_rsa, .aws/credentials, .env, /etc/passwd, .npmrc, "
    ".netrc, gh config, keychain, MCP host configs); critical with a read/send verb.",
    "exfiltration-url": "A URL shaped for exfiltration: a placeholder for data in it, an order to send, post or "
    "fetch it, or an order to render it as an image or link. A plain link is no signal.",
    "disguised-text": "Text disguised from a reviewer: letter-spaced words, ROT13, reversed text, words mixing "
    "scripts with look-alike letters (the message says what it reads).",
    "credential-parameter": "A new required parameter that asks for a credential (api_key, password, token, "
    '"your API key"): the model will ask the user for a secret and send it to the server.',
    "encoded-blob": "A long base64 or hex run, or a data: URI, in text the model reads: a payload a reviewer "
    "cannot read.",
    "tracking-image": "A Markdown or HTML image loaded from a URL: rendering it sends a request (and whatever "
    "its URL carries).",
    "annotation-flip": 'An explicit annotation flip toward "safe": readOnlyHint false→true or destructiveHint '
    "true→false. Annotations are self-declared and never trusted.",
    "annotations-declared": "Annotations declared for the first time; they are self-declared by the server, "
    "not trusted, and leave the tool's approval unchanged.",
    "tool-shadowing": "A tool name that another server also offers, or a host's own tool (read_file, Bash, "
    "apply_patch …), or one that differs only in case or separators: the model may call the "
    "wrong one.",
    "confusable-name": "A tool name that looks like another tool's (Unicode confusables, e.g. a Cyrillic "
    "letter in a Latin name), on the same server or another one.",
    "mixed-script-name": "A tool name that mixes scripts with look-alike letters, though it imitates no tool in view.",
    "name-collision": "Two tool (or prompt, or resource) names of one server that read the same once normalised "
    "(NFKC, surrounding whitespace, case): `echo` and `echo `, `café` in NFC and in NFD.",
    "pattern-name": "A tool name with a character hosts' permission rules read as a pattern (`*`, `?`): "
    "`Mcp(srv:*)` would run every tool of the server, so `export` writes no rule for it.",
    "lookalike-package": "A server's package name that looks like a well-known MCP package's (confusable "
    "characters, or one edit away), named before anything is installed (docs/pins.md).",
    "cross-server-reference": "A definition that names another server's tool: critical when it claims or "
    'redirects it ("instead of", "always call … first"), the shape of a '
    "cross-server hijack; high for a plain mention.",
    "invalid-mcp-header": "A tool whose `x-mcp-header` annotations break MCP 2026-07-28's constraints (empty, "
    "not a header token, repeated, on a non-primitive parameter, or not reachable through "
    "`properties`): clients must not use it over Streamable HTTP; the guard refuses it there.",
    "directive": "A directive to the model, found by what an added sentence asks (mcplock.lint.intent, 21 "
    "languages): data moved to a destination (an e-mail address, a URL, a host, a file, another tool, "
    "a parameter the model fills), a claim on another tool's or server's turf, a safety check skipped; "
    "critical beside concealment or a claim of authority or prior consent.",
    "annotation-contradicted": "A tool that declares readOnlyHint: true (or destructiveHint: false) while its own "
    "name or text says it deletes or changes data: a lie about safety.",
    "context-parameter": "A parameter whose description asks to be filled with the whole conversation, its "
    "history or the system prompt, though its name says nothing of the kind.",
    "rename": "A tool removed and an identical tool added under a new name: reported as a rename.",
    "publisher-statement": "The pinned package ships a statement of its surface (mcp-surface.json) and the live "
    "server answers otherwise, or its signature does not vouch for it: what the author did not state "
    "(docs/publishers.md).",
    "unreadable-language": "Added text in a language mcplock's words do not cover (mcplock.lint.language_id), "
    "where the accepted text had none: mcplock cannot judge it, and says so; have a reader review it.",
    "new-destination": "An added sentence that names a destination or reference the accepted definition did not "
    "(an address, URL, host, IP, path, command or tool name; mcplock.lint.novelty) and moves something to it, "
    "runs or calls it, or is in a language mcplock cannot read; or a parameter told to take personal data or a "
    "value the user did not give: critical beside concealment or a claim of authority.",
    "html-comment-note": "A short HTML comment that names nothing and asks nothing (a note of the tooling that "
    'wrote the text, "generated by docgen 2.1"): hidden when rendered, so still worth a look.',
    "quoted-by-its-job": "An order that a tool whose job is to scan, detect, translate or explain text quotes as "
    "data (in quotation marks): the tool's subject, not an order to the model.",
    "hidden-markup": "Text hidden from a person by markup (display:none, visibility:hidden, zero size or opacity, "
    "text the colour of its background, the hidden attribute): critical when the hidden text acts.",
}


def rename_finding(old_name: str) -> LintFinding:
    return LintFinding("rename", INFO, f"renamed from `{old_name}` (the definition is otherwise identical)", "name")
