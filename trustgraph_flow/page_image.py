"""A PDF page drawn as a PNG image with PDFium (the library that reads its text), so the
viewer can show the page and lay the cited characters' boxes over it.

The image is the page as shown (its ``/Rotate`` applied), ``scale`` pixels per point;
``png`` encodes the pixels with zlib alone (no imaging library needed).
"""

from __future__ import annotations

import struct
import zlib
from typing import IO

import numpy as np
import pypdfium2 as pdfium

from trustgraph_base.layout import Box, shown_rect
from trustgraph_flow.pdf_text import _LOCK, PdfError

MAX_PIXELS = 4096 * 4096  # a very large page is drawn smaller rather than exhaust memory
HIGHLIGHT_EDGE = (200, 120, 0)  # an amber outline around each highlighted line


def render_page(
    fh: IO[bytes] | bytes,
    number: int,
    scale: float = 1.5,
    marks: list[Box] | None = None,
) -> bytes:
    """Page ``number`` (from 1) of a PDF as PNG bytes, ``marks`` (boxes in page coordinates,
    before the page's rotation) highlighted; ``PdfError`` if it has no such page."""
    with _LOCK:
        try:
            pdf = pdfium.PdfDocument(fh)
        except pdfium.PdfiumError as exc:
            raise PdfError(f"the PDF is corrupt or unreadable ({exc})") from None
        try:
            if not 1 <= number <= len(pdf):
                raise PdfError(f"the PDF has no page {number} (it has {len(pdf)})")
            page = pdf[number - 1]
            width, height = page.get_size()
            fit = (MAX_PIXELS / max(width * height * scale * scale, 1.0)) ** 0.5
            scale *= min(1.0, fit)
            rotation = page.get_rotation()
            page.set_rotation(0)  # the unturned size: the boxes' frame
            unturned = page.get_size()
            page.set_rotation(rotation)
            bitmap = page.render(scale=scale, rev_byteorder=True)
            pixels = bitmap.to_numpy()[:, :, :3].copy()
            page.close()
        finally:
            pdf.close()
    for box in marks or []:
        _mark(pixels, shown_box(box, rotation, unturned, scale))
    return png(pixels)


def shown_box(
    box: Box, rotation: int, size: tuple[float, float], scale: float
) -> tuple[int, int, int, int]:
    """A box in page coordinates (origin bottom left, before ``rotation``) as pixel bounds
    (left, top, right, bottom) of the page drawn turned and scaled."""
    left, top, right, bottom = shown_rect(box, rotation, size)
    return (
        int(left * scale) - 1,
        int(top * scale) - 1,
        int(right * scale) + 2,
        int(bottom * scale) + 2,
    )


def _mark(pixels: np.ndarray, bounds: tuple[int, int, int, int]) -> None:
    """Tint the pixels inside ``bounds`` yellow (the text stays legible) and outline them."""
    left, top, right, bottom = bounds
    height, width = pixels.shape[:2]
    left, right = max(0, left), min(width, right)
    top, bottom = max(0, top), min(height, bottom)
    if left >= right or top >= bottom:
        return
    region = pixels[top:bottom, left:right].astype(np.float32)
    pixels[top:bottom, left:right] = (region * [1.0, 0.9, 0.35]).astype(np.uint8)
    for edge in (pixels[top, left:right], pixels[bottom - 1, left:right]):
        edge[:] = HIGHLIGHT_EDGE
    for edge in (pixels[top:bottom, left], pixels[top:bottom, right - 1]):
        edge[:] = HIGHLIGHT_EDGE


def png(rgb: np.ndarray) -> bytes:
    """An 8-bit RGB image as PNG bytes."""
    height, width = rgb.shape[:2]
    rows = np.zeros((height, width * 3 + 1), dtype=np.uint8)  # filter byte 0 per row
    rows[:, 1:] = np.ascontiguousarray(rgb, dtype=np.uint8).reshape(height, width * 3)

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows.tobytes(), 1))
        + chunk(b"IEND", b"")
    )
