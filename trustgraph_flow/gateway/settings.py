"""The gateway's settings (flags ``--kebab-case`` > env ``TG_*`` > defaults) and where it binds."""

from __future__ import annotations

import logging
import os

from aiohttp import web

from trustgraph_base.settings import ProcessorSettings

log = logging.getLogger("trustgraph_flow.gateway")


class GatewaySettings(ProcessorSettings):
    """Flags ``--kebab-case`` > env ``TG_*`` > these defaults."""

    port: int = 8088
    """Port to listen on."""
    host: str = ""
    """Interface to listen on (empty: 127.0.0.1; another interface only when given)."""
    token: str = ""
    """The admin token (also TG_GATEWAY_TOKEN or TRUSTGRAPH_TOKEN); empty: no token."""
    api_keys: str = ""
    """The API key file (empty: <data-dir>/gateway/api-keys.json)."""
    # Pulsar refuses messages over 5 MB: a larger request could never be forwarded.
    max_frame_bytes: int = 4 * 2**20
    """Largest WebSocket frame or REST body accepted, in bytes."""
    max_outstanding: int = 64
    """Most requests one WebSocket may have in flight at once."""
    http_timeout: float = 15.0
    """Seconds for a request's headers (else the connection closes) or body (else 408)."""
    cors_origins: str = ""
    """Origins (comma-separated, or *) whose pages may query the SPARQL endpoints (empty: none)."""
    health_file: str = ""
    """tg-start's state file of its processes, reported by /api/v1/health (empty: none)."""


SETTINGS = web.AppKey("settings", GatewaySettings)


def effective_token(settings: GatewaySettings) -> str | None:
    """The configured token: setting/TG_TOKEN, else TG_GATEWAY_TOKEN, else TRUSTGRAPH_TOKEN."""
    for value in (
        settings.token,
        os.environ.get("TG_GATEWAY_TOKEN", ""),
        os.environ.get("TRUSTGRAPH_TOKEN", ""),
    ):
        if value:
            return value
    return None


def bind_host(settings: GatewaySettings, token: str | None) -> str:
    """Loopback unless told otherwise; an open gateway on another interface is warned about."""
    if not settings.host:
        return "127.0.0.1"
    if not token and settings.host not in ("127.0.0.1", "localhost", "::1"):
        log.warning(
            "listening on %s with no token: anyone who can reach it can use it", settings.host
        )
    return settings.host
