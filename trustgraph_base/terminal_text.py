"""Text as a terminal shows it: a formatted manual's bold and underline taken out.

One reading for every place that counts a text document's characters: the decoder (its
chunks' offsets), ``tg-show-evidence``'s lines and columns, and the viewer (``asShown`` in
``static/evidence.js`` does the same).
"""

from __future__ import annotations

ESC, BS = "\x1b", "\b"


def as_shown(text: str) -> str:
    """``text`` without a terminal's controls: a formatted manual (``man``, ``groff -Tutf8``,
    ``/usr/share/doc``'s ``*.txt``) marks bold and underline with escape sequences (ECMA-48:
    ``ESC [ 4 m``) or by overstriking (``X BS X``, ``_ BS X``). Kept, a sequence's visible
    part (``[4m``) would be read as words and joined to them. Only those are taken out, so a
    line stays a line; characters and columns count in the text without them."""
    if ESC not in text and BS not in text:
        return text
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == ESC:
            i = _after_escape(text, i + 1)
            continue
        if ch == BS:
            struck = text[i + 1] if i + 1 < n else ""
            if out and out[-1] != "\n" and struck not in ("", "\n", ESC, BS):
                if struck != "_":  # "X BS _" underlines X; otherwise the last character shows
                    out[-1] = struck
                i += 2
            else:
                i += 1
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def _after_escape(text: str, i: int) -> int:
    """Where the text goes on after an escape sequence whose ESC ends at ``i`` (ECMA-48 5.3,
    5.4): a control sequence (``[``, parameter and intermediate bytes, a final byte) or an
    escape sequence (intermediate bytes, a final byte: ``ESC ( B``); never past a line's end."""
    n = len(text)
    if i < n and text[i] == "[":
        i += 1
        while i < n and "\x20" <= text[i] <= "\x3f":
            i += 1
        return i + 1 if i < n and "\x40" <= text[i] <= "\x7e" else i
    while i < n and "\x20" <= text[i] <= "\x2f":
        i += 1
    return i + 1 if i < n and "\x30" <= text[i] <= "\x7e" else i
