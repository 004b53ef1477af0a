"""PDFs whose sentences are where we put them: the ground truth for span accuracy.

``make_pdf`` writes a PDF with fpdf2 (one or more pages of each layout: plain lines,
sentences wrapped over lines, two columns, a page turned by ``/Rotate 90``, a very large
page, a page with no text) and returns, for every sentence, the boxes of its lines in PDF
page coordinates (points, origin bottom left, before the page's rotation). A reader of
that PDF is right about a sentence when it finds the sentence in the page's text and the
character boxes of the text it found lie on those lines (``span_matches``).
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from fpdf import FPDF
from pypdf import PdfReader, PdfWriter

FONT_SIZE = 11.0
LEADING = 15.0
MARGIN = 56.0
TOLERANCE = 0.2 * FONT_SIZE  # a glyph's ink may sit inside its advance by its side bearing

SENTENCES = [
    "Paris is the capital of France.",
    "The Danube flows through Vienna and Budapest.",
    "Marie Curie was born in Warsaw in 1867.",
    "Mount Fuji is the highest mountain of Japan.",
    "The printing press was invented by Johannes Gutenberg around 1440 in the city of Mainz, "
    "which was then part of the Holy Roman Empire.",
    "Ada Lovelace wrote the first published algorithm for a machine.",
    "Copper conducts electricity better than iron does.",
    "The Amazon river carries more water than any other river on Earth, more than the Nile, "
    "the Yangtze and the Mississippi together.",
    "Canberra is the capital of Australia.",
    "Wolfgang Amadeus Mozart was born in Salzburg.",
]


@dataclass(frozen=True)
class Line:
    text: str
    x0: float
    x1: float
    baseline: float  # PDF y of the baseline


@dataclass
class Sentence:
    page: int  # 1-based
    text: str
    lines: list[Line] = field(default_factory=list)


def _write(pdf: FPDF, page_h: float, x: float, y: float, width: float, text: str) -> Sentence:
    """Write ``text`` wrapped to ``width`` from top-down ``y``; its line boxes in PDF space."""
    wrapped = pdf.multi_cell(width, LEADING, text, dry_run=True, output="LINES")
    assert isinstance(wrapped, list)
    lines = [str(line) for line in wrapped]
    out = Sentence(page=pdf.page_no(), text=text)
    for i, line in enumerate(lines):
        base = y + i * LEADING
        pdf.text(x, base, line)
        out.lines.append(Line(line, x, x + pdf.get_string_width(line), page_h - base))
    return out


def _column(
    pdf: FPDF, size: tuple[float, float], x: float, width: float, texts: list[str]
) -> list[Sentence]:
    y, out = MARGIN + FONT_SIZE, []
    for text in texts:
        sentence = _write(pdf, size[1], x, y, width, text)
        out.append(sentence)
        y += LEADING * (len(sentence.lines) + 1)
    return out


def make_pdf(copies: int = 1) -> tuple[bytes, list[Sentence], list[int]]:
    """The PDF, its sentences with their line boxes, and the pages that have no text."""
    pdf = FPDF(unit="pt", format="A4")
    pdf.set_creation_date(datetime(2026, 1, 1, tzinfo=UTC))  # reproducible bytes
    pdf.set_font("Helvetica", size=FONT_SIZE)
    pdf.set_auto_page_break(False)
    truth: list[Sentence] = []
    rotated: list[int] = []
    empty: list[int] = []
    a4 = (595.28, 841.89)
    for _ in range(copies):
        pdf.add_page()
        truth += _column(pdf, a4, MARGIN, a4[0] - 2 * MARGIN, SENTENCES)
        pdf.add_page()  # two columns, each sentence wrapped over several lines
        half = (a4[0] - 3 * MARGIN) / 2
        truth += _column(pdf, a4, MARGIN, half, SENTENCES[:5])
        truth += _column(pdf, a4, 2 * MARGIN + half, half, SENTENCES[5:])
        pdf.add_page()
        rotated.append(pdf.page_no())
        truth += _column(pdf, a4, MARGIN, a4[0] - 2 * MARGIN, SENTENCES[::-1])
        big = (2384.0, 3370.0)  # A0
        pdf.add_page(format=big)
        truth += _column(pdf, big, big[0] / 2, big[0] / 2 - MARGIN, SENTENCES)
        pdf.add_page(format=a4)
        pdf.rect(MARGIN, MARGIN, 200, 100, style="F")  # a drawing, no text layer
        empty.append(pdf.page_no())
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(bytes(pdf.output()))))
    for n in rotated:
        writer.pages[n - 1].rotate(90)
    buf = io.BytesIO()
    writer.write(buf)
    return buf.getvalue(), truth, empty


Box = tuple[float, float, float, float]  # x0, y0, x1, y1 in PDF page coordinates


def _lines_of(sentence: Sentence, chars: str, boxes: list[Box | None]) -> dict[int, list[Box]]:
    """The boxes of ``chars`` by the sentence line each lies on; ``{}`` if one lies on none.

    A character lies on a line when its box's middle is between the line's descender and
    cap height and within its ends."""
    found: dict[int, list[Box]] = {}
    for ch, box in zip(chars, boxes, strict=True):
        if ch.isspace():
            continue
        if box is None:
            return {}
        mid_x, mid_y = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
        for i, line in enumerate(sentence.lines):
            low, high = line.baseline - 0.3 * FONT_SIZE, line.baseline + FONT_SIZE
            if low <= mid_y <= high and line.x0 - TOLERANCE <= mid_x <= line.x1 + TOLERANCE:
                found.setdefault(i, []).append(box)
                break
        else:
            return {}
    return found


def on_sentence(sentence: Sentence, chars: str, boxes: list[Box | None]) -> bool:
    """Whether every visible character found lies on one of the sentence's lines."""
    return bool(_lines_of(sentence, chars, boxes))


def span_matches(sentence: Sentence, chars: str, boxes: list[Box | None]) -> bool:
    """Whether the characters found for ``sentence`` lie exactly on its lines: each on one
    of them, and on each line the leftmost and rightmost end where the line's text ends."""
    found = _lines_of(sentence, chars, boxes)
    if len(found) != len(sentence.lines):
        return False
    for i, line in enumerate(sentence.lines):
        x0, x1 = min(b[0] for b in found[i]), max(b[2] for b in found[i])
        if abs(x0 - line.x0) > TOLERANCE or abs(x1 - line.x1) > TOLERANCE:
            return False
    return True


def main() -> None:
    """Write the truth PDF to the path given (for looking at it)."""
    import sys

    data, truth, _ = make_pdf()
    Path(sys.argv[1]).write_bytes(data)
    print(f"{len(truth)} sentences")


if __name__ == "__main__":
    main()
