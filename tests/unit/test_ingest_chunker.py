"""The chunker's splitting: bounded, exact spans, sentence boundaries, overlap."""

from __future__ import annotations

import itertools

import pytest

from trustgraph_flow.chunker import split

SENTENCES = " ".join(
    f"Sentence number {i} says that city {i} is the capital of land {i}." for i in range(60)
)


def texts(text: str, size: int, overlap: int) -> list[str]:
    return [text[s.offset : s.offset + s.length] for s in split(text, size, overlap)]


@pytest.mark.parametrize(("size", "overlap"), [(1000, 100), (200, 40), (120, 0), (50, 49)])
def test_spans_are_bounded_exact_and_cover_the_text(size: int, overlap: int) -> None:
    spans = split(SENTENCES, size, overlap)
    assert spans, "text yields chunks"
    for span in spans:
        piece = SENTENCES[span.offset : span.offset + span.length]
        assert 0 < span.length <= size
        assert piece == piece.strip(), "no leading/trailing whitespace"
    # every word of the text is in some chunk
    covered: set[int] = set()
    for span in spans:
        covered.update(range(span.offset, span.offset + span.length))
    assert all(i in covered for i, ch in enumerate(SENTENCES) if not ch.isspace())
    offsets = [s.offset for s in spans]
    assert offsets == sorted(set(offsets)), "chunks advance"


def test_chunks_end_at_sentences_and_overlap() -> None:
    pieces = texts(SENTENCES, 200, 40)
    assert all(p.endswith(".") for p in pieces)
    spans = split(SENTENCES, 200, 40)
    for a, b in itertools.pairwise(spans):
        assert b.offset < a.offset + a.length, "neighbours overlap"
        assert SENTENCES[b.offset - 1].isspace(), "a chunk starts at a word"


def test_no_overlap_means_disjoint_chunks() -> None:
    spans = split(SENTENCES, 150, 0)
    for a, b in itertools.pairwise(spans):
        assert b.offset >= a.offset + a.length


def test_short_blank_and_unbroken_text() -> None:
    assert texts("Paris is the capital of France.", 1000, 100) == [
        "Paris is the capital of France."
    ]
    assert split("   \n\n  ", 100, 10) == []
    unbroken = "x" * 250
    pieces = texts(unbroken, 100, 10)
    assert all(len(p) <= 100 for p in pieces)
    assert pieces[0] == "x" * 100 and len(pieces) >= 3
