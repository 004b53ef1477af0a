"""Writing rendered output: colour kept only when the style asked for it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import click

from trustgraph_cli.render.jsonout import dumps
from trustgraph_cli.render.style import Style


def emit(text: str, style: Style) -> None:
    """Print ``text``; ANSI codes are stripped unless colour is on."""
    click.echo(text, color=style.color)


def emit_rows(
    headers: Sequence[str],
    rows: Sequence[Sequence[str]],
    fmt: str,
    style: Style,
    *,
    flex: int | None = None,
    empty: str = "",
) -> None:
    """A list as a table (``empty`` when there are no rows), or with ``fmt`` ``csv`` as CSV:
    the table's columns with every cell whole, a header row even when there are none."""
    if fmt == "csv":
        from trustgraph_base.rdf.results import results_csv
        from trustgraph_cli.render.text import safe

        # Each cell escaped as the table's are: a colour code in stored text (a question
        # holding ESC [ 31 m) would otherwise pass as the command's own, painting a terminal
        # and, piped, dropped from the cell with the colours.
        named = [dict(zip(headers, row, strict=True)) for row in rows]
        click.echo(results_csv(list(headers), named, safe), nl=False)
        return
    if not rows:
        emit(empty, style)
        return
    from trustgraph_cli.render.table import render_table

    emit("\n".join(render_table(headers, rows, style, flex=flex)), style)


def emit_json(value: Any) -> None:
    """Print a JSON document (indented, key order kept)."""
    click.echo(dumps(value))


def scope_text(user: str | None, collection: str) -> str:
    """``collection 'c' of user 'u'``, as every not-found message names the scope.

    ``user`` None: the user of the API key the command ran with.
    """
    owner = f"user {user!r}" if user is not None else "this API key's user"
    return f"collection {collection!r} of {owner}"
