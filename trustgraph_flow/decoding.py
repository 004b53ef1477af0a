"""Decoding a document's bytes into text: a PDF's pages with where their
characters are (PDFium, ``pdf_text``), or UTF-8 text.

Pure functions, no messaging: the decoder processor fetches the bytes and publishes the result.
"""

from __future__ import annotations

from typing import IO

from trustgraph_base.not_text import SNIFF, not_text
from trustgraph_base.terminal_text import as_shown
from trustgraph_flow.pdf_text import PdfError, PdfPage, read_pdf

PDF = "application/pdf"
TEXT_TYPES = frozenset({"text/plain", "text/markdown", "text/x-markdown"})


class DecodeError(Exception):
    """A document that cannot be decoded; the message says why, for the user."""


def decode_pdf(fh: IO[bytes], done: list[int] | None = None) -> list[PdfPage]:
    """Each page's text and where its characters are (raises ``DecodeError`` when it cannot
    be read). ``done[0]`` counts the pages read so far, for progress reported from another
    thread. A page without a text layer is kept (its layout says so); a PDF with none is not.
    """
    try:
        pages = read_pdf(fh, done)
    except PdfError as exc:
        raise DecodeError(str(exc)) from None
    if not pages:
        raise DecodeError("the PDF has no pages")
    if not any(p.layout.text_layer for p in pages):
        raise DecodeError("no text could be extracted from the PDF (is it scanned images?)")
    return pages


def decode_text(data: bytes) -> str:
    """UTF-8 text (a byte-order mark is dropped), as a terminal shows it (``as_shown``)."""
    if (why := not_text(data[:SNIFF])) is not None:
        raise DecodeError(f"the document was sent as text, but {why}")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DecodeError(
            f"the text is not valid UTF-8 (byte {exc.start} is {data[exc.start]:#04x}): convert it"
            " to UTF-8 first, e.g. iconv -f latin1 -t utf-8 (a Latin-1 or Windows-1252 text)"
        ) from None
    text = as_shown(text)
    if not text.strip():
        raise DecodeError("the document contains no text")
    return text
