"""Ingestion's messages within the broker's size limit, whatever the document's size.

A page's text goes to the librarian in parts and travels to the chunker inline only when
small (else by reference: the chunker reads it back in ranges); provenance goes in as many
``Triples`` messages as it needs; chunk spans in batches.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from typing import Any

from trustgraph_base.messaging import LIBRARIAN, TRIPLES_STORE, Context
from trustgraph_base.messaging.limits import MAX_MESSAGE_BYTES
from trustgraph_base.rdf.terms import Triple
from trustgraph_base.schema import ChunkSpan, LibrarianRequest, LibrarianResponse, Metadata, Triples
from trustgraph_base.wire import encode, keep_encoding

# UTF-8 bytes of text per put-content part (base64 makes it 4/3 of this) and the most a
# PageText carries inline: both well inside a message.
TEXT_PART_BYTES = 1024 * 1024
INLINE_TEXT_BYTES = 1024 * 1024
SPANS_PER_REQUEST = 10_000  # ~80 bytes each on the wire
TRIPLES_BYTES = MAX_MESSAGE_BYTES // 2  # a Triples message at most this (then halved)


def text_parts(text: str, max_bytes: int = TEXT_PART_BYTES) -> Iterator[tuple[int, str]]:
    """``(offset, part)``: consecutive parts of ``text`` of at most ``max_bytes`` UTF-8 bytes
    each (whole characters), with the character offset each starts at."""
    offset = 0
    while offset < len(text) or offset == 0:
        part = text[offset : offset + max_bytes]  # at least one byte per character
        data = part.encode()
        if len(data) > max_bytes:
            part = data[:max_bytes].decode(errors="ignore")
        yield offset, part
        offset += len(part)
        if not part:
            break


async def put_text(uri: str, text: str, meta: Metadata, ctx: Context[Any, Any]) -> None:
    """Store a page's (or page-less document's) text with the librarian, part by part."""
    for offset, part in text_parts(text):
        await ctx.client(LIBRARIAN).request(
            LibrarianRequest(
                operation="put-content",
                id=uri,
                offset=offset,
                content=base64.b64encode(part.encode()).decode(),
                user=meta.user,
                collection=meta.collection,
            ),
            timeout=ctx.settings.request_timeout,
        )


async def read_text(uri: str, meta: Metadata, ctx: Context[Any, Any]) -> str:
    """A page's text kept by the librarian, read back in ranges (each reply fits a message;
    offsets count characters)."""
    parts: list[str] = []
    offset, total = 0, None
    while total is None or offset < total:
        resp = await _content(uri, offset, meta, ctx)
        part = base64.b64decode(resp.content).decode()
        total = resp.total
        if not part:
            break
        parts.append(part)
        offset += len(part)
    return "".join(parts)


async def read_document_text(doc: str, meta: Metadata, ctx: Context[Any, Any]) -> str:
    """A page-less document's text: its bytes, read back in ranges (offsets count bytes, a
    range may end inside a character), decoded as the decoder decoded them."""
    from trustgraph_flow.decoding import decode_text

    data = bytearray()
    total = None
    while total is None or len(data) < total:
        resp = await _content(doc, len(data), meta, ctx)
        piece = base64.b64decode(resp.content)
        total = resp.total
        if not piece:
            break
        data += piece
    return decode_text(bytes(data))


async def _content(
    uri: str, offset: int, meta: Metadata, ctx: Context[Any, Any]
) -> LibrarianResponse:
    return await ctx.client(LIBRARIAN).request(
        LibrarianRequest(
            operation="get-content",
            id=uri,
            offset=offset,
            user=meta.user,
            collection=meta.collection,
        ),
        timeout=ctx.settings.request_timeout,
    )


async def put_spans(spans: list[ChunkSpan], meta: Metadata, ctx: Context[Any, Any]) -> None:
    """Tell the librarian where each chunk lies, in batches."""
    for start in range(0, len(spans), SPANS_PER_REQUEST):
        await ctx.client(LIBRARIAN).request(
            LibrarianRequest(
                operation="put-content",
                user=meta.user,
                collection=meta.collection,
                spans=spans[start : start + SPANS_PER_REQUEST],
            ),
            timeout=ctx.settings.request_timeout,
        )


def triples_messages(meta: Metadata, triples: list[Triple]) -> Iterator[Triples]:
    """``triples`` in as many ``Triples`` messages as keep each under ``TRIPLES_BYTES``;
    each keeps the wire form its size was measured in (``wire.keep_encoding``): it is sent
    as encoded here, not serialised again."""
    message = Triples(metadata=meta, triples=triples)
    if len(triples) <= 1:
        yield message
        return
    data = encode(message)
    if len(data) <= TRIPLES_BYTES:
        yield keep_encoding(message, data)
        return
    half = len(triples) // 2
    yield from triples_messages(meta, triples[:half])
    yield from triples_messages(meta, triples[half:])


async def publish_triples(meta: Metadata, triples: list[Triple], ctx: Context[Any, Any]) -> None:
    """Publish provenance on ``triples-store``, split to fit the broker."""
    for message in triples_messages(meta, triples):
        await ctx.publish(TRIPLES_STORE, message)
