"""A PDF no one on the project wrote by hand, as a new user would load it: ``bench.pdf_truth``'s
generated PDF written to a file, with its sentences' true places and its pages as read."""

from __future__ import annotations

import io
from pathlib import Path

from bench.pdf_truth import Sentence, make_pdf
from trustgraph_flow.pdf_text import PdfPage, read_pdf


def unseen_pdf(folder: Path) -> tuple[Path, list[Sentence], list[PdfPage]]:
    """``folder/unseen.pdf``, its sentences (page and line boxes) and its pages' text and layout."""
    data, truth, _ = make_pdf()
    path = folder / "unseen.pdf"
    path.write_bytes(data)
    return path, truth, read_pdf(io.BytesIO(data))
