"""Where a page's characters are (PDFium boxes, text lines) and finding a quote in a text."""

from __future__ import annotations

import io

import pytest

from bench.pdf_truth import Sentence, make_pdf, span_matches
from tests.unit.test_ingest_decoder import SAMPLE, encrypted_pdf
from trustgraph_base.layout import PageLayout, line_col
from trustgraph_base.spans import locate
from trustgraph_flow.pdf_text import PdfError, PdfPage, read_pdf

Truth = tuple[list[PdfPage], list[Sentence], list[int]]


@pytest.fixture(scope="module")
def truth_pdf() -> Truth:
    data, truth, empty = make_pdf()
    return read_pdf(io.BytesIO(data)), truth, empty


def test_every_sentence_is_found_with_boxes_on_its_lines(truth_pdf: Truth) -> None:
    pages, truth, _ = truth_pdf
    for sentence in truth:
        page = pages[sentence.page - 1]
        span = locate(sentence.text, page.text)
        assert span is not None, sentence.text
        start, length = span
        boxes = page.layout.boxes[start : start + length]
        assert span_matches(sentence, page.text[start : start + length], list(boxes)), (
            sentence.page,
            sentence.text,
        )


def test_a_wrapped_sentence_gives_one_rectangle_per_line(truth_pdf: Truth) -> None:
    pages, truth, _ = truth_pdf
    sentence = next(s for s in truth if len(s.lines) == 2 and s.page == 1)
    page = pages[0]
    start, length = locate(sentence.text, page.text) or (0, 0)
    rects = page.layout.span_boxes(start, length)
    assert len(rects) == 2
    for rect, line in zip(rects, sentence.lines, strict=True):
        assert abs(rect[0] - line.x0) < 3 and abs(rect[2] - line.x1) < 3
        assert rect[1] < line.baseline + 1 < rect[3] + 1


def test_a_page_without_text_says_so_and_has_no_boxes(truth_pdf: Truth) -> None:
    pages, _, empty = truth_pdf
    for n in empty:
        layout = pages[n - 1].layout
        assert not layout.text_layer
        assert pages[n - 1].text.strip() == ""
        assert all(box is None for box in layout.boxes)
    assert all(p.layout.text_layer for i, p in enumerate(pages, 1) if i not in empty)


def test_a_turned_page_keeps_its_rotation_and_unturned_size(truth_pdf: Truth) -> None:
    pages, _, _ = truth_pdf
    turned = pages[2].layout
    assert turned.rotation == 90
    assert (turned.width, turned.height) == (595.28, 841.89)
    assert pages[3].layout.width > 2000  # the A0 page


def test_layout_survives_its_json_and_refuses_a_range_past_the_end(truth_pdf: Truth) -> None:
    pages, _, _ = truth_pdf
    layout = pages[0].layout
    again = PageLayout.from_json(layout.to_json())
    assert len(again.boxes) == len(layout.boxes) == len(pages[0].text)
    for a, b in zip(again.boxes, layout.boxes, strict=True):
        assert (a is None) == (b is None)
        if a and b:
            assert max(abs(x - y) for x, y in zip(a, b, strict=True)) <= 0.05
    with pytest.raises(ValueError, match="past the end of the page"):
        layout.span_boxes(len(layout.boxes) - 2, 5)


@pytest.mark.parametrize(
    ("data", "why"),
    [(b"%PDF-1.4 not really", "corrupt"), (b"hello", "corrupt"), (encrypted_pdf(), "encrypted")],
)
def test_unreadable_pdfs_are_refused_with_a_reason(data: bytes, why: str) -> None:
    with pytest.raises(PdfError, match=why):
        read_pdf(io.BytesIO(data))


def test_the_sample_pdf_reads_as_before() -> None:
    pages = read_pdf(io.BytesIO(SAMPLE.read_bytes()))
    assert len(pages) == 3
    assert "Paris is the capital of France." in pages[0].text


