"""A PDF page for the eye: its image drawn server-side, and where cited characters are on it.

- ``GET /api/v1/page-image?page={doc}/p{n}[&scale=1.5][&user=…][&collection=…]``: the page
  drawn by PDFium, unmarked — one image per page however many sentences are shown on it.
  It carries an ``ETag`` (the document's version, the page, the scale) and
  ``Cache-Control: private, no-cache``: a browser asks again with ``If-None-Match`` and gets
  ``304`` (after the same key check), nothing drawn or sent again.
- ``POST /api/v1/page-boxes`` ``{"page", "chars": [[offset, length], …]}``: for each range
  the rectangles of its characters (one per line run) in points on the page as shown (its
  rotation applied, origin top left) and the page's shown ``width``/``height``, so a viewer
  lays them over the image at any size. A page with no text layer answers
  ``text_layer: false`` and no boxes.
- ``POST /api/v1/page-image`` ``{"page", "chars", "scale"}``: the page drawn with the
  characters tinted in the image (for the command line and API users who want one picture).

The page is read through the librarian with the caller's key and scope (``page_source``):
a page another user or collection holds is not found. Drawn images are kept in a small
cache. A page not of a PDF, a range past the page's end, a page number past the
document's, are refused with the reason (the JSON error answer of every REST call).
"""

from __future__ import annotations

import asyncio
import hashlib
from collections import OrderedDict
from typing import Any

from aiohttp import web

from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.layout import Box, PageLayout
from trustgraph_flow.gateway.auth import authenticate
from trustgraph_flow.gateway.body import json_body
from trustgraph_flow.gateway.dispatch import DISPATCHER, as_failure
from trustgraph_flow.gateway.failure import rest_response
from trustgraph_flow.gateway.page_source import PageRef, layout, open_page, pdf_bytes
from trustgraph_flow.page_image import render_page
from trustgraph_flow.pdf_text import PdfError

CACHED = 32  # images kept
MAX_RANGES = 100
_cache: OrderedDict[tuple[Any, ...], bytes] = OrderedDict()


def _ranges(chars: Any) -> list[tuple[int, int]]:
    if not isinstance(chars, list) or len(chars) > MAX_RANGES:
        raise ServiceError(
            ErrorType.BAD_REQUEST, f"chars must be a list of at most {MAX_RANGES} [offset, length]"
        )
    for item in chars:
        if not (isinstance(item, list) and len(item) == 2 and all(type(v) is int for v in item)):
            raise ServiceError(ErrorType.BAD_REQUEST, f"bad character range {item!r}")
    return [(item[0], item[1]) for item in chars]


def _boxes(found: PageLayout, ranges: list[tuple[int, int]], shown: bool) -> list[list[Box]]:
    try:
        if shown:
            return [found.shown_boxes(o, n) for o, n in ranges]
        return [found.span_boxes(o, n) for o, n in ranges]
    except ValueError as exc:
        raise ServiceError(ErrorType.BAD_REQUEST, str(exc)) from None


def _scale(value: Any) -> float:
    try:
        scale = float(value)
    except (TypeError, ValueError):
        scale = 0.0
    if not 0.25 <= scale <= 4:
        raise ServiceError(ErrorType.BAD_REQUEST, "scale must be between 0.25 and 4")
    return scale


async def _drawn(ref: PageRef, scale: float, marks: list[Box]) -> bytes:
    """The page's PNG with ``marks`` tinted (kept in the cache)."""
    key = (ref.principal.user, str(ref.scope), *ref.version, str(marks), scale)
    if key in _cache:
        _cache.move_to_end(key)
        return _cache[key]
    data = await pdf_bytes(ref)
    try:
        image = await asyncio.to_thread(render_page, data, ref.number, scale, marks)
    except PdfError as exc:
        raise ServiceError(ErrorType.BAD_REQUEST, f"{ref.page!r}: {exc}") from None
    _cache[key] = image
    while len(_cache) > CACHED:
        _cache.popitem(last=False)
    return image


async def _open(request: web.Request, fields: Any) -> PageRef:
    principal = authenticate(request)
    if not isinstance(fields, dict):
        raise ServiceError(ErrorType.BAD_REQUEST, "the body must be a JSON object")
    return await open_page(request.app[DISPATCHER], principal, fields)


async def page_image(request: web.Request) -> bytes:
    """The PNG a POST asks for, its characters tinted (``ServiceError`` saying why not)."""
    body = await json_body(request)
    ref = await _open(request, body)
    scale = _scale(body.get("scale", 1.5))
    ranges = _ranges(body.get("chars", []))
    marks = [box for boxes in _boxes(await layout(ref), ranges, False) for box in boxes]
    return await _drawn(ref, scale, marks)


async def page_image_handler(request: web.Request) -> web.Response:
    try:
        image = await page_image(request)
    except Exception as exc:
        return rest_response(as_failure(exc))
    return web.Response(body=image, content_type="image/png", headers={"Cache-Control": "no-store"})


async def plain_page_handler(request: web.Request) -> web.Response:
    """GET: the unmarked page, revalidated by its ETag."""
    try:
        ref = await _open(request, dict(request.query))
        scale = _scale(request.query.get("scale", "1.5"))
        tag = '"' + hashlib.sha256(repr((*ref.version, scale)).encode()).hexdigest()[:32] + '"'
        headers = {"ETag": tag, "Cache-Control": "private, no-cache"}
        if tag in request.headers.get("If-None-Match", ""):
            return web.Response(status=304, headers=headers)
        image = await _drawn(ref, scale, [])
    except Exception as exc:
        return rest_response(as_failure(exc))
    return web.Response(body=image, content_type="image/png", headers=headers)


async def page_boxes_handler(request: web.Request) -> web.Response:
    """POST: where each range's characters are on the page as shown."""
    try:
        body = await json_body(request)
        ref = await _open(request, body)
        ranges = _ranges(body.get("chars", []))
        found = await layout(ref)
        width, height = found.shown_size
        boxes = _boxes(found, ranges, True)
    except Exception as exc:
        return rest_response(as_failure(exc))
    return web.json_response(
        {
            "page": ref.page,
            "width": width,
            "height": height,
            "text_layer": found.text_layer,
            "boxes": [[[round(v, 2) for v in box] for box in run] for run in boxes],
        }
    )
