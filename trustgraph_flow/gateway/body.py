"""Reading a REST request's JSON body: bounded in time, depth errors answered, never a 500."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from aiohttp import web

from trustgraph_base.errors import ErrorType, ServiceError

HTTP_TIMEOUT = web.AppKey("http_timeout", float)  # seconds a client may take to send a body


async def read_body(request: web.Request) -> bytes:
    """The whole body, or ``request-timeout`` if the client stops sending it."""
    limit = request.app[HTTP_TIMEOUT]
    try:
        return await asyncio.wait_for(request.read(), limit)
    except TimeoutError:
        raise ServiceError(
            ErrorType.REQUEST_TIMEOUT, f"the request body did not arrive within {limit:g} s"
        ) from None


def parse_body(body: bytes) -> Any:
    """A JSON body; ``bad-frame`` if malformed or nested too deeply."""
    try:
        return json.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ServiceError(ErrorType.BAD_FRAME, f"malformed JSON body: {exc}") from None
    except RecursionError:
        raise ServiceError(ErrorType.BAD_FRAME, "malformed JSON body: nested too deeply") from None


async def json_body(request: web.Request) -> Any:
    return parse_body(await read_body(request))
