"""Writing rendered output: colour kept only when the style asked for it."""

from __future__ import annotations

from typing import Any

import click

from trustgraph_cli.render.jsonout import dumps
from trustgraph_cli.render.style import Style


def emit(text: str, style: Style) -> None:
    """Print ``text``; ANSI codes are stripped unless colour is on."""
    click.echo(text, color=style.color)


def emit_json(value: Any) -> None:
    """Print a JSON document (indented, key order kept)."""
    click.echo(dumps(value))


def scope_text(user: str | None, collection: str) -> str:
    """``collection 'c' of user 'u'``, as every not-found message names the scope.

    ``user`` None: the user of the API key the command ran with.
    """
    owner = f"user {user!r}" if user is not None else "this API key's user"
    return f"collection {collection!r} of {owner}"
