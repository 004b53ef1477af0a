"""Finding a quoted sentence in the text it was quoted from, verbatim or not at all.

``locate`` answers where ``quote`` lies in ``text`` as (offset, length) in ``text``'s own
characters, or ``None``. Only layout is read loosely, never words: a run of whitespace
(a line break of a PDF page, say) matches any run of whitespace, and a hyphen ending a
line matches the word it splits written whole ("capi-\\ntal" holds "capital"), with its
hyphen ("well-\\nknown" holds "well-known") or with the break as a space ("iden-\\ntifier"
holds "iden- tifier", as a model reading the lines joined quotes it). Anything else must
match exactly, so a quote the model reworded is not found, and the caller records it as
unlocated.
"""

from __future__ import annotations

from typing import Literal

Hyphens = Literal["space", "keep", "join"]
"""A hyphen ending a line read as any character before whitespace, kept with the break
dropped, or dropped with the break (the word joined)."""


def _normalise(text: str, hyphens: Hyphens) -> tuple[str, list[int]]:
    """``text`` with whitespace runs as one space (and hyphenated line ends joined), and
    for each kept character its index in ``text``."""
    out: list[str] = []
    where: list[int] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "-" and hyphens != "space" and out and out[-1].isalpha():
            j = i + 1
            while j < n and text[j].isspace() and text[j] != "\n":
                j += 1
            if j < n and text[j] == "\n":  # a hyphen ending a line
                while j < n and text[j].isspace():
                    j += 1
                if j < n and text[j].isalpha():
                    if hyphens == "keep":
                        out.append("-")
                        where.append(i)
                    i = j
                    continue
        if ch.isspace():
            j = i
            while j < n and text[j].isspace():
                j += 1
            if out:  # leading whitespace is dropped
                out.append(" ")
                where.append(i)
            i = j
            continue
        out.append(ch)
        where.append(i)
        i += 1
    return "".join(out), where


def locate(quote: str, text: str) -> tuple[int, int] | None:
    """Where ``quote`` lies in ``text`` (its first occurrence), or ``None``."""
    wanted = " ".join(quote.split())
    if not wanted:
        return None
    exact = text.find(wanted)
    if exact >= 0:
        return exact, len(wanted)
    modes: tuple[Hyphens, ...] = ("space", "keep", "join")
    for hyphens in modes:
        flat, where = _normalise(text, hyphens)
        at = flat.find(wanted)
        if at >= 0:
            start, last = where[at], where[at + len(wanted) - 1]
            return start, last + 1 - start
    return None
