"""Where an MCP App document names an origin it never contacts (issue 42.12): the text
:mod:`mcplock.lint.apps` leaves out before it asks which origins a document names.

An honest App bundles libraries, and their URLs come along: a licence URL in a banner comment
(``/*! lib v1 | https://…/LICENSE */``), the CDN a file was copied from in an HTML comment, a
``//# sourceMappingURL=https://…`` line, the SVG namespace ``http://www.w3.org/2000/svg`` (an
``xmlns`` attribute, a ``createElementNS`` argument), a DOCTYPE's DTD. None of them is a network
destination: a comment runs nothing, a namespace is a name. These are left out:

- HTML comments in the markup, a ``<!DOCTYPE …>``, ``xmlns`` attributes' values;
- comments in inline ``<script>`` elements (JavaScript) and ``<style>`` elements (CSS), found by a
  lexer that knows strings, template literals and regular expression literals — a ``//`` inside
  a string or a regex is not a comment;
- the XML namespace URIs of the web platform, anywhere (they are names, never fetched);
- a URL inside a string literal of prose — a library's "… is deprecated. See https://…/warnings/
  for more" — which is a message for a person, not a URL value.

Everything else still counts, in code as in markup: a string literal that is a URL may be handed
to ``fetch`` through a variable, so it is a destination (mcplock does not follow data flow; a URL
built from pieces is beyond any lint, which is why a literal in prose is not worth a finding). Where
the lexer is unsure it decides toward counting: a ``/`` after ``}`` starts a regex (its ``//`` is
not a comment), and a script the lexer cannot read to its end (an unterminated string, comment,
template or regex) has none of its comments left out. One pass over the text: linear time.
"""

from __future__ import annotations

import bisect
import re

NAMESPACES = frozenset(
    {
        "http://www.w3.org/2000/svg",
        "http://www.w3.org/1999/xhtml",
        "http://www.w3.org/1998/math/mathml",
        "http://www.w3.org/1999/xlink",
        "http://www.w3.org/xml/1998/namespace",
        "http://www.w3.org/2000/xmlns",
    }
)

# every pattern here is linear on any input: an unclosed element or comment is never searched for
# again from each of its openings (a server writes this text)
_OPEN = re.compile(r"(?i)<(script|style)\b([^>]{0,4000})>")
_CLOSE = {name: re.compile(rf"(?i)</{name}\s*>") for name in ("script", "style")}
_DOCTYPE = re.compile(r"(?i)<!doctype\b[^>]{0,2000}>")
_XMLNS = re.compile(r"""(?i)\bxmlns(?::[\w.-]{1,100})?\s{0,20}=\s{0,20}(["'])([^"'\n]{0,2000})\1""")
_JS_TYPE = re.compile(r"""(?i)\btype\s*=\s*["']?\s*(?:module|text/javascript|application/javascript)\b""")
_TYPE = re.compile(r"(?i)\btype\s*=")
_WORD = re.compile(r"[A-Za-z0-9_$\u0080-\uffff]+")
_REGEX_AFTER_WORD = frozenset(
    {"return", "typeof", "instanceof", "in", "of", "new", "delete", "void", "throw", "case", "do", "else"}
    | {"yield", "await"}
)
_HEADS = frozenset({"if", "while", "for", "with"})
_STRINGS = {q: re.compile(q + r"(?:[^" + q + r"\\\n]|\\[\s\S])*" + q) for q in "\"'"}
_TEMPLATE_TEXT = re.compile(r"[^\\`$]*")
_SPACE = re.compile(r"\s+")

Spans = list[tuple[int, int]]
_URL_TOKEN = re.compile(r"""[^\s"'`<>()]+""")


def is_namespace(text: str, at: int) -> bool:
    """Whether the URL that starts at ``at`` is an XML namespace of the web platform."""
    m = _URL_TOKEN.match(text, at)
    return m is not None and m.group(0).lower().rstrip("/") in NAMESPACES


