"""Literal secrets in a host config → ``${VAR}`` templates (a lock never holds a secret; see docs/lock-format.md).

The literal goes into ``ServerSpec.secrets`` under the template's name (memory only),
so a probe still sends it; the notes name the key and the variable, never the value.

Naming:
- env ``KEY``: ``env_var_name(KEY)`` (the key itself when it is a valid upper-case name);
- header ``Authorization: <Scheme> <credential>`` (Bearer, Basic, Token):
  ``<Scheme> ${<SERVER>_TOKEN}`` with the upper-cased server name; any other header, and an
  ``Authorization`` value without a scheme: ``env_var_name(header)``;
- args: ``KEY=value`` (e.g. ``docker -e GITHUB_TOKEN=…``) → ``env_var_name(KEY)``;
  ``--flag=value`` / ``--flag value`` under a secret-sounding flag → ``<SERVER>_<FLAG>``;
  ``Header: value`` (``mcp-remote --header``) → the header rule; any other
  credential-shaped piece (``ghp_…``, ``sk-…``) → ``<SERVER>_SECRET``;
- url: a secret-looking query parameter → ``<SERVER>_<PARAM>``, a password in the
  user-info → ``<SERVER>_PASSWORD``, a credential-shaped path piece → ``<SERVER>_SECRET``.
Two different values that want one name within a server get ``_2``, ``_3`` …
"""

from __future__ import annotations

import re

from mcplock.lock.templates import env_var_name, looks_secret

_TEMPLATE = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?\}")
_AUTH_SCHEME = re.compile(r"(?is)(bearer|basic|token)\s+(\S.*)")
_PLACEHOLDER = re.compile(r"(?i)(replace[_-]?(with|me)|your[_-]|<[^>]*>|changeme|placeholder|x{6,})")
_ASSIGN = re.compile(r"(?s)(-{0,2})([A-Za-z_][A-Za-z0-9_.-]*)=(.+)")
_HEADER_ARG = re.compile(r"(?s)([A-Za-z][A-Za-z0-9-]*):[ \t]*(.+)")
_NOT_A_SECRET = re.compile(r"(?i)(\d+|true|false|none|null|yes|no|on|off|auto|\.{0,2}/.*|~.*|https?://.*)")
_PIECES = re.compile(r"([/?&=:@,;#\s]+)")


def _credential_shaped(value: str) -> bool:
    return looks_secret("", value)


def _flag_value(prev: str, arg: str) -> bool:
    """Whether ``arg`` is the value of the bare flag before it (``--flag VALUE``, not
    ``--flag=VALUE`` nor another flag)."""
    return prev.startswith("-") and "=" not in prev and not arg.startswith("-")


