"""The options every command shares, declared once: gateway URL, token, user, collection, debug.

Kept free of heavy imports so that ``tg-... --help`` starts fast.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import click

DEFAULT_URL = "http://localhost:8088/"

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class Gateway:
    """Where and as whom a command talks to the gateway."""

    url: str
    token: str | None
    user: str
    collection: str
    debug: bool


def gateway_options(fn: F) -> F:
    """Add ``-u/--api-url -t/--token -U/--user -C/--collection --debug``; pass them as ``gw``."""

    @click.option(
        "-u",
        "--api-url",
        envvar="TRUSTGRAPH_URL",
        default=DEFAULT_URL,
        show_default=True,
        help="Gateway URL (env TRUSTGRAPH_URL).",
    )
    @click.option(
        "-t",
        "--token",
        envvar="TRUSTGRAPH_TOKEN",
        default=None,
        help="Gateway token (env TRUSTGRAPH_TOKEN).",
    )
    @click.option(
        "-U", "--user", default="trustgraph", show_default=True, help="User whose data to use."
    )
    @click.option(
        "-C", "--collection", default="default", show_default=True, help="Collection to use."
    )
    @click.option("--debug", is_flag=True, help="Show the full traceback on errors.")
    @functools.wraps(fn)
    def wrapper(
        *args: Any,
        api_url: str,
        token: str | None,
        user: str,
        collection: str,
        debug: bool,
        **kwargs: Any,
    ) -> Any:
        gw = Gateway(
            url=api_url, token=token or None, user=user, collection=collection, debug=debug
        )
        return fn(*args, gw=gw, **kwargs)

    return wrapper  # type: ignore[return-value]


def run(gw: Gateway, main: Callable[[], Any]) -> Any:
    """Run a command's coroutine function, mapping failures to one-line errors (exit 1).

    With ``--debug`` the original traceback is shown instead.
    """
    import asyncio

    from trustgraph_cli.errors import to_click_error

    try:
        return asyncio.run(main())
    except click.ClickException:
        raise
    except KeyboardInterrupt:
        raise click.Abort() from None
    except Exception as exc:
        if gw.debug:
            raise
        raise to_click_error(exc, gw.url) from None
