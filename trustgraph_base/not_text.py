"""What a file said to be text is instead, from its first bytes: the advice a user needs
when a PDF, UTF-16 text or a binary was named ``.txt`` (or loaded as ``text/plain``).

One reading for ``tg-load-document`` (which refuses such a file before uploading it) and the
decoder (which says the same of bytes another client sent as text).
"""

from __future__ import annotations

SNIFF = 1 << 16  # the bytes read: a file's start says what it is

UTF16_MARKS = (b"\xff\xfe", b"\xfe\xff")


def not_text(head: bytes) -> str | None:
    """Why ``head`` (a file's first bytes) is not UTF-8 text, with what to do, or None when
    it may be text (a byte that is not UTF-8 further on is the decoder's to name)."""
    if head.startswith(b"%PDF-"):
        return "it is a PDF (it starts with %PDF-): load it as application/pdf (name it .pdf, or pass --mime-type application/pdf)"
    if head.startswith(UTF16_MARKS):
        return (
            "it is UTF-16 text (it starts with a UTF-16 byte-order mark): convert it to UTF-8 "
            "first, e.g. iconv -f UTF-16 -t UTF-8"
        )
    if b"\x00" in head:
        return (
            f"it is not text (NUL byte at {head.index(0)}): a binary file; load a PDF, "
            "UTF-8 text or Markdown"
        )
    return None
