"""The flags commands share beside the gateway's: ``--format``, ``-l/--limit``, bounded
integers, ``-g/--graph``, ``-q/--question``, ``-x/--explainable`` (re-exported by ``options``),
and the gateway URL's check (``checked_url``, for ``-u/--api-url``).

Click-only, so that a command's ``--help`` stays fast.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

import click

from trustgraph_base.bounds import QUESTION_MAX, Bound

F = TypeVar("F", bound=Callable[..., Any])

# The one set of format names. Old names stay accepted where a command used them.
FORMAT_ALIASES: Mapping[str, str] = {"tree": "text", "space": "text"}


class FormatChoice(click.Choice):  # type: ignore[type-arg]
    """The command's format names; an old name (``tree``, ``space``) means its new one."""

    def __init__(self, choices: Iterable[str], aliases: Mapping[str, str] = FORMAT_ALIASES) -> None:
        names = list(choices)
        super().__init__(names)
        self.aliases = {old: new for old, new in aliases.items() if new in names}

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str):
            value = self.aliases.get(value.lower(), value)
        return super().convert(value, param, ctx)


def format_option(*choices: str, help: str) -> Callable[[F], F]:
    """``--format`` over ``choices`` (the first is the default), passed as ``fmt``."""
    return click.option(
        "--format",
        "fmt",
        type=FormatChoice(choices),
        default=choices[0],
        show_default=True,
        help=help,
    )


_PRINTED = Bound(None, 1, 1_000_000)  # a limit the command applies itself


def limit_option(
    what: str, *, bound: Bound = _PRINTED, default: int | None = None
) -> Callable[[F], F]:
    """``-l/--limit N``: the most results a command prints; ``bound`` when the service
    takes the limit (its schema's range and default, unless ``default`` says otherwise)."""
    return click.option(
        "-l",
        "--limit",
        type=click.IntRange(bound.low, bound.high),
        default=bound.default if default is None else default,
        show_default=True,
        help=f"Show at most this many {what}.",
    )


def bounded_option(flag: str, bound: Bound, help: str) -> Callable[[F], F]:
    """An integer flag with the range and default its request field has (``bounds``)."""
    return click.option(
        flag,
        type=click.IntRange(bound.low, bound.high),
        default=bound.default,
        show_default=bound.default is not None,
        help=help,
    )


def cut_option(flag: str, default: int, what: str) -> Callable[[F], F]:
    """A flag that cuts ``what`` longer than N characters in text output (0: never)."""
    return click.option(
        flag,
        type=click.IntRange(min=0),
        default=default,
        show_default=True,
        help=f"Cut {what} longer than this many characters (0: never).",
    )


def window_options(what: str) -> Callable[[F], F]:
    """``--since T`` / ``--until T`` (xsd:dateTime): ``what`` (e.g. "Traces started") at or
    after the one and before the other; a window that ends before it starts is refused by
    the store, in one line."""

    def add(fn: F) -> F:
        fn = click.option("--until", default=None, help=f"{what} before this xsd:dateTime.")(fn)
        since = click.option("--since", default=None, help=f"{what} at or after this xsd:dateTime.")
        return since(fn)

    return add


def graph_option(fn: F) -> F:
    """``-g/--graph IRI``: one named graph ('' the default graph); always a graph, never a group."""
    return click.option(
        "-g", "--graph", default=None, help="Named graph IRI; '' means the default graph."
    )(fn)


def question_option(fn: F) -> F:
    """``-q/--question TEXT`` (required): not empty, and no longer than the gateway takes."""
    return click.option(
        "-q", "--question", required=True, callback=_question, help="The question to ask."
    )(fn)


def _question(ctx: click.Context, param: click.Parameter, value: str) -> str:
    if not value.strip():
        raise click.BadParameter("the question is empty")
    if len(value) > QUESTION_MAX:
        raise click.BadParameter(
            f"{len(value):,} characters, more than the {QUESTION_MAX:,} a question may have"
        )
    return value


def explainable_option(fn: F) -> F:
    """``-x/--explainable``: show each trace entity as it is published."""
    return click.option(
        "-x",
        "--explainable",
        is_flag=True,
        help="Show each trace entity as it is published (stderr).",
    )(fn)


def not_empty(ctx: click.Context, param: click.Parameter, value: str) -> str:
    """``-U``/``-C``: a name, never empty (an unset variable in a script: ``-C "$COLL"``)."""
    if value.strip():
        return value
    what = {"user": "a user", "collection": "a collection (tg-list-collections lists them)"}
    raise click.BadParameter(f"empty: name {what.get(param.name or '', 'one')}")


# The trace viewer's pages, as its address names them: '…/?collection=C#/trace/<id>?node=…'.
VIEWER_ROUTES = ("trace", "document")


def no_viewer_address(ctx: click.Context, param: click.Parameter, value: str) -> str:
    """An id argument: the viewer's address of a trace or document (copied from the browser)
    is a usage error that names the id in it and its -U/-C, not an id the store lacks."""
    base, sep, route = value.partition("#/")
    kind, _, rest = route.partition("/")
    if not (sep and base.startswith(("http://", "https://")) and kind in VIEWER_ROUTES and rest):
        return value
    from urllib.parse import parse_qs, unquote, urlsplit

    named = unquote(rest.partition("?")[0])
    scope = parse_qs(urlsplit(base).query)
    pairs = (("user", "U"), ("collection", "C"))
    given = [f"-{flag} {scope[key][0]!r}" for key, flag in pairs if key in scope]
    where = f" with {' '.join(given)}" if given else ""
    raise click.BadParameter(
        f"{value!r} is the trace viewer's address of a {kind}: pass its id, {named!r}{where}"
    )


def checked_url(url: str) -> str:
    """``url`` if it is an http(s) URL with a host; else a usage error naming it and the fix."""
    from urllib.parse import urlsplit

    hint = "'-u' / '--api-url'"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018  (raises ValueError for a port out of range)
    except ValueError as exc:
        raise click.BadParameter(f"{url!r} is not a URL ({exc}).", param_hint=hint) from None
    if "://" not in url:
        raise click.BadParameter(
            f"{url!r} has no scheme: write http://{url.strip('/')}/", param_hint=hint
        )
    if parts.scheme not in ("http", "https"):
        raise click.BadParameter(
            f"{url!r} uses {parts.scheme}://; the gateway speaks http:// (or https:// behind TLS).",
            param_hint=hint,
        )
    if not parts.hostname:
        raise click.BadParameter(f"{url!r} names no host.", param_hint=hint)
    return url