class Inert:
    """The spans of a document's text that contact nothing, for :meth:`holds`."""

    def __init__(self, text: str) -> None:
        spans: Spans = []
        code: Spans = []  # script and style bodies: no HTML comment inside them counts
        for name, attrs, start, end in _elements(text):
            body = text[start:end]
            code.append((start, end))
            if name == "style":
                spans += _comments(body, start, css=True)
            elif "src" not in attrs.lower() and (_JS_TYPE.search(attrs) or not _TYPE.search(attrs)):
                spans += _comments(body, start, css=False)
        starts = [a for a, _ in code]
        spans += [s for s in _markup_spans(text) if not _inside(code, starts, s[0])]
        spans.sort()
        self._starts = [a for a, _ in spans]
        self._spans = spans

    def holds(self, at: int) -> bool:
        """Whether the character at ``at`` is inert (a comment, a DOCTYPE, a namespace)."""
        i = bisect.bisect_right(self._starts, at) - 1
        return i >= 0 and self._spans[i][0] <= at < self._spans[i][1]


def _elements(text: str) -> list[tuple[str, str, int, int]]:
    """Each ``<script>`` and ``<style>`` element: (name, its attributes, where its body starts and
    ends). One unclosed runs to the end of the text, as a browser reads it."""
    out: list[tuple[str, str, int, int]] = []
    at = 0
    while (m := _OPEN.search(text, at)) is not None:
        name = m.group(1).lower()
        close = _CLOSE[name].search(text, m.end())
        end = close.start() if close is not None else len(text)
        out.append((name, m.group(2), m.end(), end))
        if close is None:
            break
        at = close.end()
    return out


def _inside(spans: Spans, starts: list[int], at: int) -> bool:
    """Whether ``at`` lies in one of ``spans`` (sorted, not overlapping; ``starts``: theirs)."""
    i = bisect.bisect_right(starts, at) - 1
    return i >= 0 and spans[i][0] <= at < spans[i][1]


def _html_comments(text: str) -> Spans:
    """``<!-- … -->`` comments; one unclosed runs to the end of the text."""
    out: Spans = []
    at = 0
    while (start := text.find("<!--", at)) >= 0:
        end = text.find("-->", start + 4)
        out.append((start, len(text) if end < 0 else end + 3))
        if end < 0:
            break
        at = end + 3
    return out


def _markup_spans(text: str) -> Spans:
    out = _html_comments(text)
    out += [(m.start(), m.end()) for m in _DOCTYPE.finditer(text)]
    return out + [(m.start(2), m.end(2)) for m in _XMLNS.finditer(text)]


def _comments(src: str, base: int, *, css: bool) -> Spans:
    """The comments of a script (or, ``css``, a style sheet) as spans of the document; none when
    the lexer cannot read it to its end."""
    lexer = _Lexer(src, css)
    try:
        lexer.run()
    except _Unreadable:
        return []
    prose = [(a, b) for a, b in lexer.strings if "://" in src[a:b] and _is_prose(src[a:b])]
    return [(base + a, base + b) for a, b in lexer.comments + prose]


_URLS = re.compile(r"""(?i)\b(?:https?|wss?)://[^\s"'`<>]*""")
_PROSE_WORD = re.compile(r"[A-Za-z]{2,}")


def _is_prose(literal: str) -> bool:
    """A string a library shows a person — "… is deprecated. See https://…/warnings/ for more" —
    not a URL value: besides its URLs it holds at least three words, with spaces between them."""
    rest = _URLS.sub(" ", literal)
    return len(_PROSE_WORD.findall(rest)) >= 3 and " " in rest.strip()


def _end(pattern: re.Pattern[str], src: str, at: int) -> int:
    """Where ``pattern``'s match at ``at`` ends (``at`` when it matches nothing there)."""
    m = pattern.match(src, at)
    return m.end() if m is not None else at


class _Unreadable(Exception):
    pass


