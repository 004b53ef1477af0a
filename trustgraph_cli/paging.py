"""Explain operations answered a page at a time: each page asked with the cursor the one
before named, until a page names none."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from trustgraph_base.schema.explain import ExplainResponse
    from trustgraph_cli.client import GatewayClient


async def pages(
    client: GatewayClient, request: dict[str, Any], first: str | None, what: str
) -> AsyncIterator[ExplainResponse]:
    """Each page of the cursor-paged explain ``request`` (the first asked with cursor
    ``first``, or with none when None) until one names no next; ``what`` names the pages in
    messages ("the log"). A store that names a cursor it named before (a page sent again:
    a loop without end) is stopped in one line."""
    from trustgraph_cli.responses import call_explain

    cursor, seen = first, dict[str, int]()  # each cursor named: the page it asks for
    while True:
        asked = request if cursor is None else {**request, "cursor": cursor}
        resp = await call_explain(client, asked, None, f"a page of {what}")
        yield resp
        if not resp.cursor:
            return
        if resp.cursor in seen:
            raise click.ClickException(
                f"the store sent {what}'s page {seen[resp.cursor]} again: stopped (a store "
                "that names a page it sent as the next would never end)"
            )
        seen[resp.cursor] = len(seen) + 2
        cursor = resp.cursor
