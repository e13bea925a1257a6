"""Lint family: a required parameter that asks for a credential.

A tool that gains a required ``api_key``, ``password`` or ``token`` parameter (or one whose
description asks for "your API key"), or a new prompt argument that does, makes the model ask
the user for a secret and hand it to this server: credential harvesting. ``high`` — a risk
signal, since some honest tools do take a key — for a required parameter the accepted
definition did not require (every required one, for a new item). Optional parameters, and
pagination or session tokens (``page_token``, ``next_token``), are no signal.
"""

from __future__ import annotations

import re
from typing import Any

from mcplock.lint.finding import LintFinding
from mcplock.lint.text import clean, lazy
from mcplock.model.severity import HIGH

_CAMEL = lazy(r"(?<=[a-z0-9])(?=[A-Z])")
_NAME = lazy(
    r"(?:^|_)(?:api_?key|apikey|secret(?:_key)?|client_secret|password|passwd|passphrase|pwd|access_?token|auth_?token"
    r"|bearer(?:_token)?|refresh_token|id_token|token|credentials?|private_?key|secret_?key|access_?key|ssh_?key"
    r"|authorization|cookie|otp|mfa_code|totp|seed_?phrase|mnemonic|recovery_phrase|cvv|card_number)(?:$|_)"
)
_NOT = lazy(r"(?:^|_)(?:page|next|continuation|cursor|sync|pagination|max|num|count|limit)_")
_ASKS = lazy(
    r"\b(?:your|the\s+user'?s|user)\s+(?:\w+\s+){0,2}(?:api[\s_-]?key|password|passphrase|secret|access\s+token"
    r"|token|credentials?|private\s+key|ssh\s+key|seed\s+phrase|recovery\s+phrase|2fa\s+code|otp|cookie)\b"
    r"|\b(?:Ihr|dein|deinen|Ihren)\s+(?:API-)?(?:Schlüssel|Passwort|Kennwort|Token)\b"
    r"|\b(?:votre|ton|ta)\s+(?:clé\s+(?:d['’])?API|mot\s+de\s+passe|jeton)\b"
    r"|\b(?:tu|su)\s+(?:clave\s+(?:de\s+)?API|contraseña|token)\b|\b(?:sua|seu|tua)\s+(?:chave\s+(?:de\s+)?API|senha|token)\b"
    r"|ваш\w*\s+(?:API-?\s*)?(?:ключ|пароль|токен)|(?:您的|你的)\s*(?:API\s*)?(?:密钥|密鑰|密码|密碼|令牌)"
    r"|(?:あなたの)?APIキー|パスワードを入力|(?:당신의|귀하의)?\s*API\s*키|비밀번호를\s*입력",
    re.I,
)


def _snake(name: str) -> str:
    return _CAMEL.sub("_", name).lower().replace("-", "_").replace(" ", "_")


def asks_for_credential(name: str, description: Any) -> str | None:
    """What credential a parameter named ``name`` (with ``description``) asks for, or None."""
    n = _snake(name)
    if _NAME.search(n) and not _NOT.search(n):
        return f"its name `{name}`"
    if isinstance(description, str):
        m = _ASKS.search(clean(description))
        if m:
            return f"its description ({m.group(0)!r})"
    return None


def _arguments(d: dict[str, Any]) -> list[dict[str, Any]]:
    """A prompt's arguments that have a name."""
    args = d.get("arguments")
    if not isinstance(args, list):
        return []
    return [a for a in args if isinstance(a, dict) and isinstance(a.get("name"), str)]


def _object(value: Any) -> dict[str, Any]:
    """``value`` when it is a JSON object, else {}."""
    return value if isinstance(value, dict) else {}


def _description(spec: Any) -> str | None:
    """The description of a parameter's schema or of a prompt argument, when it is a string."""
    description = spec.get("description") if isinstance(spec, dict) else None
    return description if isinstance(description, str) else None


def _where(kind: str, name: str) -> str:
    """The JSON path of the parameter (a tool) or argument (a prompt) ``name``."""
    return f"arguments.{name}" if kind == "prompt" else f"inputSchema.properties.{name}"


def _required_arguments(d: dict[str, Any]) -> dict[str, Any]:
    """A prompt's required argument name -> the argument."""
    return {a["name"]: a for a in _arguments(d) if a.get("required") is True}


def _required_properties(d: dict[str, Any]) -> dict[str, Any]:
    """A tool's required parameter name -> its schema (None without one)."""
    schema = _object(d.get("inputSchema"))
    required = schema.get("required")
    if not isinstance(required, list):
        return {}
    props = _object(schema.get("properties"))
    return {r: props.get(r) for r in required if isinstance(r, str)}


_REQUIRED = {"prompt": _required_arguments, "tool": _required_properties}


def _required(kind: str, d: Any) -> dict[str, Any]:
    """Required parameter name -> its schema (a tool) or argument (a prompt)."""
    return _REQUIRED[kind](d) if isinstance(d, dict) else {}


def credential_findings(kind: str, new: Any, old: Any = None) -> list[LintFinding]:
    """``credential-parameter`` findings: required parameters of ``new`` that ``old`` did not require."""
    if kind not in ("tool", "prompt"):
        return []
    before = _required(kind, old)
    out = []
    for name, spec in _required(kind, new).items():
        if name in before:
            continue
        why = asks_for_credential(name, _description(spec))
        if why:
            where = _where(kind, name)
            out.append(
                LintFinding(
                    "credential-parameter",
                    HIGH,
                    f"a new required parameter `{name}` asks for a "
                    f"credential ({why}): the model will ask the user for a secret and send it to "
                    "this server",
                    where,
                )
            )
    return out


# a parameter named for the conversation may honestly ask for it
_CONTEXT_NAME = lazy(r"conversation|history|chat|messages?|transcript|context|dialog|thread|prompt", re.I)


def _parameters(kind: str, d: dict[str, Any]) -> list[tuple[str, Any]]:
    """(name, its schema) of each parameter of a tool, (name, the argument) of each of a prompt's."""
    if kind == "prompt":
        return [(a["name"], a) for a in _arguments(d)]
    return list(_object(_object(d.get("inputSchema")).get("properties")).items())


def _described(kind: str, d: Any) -> dict[str, str]:
    """Parameter (tool) or argument (prompt) name -> its description."""
    if not isinstance(d, dict):
        return {}
    out: dict[str, str] = {}
    for name, spec in _parameters(kind, d):
        description = _description(spec)
        if description is not None:
            out[name] = description
    return out


def context_findings(kind: str, new: Any, old: Any = None) -> list[LintFinding]:
    """``context-parameter`` (high): a parameter (or prompt argument) whose description asks the
    model to fill it with the whole conversation, its history or the system prompt while its name
    says nothing of the kind — structure contradicting text, the shape of a quiet exfiltration.
    Only descriptions that are new or changed count."""
    if kind not in ("tool", "prompt"):
        return []
    before = _described(kind, old)
    out = []
    for name, description in _described(kind, new).items():
        if before.get(name) == description or _CONTEXT_NAME.search(name):
            continue
        from mcplock.lint.aspects import asks_for_context

        hit = asks_for_context(clean(description))
        if hit:
            where = _where(kind, name)
            out.append(
                LintFinding(
                    "context-parameter",
                    HIGH,
                    f"parameter `{name}` asks to be filled with {hit}, "
                    "data its name does not describe: the model would send the conversation to this "
                    "server",
                    where,
                )
            )
    return out
