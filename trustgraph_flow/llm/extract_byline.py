"""A title page's byline: who wrote the work whose title is above it.

A paper or a manual opens with its title on a line or three of its own and, on the next line,
its authors: "by Ross N. Williams", or the names alone ("Andrew Kadatch1 and Bob Jenkins2",
a footnote's mark after each). Neither line is a sentence, so the clause reader states
nothing; read together they say each author wrote the titled work (``Andrew Kadatch`` /
``wrote`` / ``Everything we know about CRC but afraid to forget``). Read only at the text's
start, where a title page is, and only when every name on the line has a given name and a
family name; a names-only line needs a title of three words or more under which it stands
(a heading over a list of contributors is no title page's). The quote is the title and the
byline, exactly as the text has them; a line between them with a web or mail address (the
group the work is from) is no part of the title. (A list of works' entries, "_Sed & Awk_, by Dale
Dougherty & Arnold Robbins", were read so too in a first version: sed FAQ's "sed v1.5, by
Howard Helman" then answered "Who wrote sed?", which "written by the late Lee E. McMahon"
answers. Not read.)
"""

from __future__ import annotations

import re

Fact = tuple[str, str, str, bool]
MAX_TITLE_LINES = 3
MAX_TITLE_WORDS = 16
_PART = r"(?:[A-Z][a-z]+(?:-[A-Z][a-z]+)?|[A-Z]\.)"
_NAME = rf"[A-Z][a-z]+(?: {_PART}){{1,3}}[0-9*†‡]*"
_BYLINE = re.compile(rf"(?P<by>[Bb]y )?(?P<names>{_NAME}(?:(?:,| and|, and| &) {_NAME})*)")
_MARKS = re.compile(r"[0-9*†‡]+$")
# A line of the title block naming where the work is from, not what it is called: a web
# address or a mail address ("X Desktop Group (http://www.freedesktop.org)").
_ADDRESS = re.compile(r"https?://|www\.|\S@\S")


def _names(line: str) -> tuple[list[str], bool] | None:
    """The line's authors and whether it says 'by' (None: it is no byline)."""
    m = _BYLINE.fullmatch(" ".join(line.split()))
    if m is None:
        return None
    names = re.split(r",? and |, | & ", m.group("names"))
    return [_MARKS.sub("", n) for n in names], bool(m.group("by"))


def byline_facts(text: str) -> list[tuple[str, str, str, bool, str]]:
    """(author, 'wrote', work, False, quote): a byline under the text's opening title."""
    return _title_page(text)


def _title_page(text: str) -> list[tuple[str, str, str, bool, str]]:
    lines = text.split("\n")
    first = next((i for i, line in enumerate(lines) if line.strip()), len(lines))
    for n in range(1, MAX_TITLE_LINES + 1):
        title_lines = lines[first : first + n]
        if len(title_lines) < n or not title_lines[-1].strip():
            return []
        if title_lines[-1].rstrip().endswith((".", ":", ";", ",")):
            return []  # a sentence, no title
        named = [line for line in title_lines if not _ADDRESS.search(line)]
        title = " ".join(" ".join(named).split())
        found = _names(lines[first + n]) if first + n < len(lines) else None
        if found is None:
            continue
        names, by = found
        if len(title.split()) > MAX_TITLE_WORDS or len(title.split()) < (2 if by else 3):
            return []
        if _names(title) is not None:
            return []  # a name over a name: no title
        start = sum(len(line) + 1 for line in lines[:first])
        end = start + sum(len(line) + 1 for line in lines[first : first + n + 1]) - 1
        return [(name, "wrote", title, False, text[start:end]) for name in names]
    return []
