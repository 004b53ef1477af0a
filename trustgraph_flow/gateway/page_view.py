"""``POST /api/v1/page-image``: a PDF page drawn server-side, the cited characters highlighted.

Body: ``{"page": "{doc}/p{n}", "chars": [[offset, length], …], "scale": 1.5}`` (and
``user``/``collection`` as for any call). The document's bytes and the page's layout come
from the librarian through the same key check and scoping as ``/api/v1/librarian`` (a page
another user or collection holds is not found); the page is drawn by PDFium, the
characters' boxes tinted, and the PNG kept in a small cache (the same page and marks are
drawn once). A page that is not of a PDF, a range past the page's end, a page number past
the document's, are refused with the reason.
"""

from __future__ import annotations

import asyncio
import base64
import re
from collections import OrderedDict
from typing import Any

from aiohttp import web

from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.layout import Box, PageLayout, layout_uri
from trustgraph_base.messaging import LIBRARIAN
from trustgraph_flow.gateway.auth import Principal, authenticate
from trustgraph_flow.gateway.body import json_body
from trustgraph_flow.gateway.dispatch import DISPATCHER, Dispatcher, as_failure
from trustgraph_flow.gateway.failure import rest_response
from trustgraph_flow.page_image import render_page
from trustgraph_flow.pdf_text import PdfError

PAGE = re.compile(r"(.+)/p([1-9][0-9]{0,5})")  # the shape of a page URI, {doc}/p{n}
PIECE = 2 * 1024 * 1024  # bytes per librarian get-content
CACHED = 32  # images kept
_cache: OrderedDict[tuple[Any, ...], bytes] = OrderedDict()


async def _librarian(
    dispatcher: Dispatcher, principal: Principal, scope: dict[str, Any], request: dict[str, Any]
) -> dict[str, Any]:
    spec, req = dispatcher.parse(LIBRARIAN.name, {**request, **scope}, principal)
    final: dict[str, Any] = {}
    async for body, _last in dispatcher.stream(spec, req):
        final = body
    return final


def _marks(layout: PageLayout, chars: Any) -> list[Box]:
    if not isinstance(chars, list) or len(chars) > 100:
        raise ServiceError(ErrorType.BAD_REQUEST, "chars must be a list of [offset, length]")
    boxes: list[Box] = []
    for item in chars:
        if not (isinstance(item, list) and len(item) == 2 and all(type(v) is int for v in item)):
            raise ServiceError(ErrorType.BAD_REQUEST, f"bad character range {item!r}")
        try:
            boxes += layout.span_boxes(item[0], item[1])
        except ValueError as exc:
            raise ServiceError(ErrorType.BAD_REQUEST, str(exc)) from None
    return boxes


async def page_image(request: web.Request) -> bytes:
    """The PNG the request asks for (``ServiceError`` saying why not)."""
    dispatcher = request.app[DISPATCHER]
    principal = authenticate(request)
    body = await json_body(request)
    page = body.get("page") if isinstance(body, dict) else None
    match = PAGE.fullmatch(page) if isinstance(page, str) else None
    if match is None or not isinstance(page, str):
        raise ServiceError(
            ErrorType.BAD_REQUEST, f"page must be a page URI {{doc}}/p{{n}}, not {page!r}"
        )
    doc, number = match.group(1), int(match.group(2))
    scope = {k: body[k] for k in ("user", "collection") if k in body}
    scale = body.get("scale", 1.5)
    if not isinstance(scale, (int, float)) or not 0.25 <= scale <= 4:
        raise ServiceError(ErrorType.BAD_REQUEST, "scale must be between 0.25 and 4")

    async def lib(req: dict[str, Any]) -> dict[str, Any]:
        return await _librarian(dispatcher, principal, scope, req)

    info = (await lib({"operation": "get-document", "document-id": doc})).get("document") or {}
    if info.get("mime_type") != "application/pdf":
        raise ServiceError(ErrorType.BAD_REQUEST, f"{page!r} is not a page of a PDF")
    if number > int(info.get("pages") or 0):
        raise ServiceError(
            ErrorType.NOT_FOUND, f"{doc!r} has {info.get('pages') or 0} pages: no page {number}"
        )
    kept = ""  # read in ranges: a long page's layout is more than one reply holds
    while True:
        raw = await lib({"operation": "get-content", "id": layout_uri(page), "offset": len(kept)})
        more = base64.b64decode(raw.get("content", "")).decode()
        kept += more
        if not more or len(kept) >= int(raw.get("total") or 0):
            break
    layout = PageLayout.from_json(kept)
    marks = _marks(layout, body.get("chars", []))
    key = (principal.user, str(scope), page, info.get("size"), info.get("time"), str(marks), scale)
    if key in _cache:
        _cache.move_to_end(key)
        return _cache[key]
    data = bytearray()
    while len(data) < int(info.get("size") or 0):
        part = await lib(
            {"operation": "get-content", "id": doc, "offset": len(data), "length": PIECE}
        )
        piece = base64.b64decode(part.get("content", ""))
        if not piece:
            break
        data += piece
    try:
        image = await asyncio.to_thread(render_page, bytes(data), number, float(scale), marks)
    except PdfError as exc:
        raise ServiceError(ErrorType.BAD_REQUEST, f"{page!r}: {exc}") from None
    _cache[key] = image
    while len(_cache) > CACHED:
        _cache.popitem(last=False)
    return image


async def page_image_handler(request: web.Request) -> web.Response:
    try:
        image = await page_image(request)
    except Exception as exc:
        return rest_response(as_failure(exc))
    return web.Response(body=image, content_type="image/png", headers={"Cache-Control": "no-store"})
