"""Gateway answers as the commands take them: validated into views, failures as one clear line."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

import click
from pydantic import BaseModel

M = TypeVar("M", bound=BaseModel)

if TYPE_CHECKING:
    from trustgraph_base.schema.explain import ExplainResponse
    from trustgraph_cli.client import GatewayClient

# A malformed id is answered "bad-request" by the store: to a user it is just not there.
NOT_FOUND_TYPES = {"not-found", "bad-request"}


class NotFound(click.ClickException):
    """The id is unknown or malformed (the message names it and the scope)."""


async def call_explain(
    client: GatewayClient, request: dict[str, Any], missing: str, what: str
) -> ExplainResponse:
    """Send ``request`` to the explain service and validate the answer.

    ``missing`` is the error shown when the id is unknown or malformed; ``what`` names the
    view in the message shown if the gateway's answer does not validate.
    """
    from trustgraph_base.errors import ServiceError
    from trustgraph_base.schema.explain import ExplainResponse

    try:
        data = await client.request("explain", request)
    except ServiceError as exc:
        if exc.type in NOT_FOUND_TYPES:
            raise NotFound(missing) from None
        raise
    return validated(ExplainResponse, data, what)


def validated(model: type[M], data: dict[str, Any], what: str) -> M:
    """The gateway's answer as ``model``; one line naming ``what`` if it does not validate."""
    from trustgraph_base.errors import WireError
    from trustgraph_base.wire import from_json

    try:
        return from_json(model, data, tolerant=True)
    except WireError as exc:
        raise click.ClickException(
            f"the gateway sent {what} that does not validate ({exc})."
        ) from None
