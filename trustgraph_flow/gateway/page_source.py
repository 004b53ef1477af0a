"""A PDF page as the gateway's page views read it: through the librarian, with the caller's
key and scope, so a page another user or collection holds is not found.

``open_page`` checks the page URI (``{doc}/p{n}``), that its document is a PDF and has that
page; ``layout`` reads the page's character boxes (in ranges: a long page's layout is more
than one reply holds; kept in a small cache), ``pdf_bytes`` the document's bytes.
"""

from __future__ import annotations

import base64
import re
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.layout import PageLayout, layout_uri
from trustgraph_base.messaging import LIBRARIAN
from trustgraph_flow.gateway.auth import Principal
from trustgraph_flow.gateway.dispatch import Dispatcher

PAGE = re.compile(r"(.+)/p([1-9][0-9]{0,5})")  # the shape of a page URI, {doc}/p{n}
PIECE = 2 * 1024 * 1024  # bytes per librarian get-content
LAYOUTS = 64  # layouts kept
_layouts: OrderedDict[tuple[Any, ...], PageLayout] = OrderedDict()


@dataclass(frozen=True)
class PageRef:
    """A page of a PDF the caller may read, and how to ask the librarian for more of it."""

    page: str
    doc: str
    number: int
    info: dict[str, Any]
    principal: Principal
    scope: dict[str, Any]
    dispatcher: Dispatcher

    @property
    def version(self) -> tuple[Any, ...]:
        """What names this page's content: the document, its size and time, the page."""
        return (self.doc, self.info.get("size"), self.info.get("time"), self.number)

    async def librarian(self, request: dict[str, Any]) -> dict[str, Any]:
        spec, req = self.dispatcher.parse(LIBRARIAN.name, {**request, **self.scope}, self.principal)
        final: dict[str, Any] = {}
        async for body, _last in self.dispatcher.stream(spec, req):
            final = body
        return final


async def open_page(
    dispatcher: Dispatcher, principal: Principal, fields: dict[str, Any]
) -> PageRef:
    """The page ``fields["page"]`` names (``user``/``collection`` as for any call)."""
    page = fields.get("page")
    match = PAGE.fullmatch(page) if isinstance(page, str) else None
    if match is None or not isinstance(page, str):
        raise ServiceError(
            ErrorType.BAD_REQUEST, f"page must be a page URI {{doc}}/p{{n}}, not {page!r}"
        )
    doc, number = match.group(1), int(match.group(2))
    scope = {k: fields[k] for k in ("user", "collection") if fields.get(k) is not None}
    ref = PageRef(page, doc, number, {}, principal, scope, dispatcher)
    got = await ref.librarian({"operation": "get-document", "document-id": doc})
    info = got.get("document") or {}
    if info.get("mime_type") != "application/pdf":
        raise ServiceError(ErrorType.BAD_REQUEST, f"{page!r} is not a page of a PDF")
    if number > int(info.get("pages") or 0):
        raise ServiceError(
            ErrorType.NOT_FOUND, f"{doc!r} has {info.get('pages') or 0} pages: no page {number}"
        )
    return PageRef(page, doc, number, info, principal, scope, dispatcher)


async def layout(ref: PageRef) -> PageLayout:
    """The page's character boxes (read in ranges, then kept)."""
    key = (ref.principal.user, str(ref.scope), *ref.version)
    if key in _layouts:
        _layouts.move_to_end(key)
        return _layouts[key]
    kept = ""
    while True:
        raw = await ref.librarian(
            {"operation": "get-content", "id": layout_uri(ref.page), "offset": len(kept)}
        )
        more = base64.b64decode(raw.get("content", "")).decode()
        kept += more
        if not more or len(kept) >= int(raw.get("total") or 0):
            break
    found = PageLayout.from_json(kept)
    _layouts[key] = found
    while len(_layouts) > LAYOUTS:
        _layouts.popitem(last=False)
    return found


async def pdf_bytes(ref: PageRef) -> bytes:
    """The whole PDF, read in pieces."""
    data = bytearray()
    while len(data) < int(ref.info.get("size") or 0):
        part = await ref.librarian(
            {"operation": "get-content", "id": ref.doc, "offset": len(data), "length": PIECE}
        )
        piece = base64.b64decode(part.get("content", ""))
        if not piece:
            break
        data += piece
    return bytes(data)
