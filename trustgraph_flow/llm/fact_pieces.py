"""What the offline engine answers a GraphRAG question from: each selected edge read as
"S P O" (its sentences as context, its chunks as where the question's names may be), and the
sentences of the chunks those edges were read from.

The extractor misses facts ("The dome was paid for by a gift from the Lorne family" may give
no edge), but the edge it did read from the same chunk brings the chunk to the answer: the
sentence there that answers the question is an answer, cited as the edge whose sentence it
is, else as the first edge read from its chunk (the chunk is that edge's evidence too,
``graph_rag.evidence``). An edge comes first: a sentence wins only by answering better.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from trustgraph_flow.llm.excerpts import Piece, excerpt_pieces
from trustgraph_flow.llm.question_keys import stems_of
from trustgraph_flow.llm.text import STOPWORDS, field, stem, words


def edge_text(edge: Any) -> str:
    """An edge's labels, "S P O"."""
    return " ".join(field(edge, k) for k in ("s", "p", "o"))


def edge_sentence(edge: Any) -> str:
    """An edge as a sentence: the sentence it was read from (its ``quote``) when that names
    both its subject and its object and words its relation ("Zpack compresses files using the
    block-sorting algorithm and Huffman coding.", not the edge's words strung: "Zpack
    compresses files using."), else "S P O." (a quote that leans on what comes before it,
    "The town was founded by Tobias Wren", does not say which town; a title page's byline,
    "Everything we know about CRC … Andrew Kadatch1 and Bob Jenkins2", says no act: the edge
    "Andrew Kadatch wrote …" does)."""
    quote = " ".join(field(edge, "quote").split())
    low = quote.casefold()
    if quote and all(field(edge, k).casefold() in low for k in ("s", "o")):
        said = stems_of(quote)
        if all(stem(w) in said for w in words(field(edge, "p")) if w.lower() not in STOPWORDS):
            return quote
    text = edge_text(edge).strip()
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")


def fact_pieces(
    edges: list[Any], passages: Sequence[str] = ()
) -> tuple[list[Piece], list[int], list[str], list[set[int]]]:
    """The pieces (the edges, then their chunks' sentences, then the sentences of
    ``passages``: chunks that gave no edge), the 0-based fact each is cited as (a passage's
    sentence as the passage, numbered after the edges), the claim each makes (an edge's "S P
    O.", a sentence's own text) and what it states: an edge itself, a sentence the edges
    read from it (or, when none was, only itself), so an answer says each once."""
    pieces = [Piece(edge_text(e), field(e, "quote"), field(e, "excerpt")) for e in edges]
    owner = list(range(len(edges)))
    claims = [edge_sentence(e) for e in edges]
    # edges read from one sentence answer with it: they state the same
    states = [{j for j, c in enumerate(claims) if c == claims[i]} for i in range(len(edges))]
    quotes = [" ".join(field(e, "quote").split()) for e in edges]
    sentences, source = excerpt_pieces([field(e, "excerpt") for e in edges])
    for piece, n in zip(sentences, source, strict=True):
        read = [i for i, q in enumerate(quotes) if _same_sentence(piece.text, q)]
        states.append(set(read) or {-len(pieces)})
        owner.append(read[0] if read else n - 1)
        pieces.append(piece)
        claims.append(piece.text)
    sentences, source = excerpt_pieces(list(passages))
    for piece, n in zip(sentences, source, strict=True):
        states.append({-len(pieces)})
        owner.append(len(edges) + n - 1)
        pieces.append(piece)
        claims.append(piece.text)
    return pieces, owner, claims, states


def _same_sentence(text: str, quote: str) -> bool:
    """A chunk's sentence is one an edge was read from when either holds the other: the
    chunk's splitting may join a heading to it ("Capitals of the world Paris is the capital
    of France."), or the edge's quote may span more than one of its sentences."""
    return bool(text and quote) and (text in quote or quote in text)