class _Lexer:
    """Just enough JavaScript (or CSS) to tell a comment from a string, a template or a regex."""

    def __init__(self, src: str, css: bool) -> None:
        self.src, self.css, self.i = src, css, 0
        self.comments: Spans = []
        self.strings: Spans = []  # the text of each string literal and template piece
        self.prev = ""  # the last token: a punctuator, a word, or "v" for a value (string, regex, template)
        self.parens: list[bool] = []  # per open "(": whether it opens an if/while/for/with head
        self.closed_head = False  # the last ")" closed such a head: a "/" after it starts a regex
        self.templates: list[int] = []  # per template literal open around us: the brace depth of its ${
        self.depth = 0  # braces open in code

    def run(self) -> None:
        src, n = self.src, len(self.src)
        while self.i < n:
            c = src[self.i]
            if c.isspace():
                self.i = _end(_SPACE, src, self.i)
            elif c == "/" and src.startswith("/*", self.i):
                self._block_comment()
            elif c == "/" and src.startswith("//", self.i) and not self.css:
                end = src.find("\n", self.i)
                end = n if end < 0 else end
                self.comments.append((self.i, end))
                self.i = end
            elif c in "\"'":
                self._string(c)
            elif c == "`" and not self.css:
                self.i += 1
                self._template()
            elif c == "/" and not self.css and self._regex_allowed():
                self._regex()
            elif c == "}" and self.templates and self.templates[-1] == self.depth:
                self.templates.pop()
                self.i += 1
                self._template()  # back in the template literal the ${ … } was part of
            else:
                self.depth += {"{": 1, "}": -1}.get(c, 0)
                self._token(c)
        if self.templates:
            raise _Unreadable

    def _token(self, c: str) -> None:
        m = _WORD.match(self.src, self.i)
        if m is not None:
            self.prev = m.group(0)
            self.i = m.end()
            return
        if c == "(":
            self.parens.append(self.prev in _HEADS)
        self.closed_head = c == ")" and bool(self.parens) and self.parens.pop()
        two = self.src[self.i : self.i + 2]
        self.prev = two if two in ("++", "--") else c
        self.i += len(self.prev)

    def _regex_allowed(self) -> bool:
        p = self.prev
        if p == "" or p == "}":  # a "}" closes a block more often than an object: decided toward a regex
            return True
        if p == ")":
            return self.closed_head
        if p in ("]", "v", "++", "--"):
            return False
        if _WORD.fullmatch(p):
            return p in _REGEX_AFTER_WORD
        return True

    def _block_comment(self) -> None:
        end = self.src.find("*/", self.i + 2)
        if end < 0:
            raise _Unreadable
        self.comments.append((self.i, end + 2))
        self.i = end + 2

    def _string(self, quote: str) -> None:
        m = _STRINGS[quote].match(self.src, self.i)
        if m is None:  # unterminated, or a raw line break inside
            raise _Unreadable
        self.strings.append((m.start() + 1, m.end() - 1))
        self.i, self.prev = m.end(), "v"

    def _template(self) -> None:
        """From inside a template literal to its end, or to a ``${`` (the lexer then reads the
        expression as code, and comes back here at its ``}``)."""
        src, i = self.src, self.i
        while i < len(src):
            i = _end(_TEMPLATE_TEXT, src, i)  # up to a backslash, a backtick or a $
            if i >= len(src):
                break
            if src[i] == "\\":
                i += 2
            elif src[i] == "`":
                self.strings.append((self.i, i))
                self.i, self.prev = i + 1, "v"
                return
            elif src.startswith("${", i):
                self.strings.append((self.i, i))
                self.templates.append(self.depth)
                self.i, self.prev = i + 2, "{"
                return
            else:
                i += 1
        raise _Unreadable

    def _regex(self) -> None:
        src, i, in_class = self.src, self.i + 1, False
        while i < len(src):
            ch = src[i]
            if ch == "\n":
                raise _Unreadable
            if ch == "\\":
                i += 2
                continue
            if ch == "[":
                in_class = True
            elif ch == "]":
                in_class = False
            elif ch == "/" and not in_class:
                break
            i += 1
        if i >= len(src):
            raise _Unreadable
        m = _WORD.match(src, i + 1)
        self.i, self.prev = (m.end() if m else i + 1), "v"
