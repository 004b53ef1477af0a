"""A PDF's text page by page, with every character's box, read with PDFium (pypdfium2).

Chosen over pdfplumber and pypdf by measurement (bench/bench_pdf_positions.py,
docs/ingestion.md): PDFium's text keeps each sentence whole on two-column and rotated
pages, gives a box for every drawn character, and reads pages several times faster.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import IO

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from trustgraph_base.layout import Box, PageLayout

# PDFium's library is not thread-safe: one document is read at a time in a process.
_LOCK = threading.Lock()


class PdfError(Exception):
    """A PDF that cannot be read; the message says why, for the user."""


@dataclass(frozen=True)
class PdfPage:
    text: str
    layout: PageLayout


def read_pdf(fh: IO[bytes], done: list[int] | None = None) -> list[PdfPage]:
    """Each page's text and layout (``done[0]`` counts pages read, for progress reports)."""
    counter = done if done is not None else [0]
    with _LOCK:
        try:
            pdf = pdfium.PdfDocument(fh)
        except pdfium.PdfiumError as exc:
            if "password" in str(exc).lower():
                raise PdfError(
                    "the PDF is encrypted (password-protected); decrypt it and load it again"
                ) from None
            raise PdfError(f"the PDF is corrupt or unreadable ({exc})") from None
        try:
            pages = []
            for i in range(len(pdf)):
                pages.append(_read_page(pdf[i]))
                counter[0] = len(pages)
        except pdfium.PdfiumError as exc:
            raise PdfError(f"the PDF is corrupt or unreadable ({exc})") from None
        finally:
            pdf.close()
    return pages


def _read_page(page: pdfium.PdfPage) -> PdfPage:
    width, height = page.get_size()
    rotation = page.get_rotation()
    if rotation:
        # PDFium orders a turned page's lines as shown, which reverses a sentence's lines;
        # read it unturned (in memory only): the boxes are in unturned coordinates anyway
        page.set_rotation(0)
        width, height = page.get_size()
    textpage = page.get_textpage()
    try:
        text, boxes = _chars(textpage)
    finally:
        textpage.close()
        page.close()
    layout = PageLayout(
        width=round(width, 2),
        height=round(height, 2),
        rotation=rotation,
        boxes=tuple(boxes),
        text_layer=bool(text.strip()),
    )
    return PdfPage(text=text, layout=layout)


def _chars(textpage: pdfium.PdfTextPage) -> tuple[str, list[Box | None]]:
    """The page text (``\\r\\n`` read as ``\\n``) and one box per character."""
    raw = textpage.raw
    count = pdfium_c.FPDFText_CountChars(raw)
    text = textpage.get_text_range(0, count) if count > 0 else ""
    if len(text) != count:  # characters beyond the BMP: fall back to one code point each
        text = "".join(chr(pdfium_c.FPDFText_GetUnicode(raw, i) or 0xFFFD) for i in range(count))
    chars: list[str] = []
    boxes: list[Box | None] = []
    for i, ch in enumerate(text):
        if ch == "\r":
            continue
        # PDFium's mark for a hyphen that ends a line (0x02; U+FFFE from get_text_range),
        # which joins the word and drops the line break: read as the page shows it
        hyphen = ch in ("\x02", "\ufffe")
        chars.append("-" if hyphen else ch)
        if ch.isspace() or pdfium_c.FPDFText_IsGenerated(raw, i):
            boxes.append(None)
        else:
            boxes.append(textpage.get_charbox(i))
        if hyphen and text[i + 1 : i + 2] not in ("\r", "\n"):
            chars.append("\n")
            boxes.append(None)
    return "".join(chars), boxes
