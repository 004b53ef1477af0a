"""Sentences of running prose, where they are in the text: a hard-wrapped paragraph's line
breaks are no sentence ends, and neither is the full stop of an abbreviation or an initial.

``text.sentence_spans`` ends a sentence at every line break, which suits short lines, lists and
headings; but a book or a licence wrapped at 70 columns has its sentences cut into line-long
pieces that start mid-clause, from which the offline extractor reads nothing (a 3 MB novel
gave no edges). Here a line break continues the sentence when its line is long (wrapped
prose), does not end a sentence, and the next line is no list item, heading or quote, nor the
first line of a paragraph under a numbered section heading (``layout.heading``). A rule
(a line of ``-``, ``=``, ``_``, ``*`` or ``~`` only) parts paragraphs as a blank line does and is
in no sentence, and a copyright notice's line ends its sentence ("…Foundation, Inc." is no
abbreviation going on): a README's closing notice is no part of the sentence above or below.
"""

from __future__ import annotations

import re

from trustgraph_flow.llm.layout import goes_on, heading
from trustgraph_flow.llm.text import sentence_spans

WRAPPED_LINE = 40  # a line at least this long that ends mid-sentence was wrapped
_LINE = re.compile(r"[^\n]*\n?")
_MARKED = re.compile(r"\s*(?:#{1,6}\s|[-*+•]\s|\d{1,3}[.)]\s|>|\|)")
_RULE = re.compile(r"\s*([-=_*~])\1{2,}\s*")
_NOTICE = re.compile(r"\s*(?:Copyright\b|\([Cc]\)\s|©)")
_END = re.compile(r"(?<=[.!?])([\"')\]’”]*)\s+")
ABBREVIATIONS = frozenset(
    "mr mrs ms dr st mt jr sr prof rev gen col capt lt sgt gov no vs etc e.g i.e cf approx ca "
    "fig vol ed inc ltd co corp dept univ jan feb mar apr jun jul aug sep sept oct nov dec".split()
)


def _paragraphs(text: str) -> list[tuple[int, int]]:
    """Runs of lines that belong together: a wrapped line joins the next one, and so does a
    numbered section's line when the next goes on in lower case ("5.1. The rights… terminate
    automatically" / "if You fail…"), but not a heading over its first sentence."""
    blocks: list[tuple[int, int]] = []
    start = None
    pos = 0
    joined, above = False, ""
    for line in _LINE.findall(text):
        if not line:
            break
        body = line.rstrip("\n")
        here, pos = pos, pos + len(line)
        if not body.strip() or _RULE.fullmatch(body):
            if start is not None:
                blocks.append((start, here))
            start, joined = None, False
            continue
        stripped = body.strip()
        heading_above = heading(above) and not goes_on(above, body)
        if start is not None and not (joined and not marked(body) and not heading_above):
            blocks.append((start, here))
            start = None
        if start is None:
            start = here
        joined = len(stripped) >= WRAPPED_LINE and stripped[-1] not in ":;"
        joined = joined and not (_NOTICE.match(body) and stripped.endswith("."))
        above = stripped
    if start is not None:
        blocks.append((start, pos))
    return blocks


def marked(line: str) -> bool:
    """Whether a line is a list item, a heading, a quote or a table row by its mark."""
    return bool(_MARKED.match(line))


def _abbreviation(piece: str) -> bool:
    """Whether a piece ends in a full stop that is not a sentence's ('Dr.', 'J.', 'e.g.')."""
    words = piece.rstrip().split()
    if not words or not words[-1].endswith("."):
        return False
    word = words[-1].rstrip(".").lstrip("(\"'“‘").lower()
    return word in ABBREVIATIONS or (len(word) == 1 and word.isalpha())


def prose_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each trimmed, non-empty sentence of ``text``, in order."""
    return [span for block in paragraph_spans(text) for span in block]


def paragraph_spans(text: str) -> list[list[tuple[int, int]]]:
    """``prose_spans`` grouped by the paragraph (or line of a list) they are in."""
    return [_sentences_in(text, a, b) for a, b in _paragraphs(text)]


def _sentences_in(text: str, a: int, b: int) -> list[tuple[int, int]]:
    """The trimmed, non-empty sentences of the paragraph ``text[a:b]``."""
    spans: list[tuple[int, int]] = []
    start = a
    for m in _END.finditer(text, a, b):
        end = m.start() + len(m.group(1))
        if m.end() >= b or _abbreviation(text[start:end]):
            continue
        spans.append((start, end))
        start = m.end()
    spans.append((start, b))
    out: list[tuple[int, int]] = []
    for x, y in spans:
        piece = text[x:y]
        lead = len(piece) - len(piece.lstrip())
        body = piece.strip()
        if body:
            out.append((x + lead, x + lead + len(body)))
    return out


def prose_sentences(text: str) -> list[str]:
    """The sentences of ``text`` (see ``prose_spans``), each exactly as the text has it."""
    return [text[a:b] for a, b in prose_spans(text)]


def answer_spans(text: str) -> list[tuple[int, int]]:
    """An answer's sentences, its claims: ``text.sentence_spans`` (a line break ends one), but
    the full stop of an abbreviation or an initial ends none, as in the documents' sentences:
    "This is so that e.g. main.C will be seen as a C++ file, …" is one claim, not two."""
    out: list[tuple[int, int]] = []
    for a, b in sentence_spans(text):
        if (
            out
            and "\n" not in text[out[-1][1] : a]
            and _abbreviation(text[out[-1][0] : out[-1][1]])
        ):
            out[-1] = (out[-1][0], b)
        else:
            out.append((a, b))
    return out
