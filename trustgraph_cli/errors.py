"""One mapping from failures to the one-line messages users see (exit 1)."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

import click

from trustgraph_base.errors import ErrorType, ServiceError, TrustGraphError

# The gateway's (or a service's) error answers are raised as ``ServiceError``.


class AuthError(ServiceError):
    """The gateway refused the request: a wrong token, or none where one is required."""

    def __init__(self, detail: str, *, token_sent: bool = True) -> None:
        super().__init__(ErrorType.UNAUTHORIZED, detail)
        self.token_sent = token_sent

    @classmethod
    def from_answer(
        cls, status: int, headers: Mapping[str, str] | None, *, token_sent: bool
    ) -> AuthError:
        """The refusal a 401/403 answer carries: what became of a revoked or expired key, from
        the ``WWW-Authenticate`` header (RFC 6750 ``error_description``), else the status."""
        found = DESCRIPTION.search((headers or {}).get("WWW-Authenticate", ""))
        said = found.group(1) if found else ""
        # The generic refusal adds nothing to the line's own "pass the right one": the status.
        return cls(said if said.startswith(LAPSED) else f"HTTP {status}", token_sent=token_sent)

    @property
    def lapsed(self) -> bool:
        """Whether the gateway said what became of this very key (revoked, expired): no typo."""
        return self.message.startswith(LAPSED)


LAPSED = "this API key "  # how the gateway begins what it tells a revoked or expired key's holder
DESCRIPTION = re.compile(r'error_description="([^"]*)"')


class NotAGateway(TrustGraphError):
    """A URL under ``--api-url`` answered 404: the URL is not the gateway's root."""

    def __init__(self, tried: str, status: int) -> None:
        super().__init__(f"HTTP {status} from {tried}")
        self.tried = tried
        self.status = status


def root_of(url: str) -> str:
    """``scheme://host:port/`` of ``url``: what --api-url should usually be."""
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}/"


def to_click_error(exc: BaseException, url: str) -> click.ClickException:
    """Translate any failure into ``Error: what failed, the value, the next step``."""
    import aiohttp

    if isinstance(exc, AuthError) and not exc.token_sent:
        return click.ClickException(
            f"the gateway at {url} requires a token ({exc.message}) and none was given. Pass it with "
            "--token or TRUSTGRAPH_TOKEN."
        )
    if isinstance(exc, AuthError) and exc.lapsed:
        return click.ClickException(f"the gateway at {url} refused the token: {exc.message}.")
    if isinstance(exc, AuthError):
        return click.ClickException(
            f"the gateway at {url} refused the token ({exc.message}). Pass the right one with --token "
            "or TRUSTGRAPH_TOKEN."
        )
    if isinstance(exc, NotAGateway):
        return click.ClickException(
            f"no gateway API at {url}: {exc.tried} answered HTTP {exc.status}. Pass the "
            f"gateway's root as --api-url, e.g. {root_of(url)}"
        )
    from trustgraph_cli.render.text import safe

    if isinstance(exc, ServiceError) and exc.type == ErrorType.UNKNOWN_SERVICE and "/api/" in url:
        # A gateway answered, for the path --api-url's own path made: its root was meant.
        root = url[: url.index("/api/") + 1]
        return click.ClickException(
            f"no gateway API at {url}: the gateway there answered that it offers no such "
            f"path. Pass the gateway's root as --api-url, e.g. {root}"
        )
    if isinstance(exc, ServiceError):
        return click.ClickException(safe(f"{exc.message} [{exc.type}]"))
    if isinstance(exc, aiohttp.ClientSSLError):
        return click.ClickException(f"cannot reach gateway at {url} ({tls_reason(exc, url)}).")
    if isinstance(exc, aiohttp.ClientConnectorDNSError):
        host = getattr(exc, "host", "") or url
        why = getattr(exc.os_error, "strerror", None) or "name not resolved"
        return click.ClickException(
            f"cannot reach gateway at {url} (unknown host {host!r}: {why.lower()}). "
            "Check the host name in --api-url."
        )
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


def cut_off(exc: BaseException) -> bool:
    """Whether ``exc`` is the connection to the gateway lost (not an answer from it): a
    question asked may still be answered, and its trace recorded, on the server."""
    import aiohttp

    if isinstance(exc, ServiceError):
        return exc.type == ErrorType.CONNECTION_CLOSED
    return isinstance(exc, aiohttp.ClientError | ConnectionError | TimeoutError)


def question_lost(exc: BaseException, seen: str) -> str | None:
    """What to say of a question whose connection was lost once sent (``seen``: the trace id
    streamed so far, or ""): it is not asked again, as it may have run. None otherwise."""
    import aiohttp

    if not cut_off(exc) or isinstance(exc, aiohttp.ClientConnectorError | ConnectionRefusedError):
        return None  # an answer from the gateway, or a connection never made: nothing sent
    see = f"tg-show-explain-trace {seen}" if seen else "see tg-list-explain-traces"
    return f"not asked again, as the answer may have completed: {see}"


def tls_reason(exc: BaseException, url: str) -> str:
    """Why TLS failed, in words, with the likely fix (an https:// URL on a plain gateway)."""
    cause = getattr(exc, "os_error", None) or exc.__cause__ or exc
    reason = getattr(cause, "reason", None) or type(cause).__name__
    if reason == "WRONG_VERSION_NUMBER" and url.startswith("https://"):
        plain = "http://" + url.removeprefix("https://")
        return (
            f"TLS failed: SSL {reason}, the server does not speak TLS there; "
            f"a plain gateway takes --api-url {plain}"
        )
    return f"TLS failed: SSL {reason}"
