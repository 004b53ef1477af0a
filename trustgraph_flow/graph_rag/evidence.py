"""The text a focus edge's claims are verified against: the sentences of the documents that
state it (its ``tg:Span`` quotes, located in their chunk), else — an edge extracted without a
quote — its labels "subject predicate object". A quote that leans on the sentences before it
("It was opened by Queen Adela", "She studied chemistry at…": the extractor read its subject
from them) is given with them, from its chunk's paragraph, as the offline answer reads it.
The chunks an edge was read from go to the answer too (the question's names may be there,
not in the edge: "bicycles on Skarra" in a guide to Skarra), and follow its sentences in the
text its claims are checked against: the answer may say what the extractor made no edge of
from them, and is checked against what it was given. One store request for all the edges
(the spans that state them, and with ``follow`` each span's quote and chunk; more only past
``MAX_PATTERNS``), and one librarian request for their chunks."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from trustgraph_base.errors import RequestTimeout, ServiceError
from trustgraph_base.messaging import Context
from trustgraph_base.provenance import GRAPH_SOURCE, PROV, TG, SelectedEdge
from trustgraph_base.rdf.terms import IriTerm, LiteralTerm, Triple, TripleTerm, quoted, term_key
from trustgraph_base.schema import TriplePattern
from trustgraph_base.schema.rag import GraphRagRequest
from trustgraph_flow.graph_rag.select import labelled
from trustgraph_flow.graph_rag.subgraph import Subgraph, query_patterns
from trustgraph_flow.llm.excerpts import anaphoric, excerpt_pieces
from trustgraph_flow.llm.prose import prose_spans
from trustgraph_flow.rag_common import chunk_contents

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
SPANS_PER_EDGE = 5  # sentences read per edge (the same fact stated in several chunks)


FACTS = (TG.quote, TG.located, PROV.wasDerivedFrom)  # what is read of each span


def _quoted(edge: SelectedEdge) -> TripleTerm:
    return quoted(edge.s, edge.p, edge.o)


def with_context(quote: str, chunk: str, labels: tuple[str, ...] = ()) -> str:
    """The quote read with the sentences before it in its paragraph of ``chunk`` when it
    leans on them (``excerpts.anaphoric``), and with the last sentence before it in the chunk
    that names a name of the edge's ``labels`` the quote and its paragraph do not (the one
    the extractor read 'the museum' or 'her' as); else the quote."""
    flat = " ".join(quote.split())
    said = next(
        (f"{p.context} {flat}" for p in excerpt_pieces([chunk])[0] if p.text == flat and p.context),
        quote,
    )
    return " ".join([*_naming(said, quote, chunk, labels), said])


def _naming(said: str, quote: str, chunk: str, labels: tuple[str, ...]) -> list[str]:
    """The sentences of ``chunk`` before ``quote`` that name what ``said`` does not."""
    at = chunk.find(quote)
    have = {w.casefold() for w in _WORD.findall(said)}
    wanted = [
        w
        for label in labels
        for w in _WORD.findall(label.replace("'s", " ").replace("’s", " "))
        if w[:1].isupper() and w.casefold() not in have
    ]
    if at < 0 or not wanted:
        return []
    before = [" ".join(chunk[a:b].split()) for a, b in prose_spans(chunk) if b <= at]
    found: dict[str, None] = {}
    for word in dict.fromkeys(wanted):
        hit = next((s for s in reversed(before) if word in _WORD.findall(s)), None)
        if hit is not None:
            found[hit] = None
    return [s for s in before if s in found]


async def _chunks(ctx: Context[Any], req: GraphRagRequest, ids: list[str]) -> dict[str, str]:
    """The chunks' texts; a chunk the librarian cannot give is left out."""
    try:
        return await chunk_contents(ctx, req, ids)
    except (ServiceError, RequestTimeout):
        return {}


@dataclass(frozen=True)
class EdgeEvidence:
    """Per edge, in the order asked: the text its claims are checked against (its sentences,
    then its chunks), and the chunks it was read from (empty when the librarian could not give them)."""

    texts: list[str]
    excerpts: list[str]
    chunks: list[dict[str, str]]  # chunk URI -> text, the chunks the edge was read from
    quotes: list[str]  # the sentences it was read from (its labels without): the answer's quote
    passages: dict[str, str]  # chunk URI -> text: the bare passages the librarian gave


async def edge_evidence(
    ctx: Context[Any],
    req: GraphRagRequest,
    graph: Subgraph,
    edges: list[SelectedEdge],
    passages: Sequence[str] = (),
) -> EdgeEvidence:
    """Each edge's evidence text and chunks, in the order of ``edges``, and the texts of
    ``passages`` (chunks that gave no edge, ``passages.bare_passages``) in the same
    librarian request."""
    terms = [_quoted(e) for e in edges]
    # The spans stating each edge, then (``follow``) each span's quote, whether it was
    # located, and its chunk: one store request for both.
    facts = await query_patterns(
        ctx,
        req,
        SPANS_PER_EDGE,
        [TriplePattern(p=TG.edge, o=t) for t in terms],
        GRAPH_SOURCE,
        follow=FACTS,
    )
    spans: dict[str, list[str]] = {}
    for t in facts:
        if t.p == TG.edge and isinstance(t.s, IriTerm) and isinstance(t.o, TripleTerm):
            spans.setdefault(term_key(t.o), []).append(t.s.i)
    quote: dict[str, str] = {}
    unlocated: set[str] = set()
    chunk: dict[str, str] = {}
    for t in facts:
        if isinstance(t.s, IriTerm) and t.p == PROV.wasDerivedFrom and isinstance(t.o, IriTerm):
            chunk[t.s.i] = t.o.i
        if not isinstance(t.s, IriTerm) or not isinstance(t.o, LiteralTerm):
            continue
        if t.p == TG.quote:
            quote[t.s.i] = t.o.v
        elif t.p == TG.located and t.o.v == "false":
            unlocated.add(t.s.i)
    texts = await _chunks(ctx, req, sorted({*chunk.values(), *passages}))
    out = EdgeEvidence([], [], [], [], {c: texts[c] for c in passages if texts.get(c)})
    for edge, term in zip(edges, terms, strict=True):
        mine = sorted(spans.get(term_key(term), []))  # the same order from every backend
        names = labelled(graph, Triple(s=edge.s, p=edge.p, o=edge.o))
        said = [
            with_context(quote[u], texts[chunk[u]], (names["s"], names["o"]))
            if u in chunk and chunk[u] in texts and anaphoric(quote[u])
            else quote[u]
            for u in mine
            if u in quote and u not in unlocated
        ]
        read = dict.fromkeys(chunk[u] for u in mine if u in chunk)
        excerpt = " ".join(texts[c] for c in read if c in texts)
        quoted = " ".join(dict.fromkeys(said)) or f"{names['s']} {names['p']} {names['o']}"
        out.quotes.append(quoted)
        out.texts.append(" ".join([*dict.fromkeys(said), excerpt]).strip() or quoted)
        out.excerpts.append(excerpt)
        out.chunks.append({c: texts[c] for c in read if c in texts})
    return out
