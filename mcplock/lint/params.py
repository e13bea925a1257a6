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
from mcplock.severity import HIGH

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


def _required(kind: str, d: Any) -> dict[str, Any]:
    """Required parameter name -> its schema (a tool) or argument (a prompt)."""
    if not isinstance(d, dict):
        return {}
    if kind == "prompt":
        return {a["name"]: a for a in _arguments(d) if a.get("required") is True}
    schema = d.get("inputSchema")
    if not isinstance(schema, dict) or not isinstance(schema.get("required"), list):
        return {}
    props = schema.get("properties")
    return {r: props.get(r) if isinstance(props, dict) else None for r in schema["required"] if isinstance(r, str)}


def credential_findings(kind: str, new: Any, old: Any = None) -> list[LintFinding]:
    """``credential-parameter`` findings: required parameters of ``new`` that ``old`` did not require."""
    if kind not in ("tool", "prompt"):
        return []
    before = _required(kind, old)
    out = []
    for name, spec in _required(kind, new).items():
        if name in before:
            continue
        why = asks_for_credential(name, spec.get("description") if isinstance(spec, dict) else None)
        if why:
            where = f"arguments.{name}" if kind == "prompt" else f"inputSchema.properties.{name}"
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


def _described(kind: str, d: Any) -> dict[str, str]:
    """Parameter (tool) or argument (prompt) name -> its description."""
    if not isinstance(d, dict):
        return {}
    if kind == "prompt":
        return {a["name"]: a["description"] for a in _arguments(d) if isinstance(a.get("description"), str)}
    schema = d.get("inputSchema")
    props = schema.get("properties") if isinstance(schema, dict) else None
    return (
        {k: v["description"] for k, v in props.items() if isinstance(v, dict) and isinstance(v.get("description"), str)}
        if isinstance(props, dict)
        else {}
    )


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
        from mcplock.lint.intent import asks_for_context

        hit = asks_for_context(clean(description))
        if hit:
            where = f"arguments.{name}" if kind == "prompt" else f"inputSchema.properties.{name}"
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
