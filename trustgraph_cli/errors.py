"""One mapping from failures to the one-line messages users see (exit 1)."""

from __future__ import annotations

import os

import click


class GatewayError(Exception):
    """The gateway (or a service behind it) answered with an error."""

    def __init__(self, type: str, message: str) -> None:
        super().__init__(f"{type}: {message}")
        self.type = type
        self.message = message


class AuthError(Exception):
    """The gateway refused the token."""


def to_click_error(exc: BaseException, url: str) -> click.ClickException:
    """Translate any failure into ``Error: what failed, the value, the next step``."""
    import aiohttp

    if isinstance(exc, AuthError):
        return click.ClickException(
            f"the gateway at {url} refused the token ({exc}). Pass the right one with --token "
            "or TRUSTGRAPH_TOKEN."
        )
    from trustgraph_cli.render.text import safe

    if isinstance(exc, GatewayError):
        return click.ClickException(safe(f"{exc.message} [{exc.type}]"))
    if isinstance(exc, aiohttp.ClientConnectorError | ConnectionRefusedError):
        reason = getattr(exc, "os_error", None) or exc
        # aiohttp's own strerror ("Connect call failed (...)") hides the cause; errno names it.
        code = getattr(reason, "errno", None)
        text = os.strerror(code) if code else getattr(reason, "strerror", None) or str(reason)
        return click.ClickException(
            f"cannot reach gateway at {url} ({text.lower()}). Start it with 'tg-start', or pass --api-url."
        )
    if isinstance(exc, aiohttp.InvalidURL | ValueError) and "URL" in type(exc).__name__ + str(exc):
        return click.ClickException(f"bad gateway URL {url!r}. Pass --api-url http://HOST:PORT/.")
    if isinstance(exc, TimeoutError):
        return click.ClickException(
            f"the gateway at {url} did not answer in time. Try again, or raise --timeout."
        )
    if isinstance(exc, aiohttp.ClientError):
        return click.ClickException(f"talking to the gateway at {url} failed: {exc}")
    return click.ClickException(f"{type(exc).__name__}: {exc} (run with --debug for details)")