class Secrets:
    """Collects the secrets of one server and the notes about them."""

    def __init__(self, server: str) -> None:
        self.prefix = env_var_name(server)
        self.values: dict[str, str] = {}
        self.notes: list[str] = []
        self.warnings: list[str] = []

    def _put(self, want: str, value: str) -> str:
        name, i = want, 2
        while name in self.values and self.values[name] != value:
            name, i = f"{want}_{i}", i + 1
        self.values[name] = value
        if _PLACEHOLDER.search(value):
            note = (
                f"${{{name}}}: the config holds a placeholder, not a real credential; put the real value in the config"
            )
            if note not in self.warnings:
                self.warnings.append(note)
        return name

    # --- env and headers ------------------------------------------------------------

    def env(self, env: dict[str, str]) -> dict[str, str]:
        out: dict[str, str] = {}
        for k, v in env.items():
            if looks_secret(k, v):
                name = self._put(env_var_name(k), v)
                out[k] = "${" + name + "}"
                self.notes.append(f"env {k}: literal value moved to ${{{name}}}")
            else:
                out[k] = v
        return out

    def _header_value(self, key: str, value: str) -> tuple[str, str]:
        """(templated value, variable name) for a secret header value."""
        if key.lower() == "authorization" and (m := _AUTH_SCHEME.fullmatch(value.strip())):
            name = self._put(f"{self.prefix}_TOKEN", m.group(2))
            return f"{m.group(1)} ${{{name}}}", name
        name = self._put(env_var_name(key), value)
        return "${" + name + "}", name

    def headers(self, headers: dict[str, str]) -> dict[str, str]:
        out: dict[str, str] = {}
        for k, v in headers.items():
            if looks_secret(k, v):
                out[k], name = self._header_value(k, v)
                self.notes.append(f"header {k}: literal value moved to ${{{name}}}")
            else:
                out[k] = v
        return out

    # --- args and url -----------------------------------------------------------------

    def _pieces(self, value: str, want: str) -> tuple[str, list[str]]:
        """Template every credential-shaped piece of ``value`` outside existing templates."""
        names: list[str] = []
        out: list[str] = []
        last = 0
        spans = [(m.start(), m.end()) for m in _TEMPLATE.finditer(value)] + [(len(value), len(value))]
        for start, end in spans:
            out += [self._piece(piece, want, names) for piece in _PIECES.split(value[last:start])]
            out.append(value[start:end])
            last = end
        return "".join(out), names

    def _piece(self, piece: str, want: str, names: list[str]) -> str:
        """One piece of a value (between separators), templated when it is credential-shaped
        (its variable's name added to ``names``)."""
        if piece and not _PIECES.fullmatch(piece) and _credential_shaped(piece):
            name = self._put(want, piece)
            names.append(name)
            return "${" + name + "}"
        return piece

    def _keyed(self, key: str, value: str) -> bool:
        """A value under a secret-sounding key in an argument."""
        if _credential_shaped(value):
            return True
        return looks_secret(key, value) and not _NOT_A_SECRET.fullmatch(value.strip())

    def args(self, args: list[str]) -> list[str]:
        out: list[str] = []
        for i, a in enumerate(args):
            new, moved = self._arg(a, args[i - 1] if i else "")
            if moved:
                self.notes.append(f"args[{i}]: literal credential moved to {moved}")
            out.append(new)
        return out

    def _arg(self, a: str, prev: str) -> tuple[str, str | None]:
        """One argument (``prev``: the one before it) with its literal credential replaced by a
        template, and the templates it now holds (``${NAME}``, comma-joined; None: nothing moved).
        Tried in turn: ``KEY=VALUE``, a header (``Name: value``), the value of a secret-sounding
        flag (``--flag VALUE``), then any credential-shaped piece."""
        for form in (self._assignment_arg, self._header_arg, self._flag_value_arg, self._shaped_arg):
            got = form(a, prev)
            if got is not None:
                return got
        return a, None

    def _assignment_arg(self, a: str, prev: str) -> tuple[str, str | None] | None:
        """``KEY=VALUE`` (``--KEY=VALUE``) with a secret value (None: not such an argument)."""
        m = _ASSIGN.fullmatch(a)
        if m is None or not self._keyed(m.group(2), m.group(3)):
            return None
        key = m.group(2)
        want = env_var_name(key) if not m.group(1) else f"{self.prefix}_{env_var_name(key)}"
        name = self._put(want, m.group(3))
        return f"{m.group(1)}{key}=${{{name}}}", f"${{{name}}}"

    def _header_arg(self, a: str, prev: str) -> tuple[str, str | None] | None:
        """A header (``Name: value``, not a URL's ``//``) with a secret value."""
        m = _HEADER_ARG.fullmatch(a)
        if m is None or m.group(2).startswith("//") or not looks_secret(m.group(1), m.group(2)):
            return None
        value, name = self._header_value(m.group(1), m.group(2))
        return f"{m.group(1)}: {value}", f"${{{name}}}"

    def _flag_value_arg(self, a: str, prev: str) -> tuple[str, str | None] | None:
        """The secret value given as the argument after a secret-sounding flag (one named like a
        token or a password) that is not credential-shaped itself (that one is templated piece by
        piece)."""
        flag = prev.lstrip("-")
        if not (_flag_value(prev, a) and self._keyed(flag, a) and not _credential_shaped(a)):
            return None
        name = self._put(f"{self.prefix}_{env_var_name(flag)}", a)
        return "${" + name + "}", f"${{{name}}}"

    def _shaped_arg(self, a: str, prev: str) -> tuple[str, str | None] | None:
        """A credential-shaped argument, each such piece of it templated (named after the
        ``--flag`` before it, if any)."""
        if not _credential_shaped(a):
            return None
        flag = prev.lstrip("-")
        want = f"{self.prefix}_{env_var_name(flag)}" if prev.startswith("--") else f"{self.prefix}_SECRET"
        new, names = self._pieces(a, want)
        return new, ", ".join("${" + n + "}" for n in names) if names else None

    def url(self, url: str) -> str:
        new = url
        # user-info password: scheme://user:password@host
        if (m := re.match(r"(?i)([a-z][a-z0-9+.-]*://[^/@:]*:)([^/@]+)(@)", new)) and not _TEMPLATE.fullmatch(
            m.group(2)
        ):
            name = self._put(f"{self.prefix}_PASSWORD", m.group(2))
            new = m.group(1) + "${" + name + "}" + new[m.end(2) :]
            self.notes.append(f"url: password moved to ${{{name}}}")

        def query(m: re.Match[str]) -> str:
            key, value = m.group(2), m.group(3)
            if value and not _TEMPLATE.fullmatch(value) and self._keyed(key, value):
                name = self._put(f"{self.prefix}_{env_var_name(key)}", value)
                self.notes.append(f"url query {key}: literal value moved to ${{{name}}}")
                return f"{m.group(1)}{key}=${{{name}}}"
            return m.group(0)

        new = re.sub(r"([?&])([^=&#]+)=([^&#]*)", query, new)
        new, names = self._pieces(new, f"{self.prefix}_SECRET")
        for n in names:
            self.notes.append(f"url: literal credential moved to ${{{n}}}")
        return new
