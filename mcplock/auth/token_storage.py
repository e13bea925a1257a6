"""The MCP SDK's ``TokenStorage`` over mcplock's token store (one entry per server URL): the
tokens with their absolute expiry, the registered client, and what the flow discovered (the
authorization server's and the resource's metadata), so a later process can refresh."""

from __future__ import annotations

import time
from typing import Any

from mcp.client.auth import OAuthClientProvider
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from pydantic import ValidationError

from mcplock.auth.store import TokenStore


class FileTokenStorage:
    """The SDK's ``TokenStorage`` protocol over the token store (one file per server URL)."""

    def __init__(self, store: TokenStore, url: str, method: str) -> None:
        self.store = store
        self.url = url
        self.method = method
        self.provider: OAuthClientProvider | None = None  # set by the provider, for its metadata

    def load(self) -> dict[str, Any]:
        """Reads the token store: this URL's entry (empty when there is none)."""
        return self.store.load(self.url) or {}

    async def get_tokens(self) -> OAuthToken | None:
        t = self.load().get("tokens")
        if not isinstance(t, dict):
            return None
        try:
            return OAuthToken.model_validate(t)
        except ValidationError:
            return None

    async def set_tokens(self, tokens: OAuthToken) -> None:
        fields: dict[str, Any] = {
            "method": self.method,
            "tokens": tokens.model_dump(mode="json", exclude_none=True),
            "expires_at": (time.time() + tokens.expires_in) if tokens.expires_in else None,
            "obtained_at": int(time.time()),
        }
        ctx = self.provider.context if self.provider is not None else None
        if ctx is not None:
            if ctx.oauth_metadata is not None:
                fields["oauth_metadata"] = ctx.oauth_metadata.model_dump(mode="json", exclude_none=True)
            if ctx.protected_resource_metadata is not None:
                fields["protected_resource_metadata"] = ctx.protected_resource_metadata.model_dump(
                    mode="json", exclude_none=True
                )
            if ctx.auth_server_url:
                fields["auth_server_url"] = ctx.auth_server_url
        self.store.update(self.url, **fields)

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        c = self.load().get("client_info")
        if not isinstance(c, dict):
            return None
        try:
            return OAuthClientInformationFull.model_validate(c)
        except ValidationError:
            return None

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.store.update(self.url, client_info=client_info.model_dump(mode="json", exclude_none=True))