@pytest.mark.parametrize(
    ("quote", "text", "found"),
    [
        ("Paris is the capital.", "x. Paris is the capital. y", "Paris is the capital."),
        ("Paris is the capital.", "x. Paris is\nthe  capital. y", "Paris is\nthe  capital."),
        ("the capital of France", "the capi-\ntal of France", "the capi-\ntal of France"),
        ("a well-known fact", "a well-\nknown fact", "a well-\nknown fact"),
        ("  Paris   is ", "Paris is", "Paris is"),
    ],
)
def test_a_quote_is_found_with_layout_read_loosely(quote: str, text: str, found: str) -> None:
    span = locate(quote, text)
    assert span is not None
    assert text[span[0] : span[0] + span[1]] == found


@pytest.mark.parametrize(
    ("quote", "text"),
    [
        ("Paris is the capital of France.", "Paris is the main city of France."),
        ("Paris is the capital", "Paris is the capitol"),
        ("", "anything"),
        ("   ", "anything"),
        ("Paris", "paris"),
    ],
)
def test_a_quote_not_in_the_text_is_not_found(quote: str, text: str) -> None:
    assert locate(quote, text) is None


def test_line_and_column() -> None:
    text = "first line\nsecond line\n\nfourth"
    assert line_col(text, 0) == (1, 1)
    assert line_col(text, text.index("second")) == (2, 1)
    assert line_col(text, text.index("line", 11)) == (2, 8)
    assert line_col(text, text.index("fourth")) == (4, 1)
    with pytest.raises(ValueError, match="past the end"):
        line_col(text, len(text) + 1)


DEJAVU = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


@pytest.mark.skipif(not __import__("os").path.exists(DEJAVU), reason="no DejaVu font to draw with")
def test_ligature_glyphs_are_read_as_their_letters_each_with_a_box_on_the_line() -> None:
    from fpdf import FPDF

    pdf = FPDF(unit="pt", format="A4")
    pdf.add_page()
    pdf.add_font("dejavu", fname=DEJAVU)
    pdf.set_font("dejavu", size=11)
    pdf.text(56, 100, "The \ufb01rst \ufb02ight was an a\ufb00air of the o\ufb03ce.")
    (page,) = read_pdf(io.BytesIO(bytes(pdf.output())))
    # a model quotes letters, never ligature glyphs: they must be letters in the page text
    assert page.text == "The first flight was an affair of the office."
    start, length = locate("first flight", page.text) or (0, 0)
    assert (start, length) == (4, 12)
    boxes = [b for b in page.layout.boxes[start : start + length] if b is not None]
    assert len(boxes) == length - 1  # every letter but the space drawn, the f and i alike
    (line,) = page.layout.span_boxes(start, length)  # one rectangle, on the baseline's line
    baseline = page.layout.height - 100
    assert line[1] <= baseline <= line[3] and line[0] >= 56


def test_a_hyphen_ending_a_line_is_the_page_text_hyphen_and_line_break() -> None:
    # PDFium joins a word hyphenated across lines and marks the hyphen (U+FFFE in its text,
    # 0x02 from GetUnicode), dropping the line break: read back as the page shows it, so no
    # noncharacter reaches chunks and answers, and a quote of the word whole is found.
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=12)
    for line in ("The library handles DER manip-", "ulation of a well-", "known type."):
        pdf.cell(0, 6, line, new_x="LMARGIN", new_y="NEXT")
    (page,) = read_pdf(io.BytesIO(bytes(pdf.output())))
    assert page.text == "The library handles DER manip-\nulation of a well-\nknown type."
    assert len(page.layout.boxes) == len(page.text)
    start, length = locate("DER manipulation of a", page.text) or (0, 0)
    assert page.text[start : start + length] == "DER manip-\nulation of a"
    assert len(page.layout.span_boxes(start, length)) == 2  # a rectangle a line
    assert locate("a well-known type.", page.text) is not None
