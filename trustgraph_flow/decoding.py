"""Decoding a document's bytes into text: a PDF's pages with pypdf, or UTF-8 text.

Pure functions, no messaging: the decoder processor fetches the bytes and publishes the result.
"""

from __future__ import annotations

from typing import IO

from pypdf import PdfReader
from pypdf.errors import PyPdfError

PDF = "application/pdf"
TEXT_TYPES = frozenset({"text/plain", "text/markdown", "text/x-markdown"})


class DecodeError(Exception):
    """A document that cannot be decoded; the message says why, for the user."""


def decode_pdf(fh: IO[bytes], done: list[int] | None = None) -> list[str]:
    """The text of each page of a PDF (raises ``DecodeError`` when it cannot be read).

    ``done[0]`` counts the pages read so far, for progress reported from another thread.
    """
    counter = done if done is not None else [0]
    try:
        reader = PdfReader(fh)
        if reader.is_encrypted:
            raise DecodeError(
                "the PDF is encrypted (password-protected); decrypt it and load it again"
            )
        pages = []
        for page in reader.pages:
            pages.append(page.extract_text() or "")
            counter[0] = len(pages)
    except DecodeError:
        raise
    except (PyPdfError, ValueError, KeyError, TypeError, OSError, AttributeError) as exc:
        raise DecodeError(
            f"the PDF is corrupt or unreadable ({type(exc).__name__}: {exc})"
        ) from None
    if not pages:
        raise DecodeError("the PDF has no pages")
    if not any(p.strip() for p in pages):
        raise DecodeError("no text could be extracted from the PDF (is it scanned images?)")
    return pages


def decode_text(data: bytes) -> str:
    """UTF-8 text (a byte-order mark is dropped)."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DecodeError(f"the text is not valid UTF-8 (byte {exc.start})") from None
    if not text.strip():
        raise DecodeError("the document contains no text")
    return text
