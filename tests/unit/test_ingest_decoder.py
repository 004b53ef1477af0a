"""The decoder's PDF and text decoding, and its refusals."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from pypdf import PdfWriter

from trustgraph_flow.decoding import DecodeError, decode_pdf, decode_text

SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "world-facts.pdf"


def encrypted_pdf() -> bytes:
    writer = PdfWriter(clone_from=str(SAMPLE))
    writer.encrypt(user_password="secret", owner_password="owner", algorithm="RC4-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def blank_pdf() -> bytes:
    writer = PdfWriter()
    writer.add_blank_page(200, 200)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def test_sample_pdf_has_three_pages_of_text() -> None:
    pages = decode_pdf(io.BytesIO(SAMPLE.read_bytes()))
    assert len(pages) == 3
    assert "Paris is the capital of France." in pages[0].text
    assert "Victor Hugo wrote Les Misérables." in pages[2].text


@pytest.mark.parametrize(
    ("data", "why"),
    [
        (b"%PDF-1.4 not really", "corrupt"),
        (b"hello, world", "corrupt"),
        (SAMPLE.read_bytes()[:900], "corrupt"),
        (encrypted_pdf(), "encrypted"),
        (blank_pdf(), "no text could be extracted"),
    ],
)
def test_bad_pdfs_are_refused_with_a_reason(data: bytes, why: str) -> None:
    with pytest.raises(DecodeError, match=why):
        decode_pdf(io.BytesIO(data))


def test_text_decoding() -> None:
    assert (
        decode_text("\ufeffParis is the capital of France.".encode())
        == "Paris is the capital of France."
    )
    with pytest.raises(DecodeError, match="not valid UTF-8"):
        decode_text(b"caf\xe9 au lait")
    with pytest.raises(DecodeError, match="no text"):
        decode_text(b"  \n\t ")


def test_a_text_formatted_for_a_terminal_is_decoded_as_it_shows() -> None:
    # bold and underline by escape sequences and by overstriking, as groff writes a manual
    raw = b"\x1b[1mman\x1b[0m \x1b(Bb\x08bo\x08ol\x08ld _\x08u_\x08n x\x08_\n\x1b[4mnext\x1b[24m line\n"
    assert decode_text(raw) == "man bold un x\nnext line\n"
    with pytest.raises(DecodeError, match="no text"):
        decode_text(b"\x1b[1m\x1b[0m\n")


def test_a_manuals_words_broken_at_a_lines_end_are_decoded_whole() -> None:
    # as man writes a page: groff's HYPHEN (U+2010) where it broke a word, the rest of the
    # word on the next line after its indentation
    page = (
        "       Set the variable (see SHELL BUILTIN COM\u2010\n"
        "       MANDS below); the loop ends when the vari\u2010\n"
        "       able is read\u2010\n"
        "       only, and a new loop starts. See also the pre-\n"
        "       existing loops, which it incor\u2010\n"
        "       porates, and the Get\u2010\n"
        "       Value call of the read\u2010only one.\n"
    )
    text = decode_text(page.encode())
    assert text.splitlines() == [
        "       Set the variable (see SHELL BUILTIN ",
        "       COMMANDS below); the loop ends when the ",
        "       variable is read\u2010",  # 'read‐only' is written elsewhere: a word's own hyphen
        "       only, and a new loop starts. See also the pre-",  # an ASCII '-': never joined
        "       existing loops, which it ",
        "       incorporates, and the Get\u2010",  # a capital after a small letter: two words
        "       Value call of the read\u2010only one.",
    ]


def test_a_long_run_before_a_broken_line_decodes_in_linear_time() -> None:
    # A document's long runs (a blob, a URL, a hostile file) before groff's HYPHEN at a line's
    # end: the reading was cubic in the run's length (2,000 characters took 11 s), so a
    # decoder held one document for hours; each of these now comes back in milliseconds
    # (pytest's time limit fails the test otherwise).
    for run in ("x" * 200_000 + "1", "a" * 200_000 + " ", "é" * 100_000 + "/" + "b" * 100_000):
        text = f"{run}\u2010\n   tail\n"
        assert decode_text(text.encode()).count("tail") == 1
    # a URL broken twice: its first break joined, the run after it left as it was
    url = "  see https://example.org/ac\u2010\n  cess/servi\u2010\n  ces\n"
    assert decode_text(url.encode()).splitlines() == [
        "  see ",
        "  https://example.org/access/servi\u2010",
        "  ces",
    ]
