"""Character positions from PDF libraries: accuracy on PDFs with known sentence positions,
speed on real PDFs, and what decoding with positions costs against without.

    python -m bench.bench_pdf_positions [--quick] [PDF ...]

Accuracy: ``bench.pdf_truth`` writes a PDF (plain lines, wrapped sentences, two columns,
a page turned by /Rotate 90, an A0 page, a page without text); a library is right about a
sentence when the sentence is found in its page's text (whitespace and a hyphen at a line
end read loosely, as ``trustgraph_base.spans.locate`` does) and the boxes of the
characters found lie on the sentence's lines. Speed: pages per second on the PDFs given
(default: the PDF manuals Debian packages ship under /usr/share/doc, if any), each
library's best of three runs; the ratio compares text with boxes against text alone in
the same run. pypdf gives no per-character boxes, so only its text and speed are measured.
"""

from __future__ import annotations

import argparse
import io
import time
from collections.abc import Callable
from pathlib import Path

import pdfplumber
import pypdfium2 as pdfium
from pypdf import PdfReader

from bench.pdf_truth import Box, make_pdf, span_matches
from bench.summary import summary
from trustgraph_base.spans import locate
from trustgraph_flow.page_image import render_page
from trustgraph_flow.pdf_text import read_pdf

Pages = list[tuple[str, list[Box | None]]]


def with_pdfium(data: bytes) -> Pages:
    return [(p.text, list(p.layout.boxes)) for p in read_pdf(io.BytesIO(data))]


def pdfium_text_only(data: bytes) -> list[str]:
    pdf = pdfium.PdfDocument(data)
    try:
        return [pdf[i].get_textpage().get_text_range() for i in range(len(pdf))]
    finally:
        pdf.close()


def with_pdfplumber(data: bytes) -> Pages:
    out: Pages = []
    with pdfplumber.open(io.BytesIO(data)) as pdf:
        for page in pdf.pages:
            chars: list[str] = []
            boxes: list[Box | None] = []
            for ch, obj in page.get_textmap().tuples:
                chars.append(ch)
                if obj is None or ch.isspace():
                    boxes.append(None)
                else:
                    h = page.height
                    boxes.append((obj["x0"], h - obj["bottom"], obj["x1"], h - obj["top"]))
            out.append(("".join(chars), boxes))
    return out


def pdfplumber_text_only(data: bytes) -> list[str]:
    with pdfplumber.open(io.BytesIO(data)) as pdf:
        return [page.extract_text() for page in pdf.pages]


def pypdf_text_only(data: bytes) -> list[str]:
    return [page.extract_text() or "" for page in PdfReader(io.BytesIO(data)).pages]


def accuracy(read: Callable[[bytes], Pages]) -> tuple[int, int, int, int]:
    """Sentences found, sentences whose boxes are right, sentences, empty pages said empty."""
    data, truth, empty = make_pdf()
    pages = read(data)
    found = right = 0
    for sentence in truth:
        text, boxes = pages[sentence.page - 1]
        span = locate(sentence.text, text)
        if span is None:
            continue
        found += 1
        start, length = span
        right += span_matches(sentence, text[start : start + length], boxes[start : start + length])
    said_empty = sum(1 for n in empty if not pages[n - 1][0].strip())
    return found, right, len(truth), said_empty == len(empty)


def best_of(fn: Callable[[bytes], object], data: bytes, runs: int) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        fn(data)
        best = min(best, time.perf_counter() - start)
    return best


def speed(files: list[Path], runs: int) -> None:
    libs: list[tuple[str, Callable[[bytes], object]]] = [
        ("pypdfium2 text+boxes", with_pdfium),
        ("pypdfium2 text", pdfium_text_only),
        ("pdfplumber text+boxes", with_pdfplumber),
        ("pdfplumber text", pdfplumber_text_only),
        ("pypdf text", pypdf_text_only),
    ]
    for path in files:
        data = path.read_bytes()
        pages = len(PdfReader(io.BytesIO(data)).pages)
        chars = sum(len(t) for t, _ in with_pdfium(data))
        print(f"\n{path.name}: {pages} pages, {chars} characters (PDFium's text)")
        times = {}
        for name, fn in libs:
            times[name] = best_of(fn, data, runs)
            print(f"  {name:24} {times[name] * 1000:8.1f} ms  {pages / times[name]:7.1f} pages/s")
        ratio = times["pypdfium2 text+boxes"] / times["pypdf text"]
        own = times["pypdfium2 text+boxes"] / times["pypdfium2 text"]
        print(f"  text+boxes (PDFium) / pypdf text (the decoder before): {ratio:.2f}")
        print(f"  text+boxes (PDFium) / text alone (PDFium): {own:.2f}")
        summary(f"PDF decode with boxes / pypdf text ({path.name})", f"{ratio:.2f}", "-")
        summary(f"PDF decode with boxes / text alone ({path.name})", f"{own:.2f}", "-")


def render_times(files: list[Path]) -> None:
    """Each page of the PDFs drawn as the viewer's page image (scale 1.5, one line marked):
    p50 and p95 over all pages, cold (no cache)."""
    times: list[float] = []
    for path in files:
        data = path.read_bytes()
        pages = read_pdf(io.BytesIO(data))
        for n, page in enumerate(pages, start=1):
            marks = page.layout.span_boxes(0, min(40, len(page.text)))
            start = time.perf_counter()
            render_page(data, n, 1.5, marks)
            times.append(time.perf_counter() - start)
    if not times:
        return
    times.sort()
    p50, p95 = times[len(times) // 2], times[min(len(times) - 1, int(len(times) * 0.95))]
    print(f"\npage image (PDFium, scale 1.5, one line marked), {len(times)} pages:")
    print(f"  p50 {p50 * 1000:.1f} ms, p95 {p95 * 1000:.1f} ms")
    summary("page image render p50 / p95", f"{p50 * 1000:.0f} / {p95 * 1000:.0f} ms", "-")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("pdf", nargs="*", type=Path)
    args = parser.parse_args()
    print("accuracy on generated PDFs (sentences with known line boxes):")
    for name, read in (("pypdfium2", with_pdfium), ("pdfplumber", with_pdfplumber)):
        found, right, total, empty_ok = accuracy(read)
        print(
            f"  {name:10} found {found}/{total}, boxes right {right}/{total} "
            f"({100 * right / total:.1f}%), page without text said empty: {empty_ok}"
        )
        summary(f"PDF sentence boxes right ({name})", f"{100 * right / total:.1f}%", ">= 99%")
    pypdf_pages = pypdf_text_only(make_pdf()[0])
    _, truth, _ = make_pdf()
    found = sum(1 for s in truth if locate(s.text, pypdf_pages[s.page - 1]) is not None)
    print(f"  pypdf      found {found}/{len(truth)} (no character boxes)")
    files = args.pdf or sorted(Path("/usr/share/doc").rglob("*.pdf"))
    if not files:
        print("\nno real PDFs given or found under /usr/share/doc: speed not measured")
    speed(files, 1 if args.quick else 3)
    render_times(files)


if __name__ == "__main__":
    main()
