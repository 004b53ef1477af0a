"""Large PDFs for the ingestion tests and bench: pages of incompressible noise images make
up the size, pages of short factual sentences the text (one of them larger than a message
may carry inline, so it travels by reference)."""

from __future__ import annotations

import os
from pathlib import Path

from fpdf import FPDF
from PIL import Image

__test__ = False

SENTENCE = "Paris is the capital of France. "
LINE_CHARS = 4000  # characters per line of the large page
IMAGE_SIDE = 1400  # RGB noise: 5.9 MB per image page, as good as incompressible


def make_pdf(path: Path, *, size: int, big_text: int = 0, text_pages: int = 2) -> str:
    """Write a PDF of at least ``size`` bytes to ``path``: ``text_pages`` short pages, a page
    holding about ``big_text`` characters (if any), then noise images; its big page's text
    as written (what extraction should give back, give or take whitespace)."""
    pdf = FPDF(unit="pt", format=(612, 792))
    pdf.set_font("Helvetica", size=10)
    for n in range(1, text_pages + 1):
        pdf.add_page()
        pdf.multi_cell(0, 14, f"Page {n}. " + SENTENCE * 5)
    written = ""
    if big_text:  # one large page of lines side by side: no glyph drawn over another
        lines = -(-big_text // LINE_CHARS)
        pdf.add_page(format=(LINE_CHARS * 1.2 + 20, lines * 3 + 20))
        pdf.set_font("Helvetica", size=2)
        for n in range(lines):
            line = (f"Line {n}. " + SENTENCE * LINE_CHARS)[:LINE_CHARS].strip()
            pdf.text(10, 12 + n * 3, line)
            written += line + "\n"
        pdf.set_font("Helvetica", size=10)
    images = 0
    while images * IMAGE_SIDE * IMAGE_SIDE * 3 < size:
        noise = Image.frombytes("RGB", (IMAGE_SIDE, IMAGE_SIDE), os.urandom(IMAGE_SIDE**2 * 3))
        pdf.add_page()
        pdf.image(noise, x=0, y=0, w=612)
        images += 1
    pdf.output(str(path))
    return written
