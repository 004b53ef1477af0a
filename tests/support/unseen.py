"""A PDF no one on the project wrote by hand, as a new user would load it: ``bench.pdf_truth``'s
generated PDF written to a file, with its sentences' true places and its pages as read."""

from __future__ import annotations

import io
from pathlib import Path

from bench.pdf_truth import Sentence, make_pdf
from tests.support.stack import Stack
from trustgraph_flow.pdf_text import PdfPage, read_pdf

# A sentence of the unseen PDF that runs over lines, on an upright page and a turned one.
GUTENBERG = (
    "The printing press was invented by Johannes Gutenberg around 1440 in the city of Mainz, "
    "which was then part of the Holy Roman Empire."
)


def unseen_pdf(folder: Path) -> tuple[Path, list[Sentence], list[PdfPage]]:
    """``folder/unseen.pdf``, its sentences (page and line boxes) and its pages' text and layout."""
    data, truth, _ = make_pdf()
    path = folder / "unseen.pdf"
    path.write_bytes(data)
    return path, truth, read_pdf(io.BytesIO(data))


async def load_unseen(
    stack: Stack, folder: Path, *scope: str
) -> tuple[str, list[Sentence], list[PdfPage]]:
    """The unseen PDF loaded with ``tg-load-document`` (``scope``: its -U/-C flags): its
    document id, its sentences and its pages."""
    pdf, truth, pages = unseen_pdf(folder)
    loaded = await stack.cli("tg-load-document", str(pdf), *scope)
    assert loaded.code == 0, loaded.stderr
    return loaded.stdout.strip().splitlines()[-1], truth, pages
