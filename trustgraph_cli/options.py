"""The flag and format vocabulary every command shares, declared once (docs/commands.md).

Gateway URL, token, user, collection, ``-v/--verbose`` and ``--debug`` come from
``gateway_options``; ``-l/--limit``, ``-g/--graph``, ``-q/--question``, ``-x/--explainable``
and ``--format`` from the helpers in ``flags`` (re-exported here), so each flag means one
thing everywhere. Usage errors print one line and exit 2 (``command``, ``trustgraph_base.usage``).

Kept free of heavy imports so that ``tg-... --help`` starts fast.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, NamedTuple, TypeVar

import click

from trustgraph_base.bounds import DEFAULT_COLLECTION, DEFAULT_USER
from trustgraph_base.usage import Command, UsageLine
from trustgraph_cli.flags import (
    FORMAT_ALIASES,
    FormatChoice,
    bounded_option,
    checked_url,
    cut_option,
    explainable_option,
    format_option,
    graph_option,
    limit_option,
    no_viewer_address,
    not_empty,
    question_option,
    window_options,
)
from trustgraph_cli.terminal import CliCommand, Interrupted

DEFAULT_URL = "http://localhost:8088/"

F = TypeVar("F", bound=Callable[..., Any])

__all__ = [
    "FORMAT_ALIASES",
    "Command",
    "FormatChoice",
    "Gateway",
    "UsageLine",
    "admin_options",
    "bounded_option",
    "command",
    "cut_option",
    "explainable_option",
    "format_option",
    "gateway_options",
    "graph_option",
    "limit_option",
    "no_viewer_address",
    "question_option",
    "run",
    "window_options",
]

API_KEY_PREFIX = "tg_"  # per-user API keys look like tg_<id>_<secret>


def command(**kwargs: Any) -> Callable[[Callable[..., Any]], click.Command]:
    """``@click.command`` for a ``tg-*`` command: one-line usage errors, guarded output
    (``terminal.CliCommand``)."""
    return click.command(cls=CliCommand, **kwargs)


class Gateway(NamedTuple):  # not a dataclass, to keep ``dataclasses`` out of start-up
    """Where and as whom a command talks to the gateway, and how much it says.

    ``user`` is None when ``-U`` was not given and the token is an API key: the gateway
    then acts as the key's user. ``user``/``collection`` are sent only when given
    (``named``), so the gateway's default (``trustgraph``, or the key's user) applies.
    """

    url: str
    token: str | None
    user: str | None
    collection: str
    debug: bool
    verbose: int = 0
    named: frozenset[str] = frozenset({"user", "collection"})


_api_url_option = click.option(
    "-u",
    "--api-url",
    envvar="TRUSTGRAPH_URL",
    default=DEFAULT_URL,
    show_default=True,
    help="Gateway URL, http(s)://HOST:PORT/ (env TRUSTGRAPH_URL).",
)
_debug_option = click.option("--debug", is_flag=True, help="Show the full traceback on errors.")


def _token_option(help_text: str) -> Callable[[F], F]:
    return click.option("-t", "--token", envvar="TRUSTGRAPH_TOKEN", default=None, help=help_text)


def gateway_options(fn: F) -> F:
    """Add ``-u/--api-url -t/--token -U/--user -C/--collection -v/--verbose --debug`` as ``gw``."""

    @_api_url_option
    @_token_option("Gateway token (env TRUSTGRAPH_TOKEN).")
    @click.option(
        "-U",
        "--user",
        default=DEFAULT_USER,
        show_default=True,
        callback=not_empty,
        help="User whose data to use (with an API key: the key's user, the default).",
    )
    @click.option(
        "-C",
        "--collection",
        default=DEFAULT_COLLECTION,
        show_default=True,
        callback=not_empty,
        help="Collection to use.",
    )
    @click.option(
        "-v",
        "--verbose",
        count=True,
        help="Say more on stderr: each gateway request (the agent: its thoughts; -vv adds requests).",
    )
    @_debug_option
    @functools.wraps(fn)
    @click.pass_context
    def wrapper(
        ctx: click.Context,
        /,
        *args: Any,
        api_url: str,
        token: str | None,
        user: str,
        collection: str,
        verbose: int,
        debug: bool,
        **kwargs: Any,
    ) -> Any:
        named = frozenset(
            name
            for name in ("user", "collection")
            if ctx.get_parameter_source(name) is not click.core.ParameterSource.DEFAULT
        )
        key_user = "user" not in named and (token or "").startswith(API_KEY_PREFIX)
        gw = Gateway(
            url=checked_url(api_url),
            token=token or None,
            user=None if key_user else user,
            collection=collection,
            debug=debug,
            verbose=verbose,
            named=named,
        )
        return fn(*args, gw=gw, **kwargs)

    return wrapper  # type: ignore[return-value]


def admin_options(fn: F) -> F:
    """Add ``-u/--api-url -t/--token -v/--verbose --debug`` (key management: no user or collection)."""

    @_api_url_option
    @_token_option("The gateway's admin token (env TRUSTGRAPH_TOKEN).")
    @click.option("-v", "--verbose", count=True, help="Say more on stderr: each gateway request.")
    @_debug_option
    @functools.wraps(fn)
    def wrapper(
        *args: Any, api_url: str, token: str | None, verbose: int, debug: bool, **kwargs: Any
    ) -> Any:
        gw = Gateway(
            url=checked_url(api_url),
            token=token or None,
            user=None,
            collection="",
            debug=debug,
            verbose=verbose,
            named=frozenset(),
        )
        return fn(*args, gw=gw, **kwargs)

    return wrapper  # type: ignore[return-value]


def run(
    gw: Gateway,
    main: Callable[[], Any],
    *,
    interrupted: str = "Interrupted.",
    trace: Callable[[], str] | None = None,
) -> Any:
    """Run a command's coroutine function, mapping failures to one-line errors (exit 1).

    With ``--debug`` the original traceback is shown instead. Ctrl-C prints ``interrupted``
    (what the command left behind) and exits 130. ``trace`` (a question's command): the trace
    id the answer streamed so far named ("" if none), given with a lost connection's error.
    """
    import asyncio

    from trustgraph_cli.errors import question_lost, to_click_error

    try:
        return asyncio.run(main())
    except (click.ClickException, BrokenPipeError):
        raise  # a closed pipe (``| head``): click ends the command quietly
    except KeyboardInterrupt:
        raise Interrupted(interrupted) from None
    except Exception as exc:
        if gw.debug:
            raise
        error = to_click_error(exc, gw.url)
        if trace is not None and (lost := question_lost(exc, trace())):
            raise click.ClickException(f"{error.message}; {lost}") from None
        raise error from None
