"""Triples of GraphRAG and DocumentRAG traces (graph ``urn:graph:retrieval``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from trustgraph_base.provenance.agent_order import calling_step_uri
from trustgraph_base.provenance.common import (
    datetime_literal,
    decimal_literal,
    derived,
    derived_row,
    integer_literal,
    text,
    triple,
    type_rows,
    types,
)
from trustgraph_base.provenance.namespaces import GRAPH_RETRIEVAL, PROV, RDF, RDFS, TG
from trustgraph_base.provenance.uris import (
    answer_document_uri,
    exploration_chunk_uri,
    focus_edge_uri,
)
from trustgraph_base.rdf.assembled import iri_term, quoted_term
from trustgraph_base.rdf.rows import Row, as_triples, row, triple_of, triples_of
from trustgraph_base.rdf.terms import BlankTerm, IriTerm, Term, Triple, quoted

G = GRAPH_RETRIEVAL


class SelectedEdge(NamedTuple):
    """An edge the LLM chose, with its stated reason."""

    s: IriTerm | BlankTerm
    p: IriTerm
    o: Term
    reasoning: str


# Each question's label, as the reference names them (docs/conformance.md); before, "Question".
QUESTION_LABELS = {
    TG.GraphRagQuestion.i: "GraphRAG Question",
    TG.DocRagQuestion.i: "DocumentRAG Question",
    TG.AgentQuestion.i: "Agent Question",
}


def label_row(uri: str, name: str) -> Row:
    """``rdfs:label``: the name TrustGraph's tools show for a trace node."""
    return row(uri, RDFS.label, name, G)


def label(uri: str, name: str) -> Triple:
    return triple_of(label_row(uri, name))


def _question(
    uri: str, subtype: IriTerm, query: str, timestamp: str, parent_uri: str | None
) -> list[Row]:
    out = [
        *type_rows(uri, G, PROV.Activity, TG.Question, subtype),
        row(uri, TG.query, query, G),
        row(uri, PROV.startedAtTime, datetime_literal(timestamp), G),
        label_row(uri, QUESTION_LABELS[subtype.i]),
    ]
    if parent_uri:
        out.append(derived_row(uri, parent_uri, G))
        # A tool of a step's parallel calls: from the call, and (SPEC) the analysis that called it.
        step = calling_step_uri(parent_uri)
        if step is not None:
            out.append(derived_row(uri, step, G))
    return out


def graph_rag_question_triples(
    question_uri: str, query: str, timestamp: str, parent_uri: str | None = None
) -> list[Triple]:
    """A GraphRAG question; ``parent_uri`` is the agent analysis that called it, if any."""
    return triples_of(_question(question_uri, TG.GraphRagQuestion, query, timestamp, parent_uri))


def docrag_question_rows(
    question_uri: str, query: str, timestamp: str, parent_uri: str | None = None
) -> list[Row]:
    """A DocumentRAG question; ``parent_uri`` is the agent analysis that called it, if any."""
    return _question(question_uri, TG.DocRagQuestion, query, timestamp, parent_uri)


def grounding_triples(grounding: str, question_uri: str, concepts: Sequence[str]) -> list[Triple]:
    """Grounding (TrustGraph's): the texts the retrieval searched with, one ``tg:concept`` each."""
    return [
        *types(grounding, G, PROV.Entity, TG.Grounding),
        derived(grounding, question_uri, G),
        label(grounding, "Grounding"),
        *(triple(grounding, TG.concept, text(c), G) for c in concepts),
    ]


def _exploration(exploration_uri: str, question_uri: str, grounding: str | None) -> list[Row]:
    out = [
        *type_rows(exploration_uri, G, PROV.Entity, TG.Exploration),
        row(exploration_uri, PROV.wasGeneratedBy, iri_term(question_uri), G),
        label_row(exploration_uri, "Exploration"),
    ]
    if grounding:
        out.append(derived_row(exploration_uri, grounding, G))
    return out


def graph_rag_exploration_triples(
    exploration_uri: str,
    question_uri: str,
    edge_count: int,
    grounding: str | None = None,
    chunks: Sequence[str] = (),
) -> list[Triple]:
    """Exploration: how many edges were retrieved from the knowledge graph, and (``chunks``)
    the passages nearest the question that gave no edge, read as text beside the edges
    (``tg:selectedChunk``, as DocumentRAG names its chunks; docs/provenance.md)."""
    return triples_of(
        [
            *_exploration(exploration_uri, question_uri, grounding),
            row(exploration_uri, TG.edgeCount, str(int(edge_count)), G),
            *(row(exploration_uri, TG.selectedChunk, iri_term(c), G) for c in chunks),
        ]
    )


def docrag_exploration_rows(
    exploration_uri: str,
    question_uri: str,
    chunk_uris: Sequence[str],
    scores: Sequence[float] | None = None,
    *,
    grounding: str | None = None,
    reranked: Sequence[tuple[int | None, float]] | None = None,
) -> list[Row]:
    """Exploration: the chunks retrieved, each named by its extraction-provenance URI.

    ``chunk_uris`` are in relevance order; with ``scores`` (one each) every
    ``tg:selectedChunk`` triple gets a reifier ``…/exploration/c{rank}`` carrying
    ``tg:rank`` and ``tg:score``, so SPEC's triples stay exactly as they are; the reifier is
    also the reference's ``tg:ChunkSelection`` naming its chunk by ``tg:document``.
    A hybrid retrieval (``reranked``: each chunk's rank in the vector search and its lexical
    score) adds ``tg:vectorRank`` (none for a chunk the word search alone found) and
    ``tg:lexicalScore`` to each reifier; ``tg:score`` stays the vector similarity and
    ``tg:rank`` is the fused order's.
    """
    out = [
        *_exploration(exploration_uri, question_uri, grounding),
        row(exploration_uri, TG.chunkCount, str(len(chunk_uris)), G),
        *(row(exploration_uri, TG.selectedChunk, iri_term(c), G) for c in chunk_uris),
    ]
    for rank, (chunk, score) in enumerate(zip(chunk_uris, scores or [], strict=False), start=1):
        reifier = exploration_chunk_uri(exploration_uri, rank)
        selected = quoted_term(iri_term(exploration_uri), TG.selectedChunk, iri_term(chunk))
        out.append(row(reifier, RDF.reifies, selected, G))
        out.append(row(reifier, RDF.type, TG.ChunkSelection, G))  # the reference's type,
        out.append(row(reifier, TG.document, iri_term(chunk), G))  # and chunk link
        out.append(row(reifier, TG.rank, integer_literal(rank), G))
        out.append(row(reifier, TG.score, repr(float(score)), G))  # the reference's form
        if reranked is not None:
            vector_rank, lexical = reranked[rank - 1]
            if vector_rank is not None:
                out.append(row(reifier, TG.vectorRank, integer_literal(vector_rank), G))
            out.append(row(reifier, TG.lexicalScore, decimal_literal(lexical), G))
    return out


def graph_rag_focus_triples(
    focus: str, exploration_uri: str, question_uri: str, edges: Sequence[SelectedEdge]
) -> list[Triple]:
    """Focus: each selected edge ``…/focus/e{n}`` with ``tg:edge << s p o >>`` and its reasoning."""
    out = [
        *types(focus, G, PROV.Entity, TG.Focus),
        derived(focus, exploration_uri, G),
        label(focus, "Focus"),
    ]
    for n, edge in enumerate(edges, start=1):
        e = focus_edge_uri(question_uri, n)
        out.append(triple(focus, TG.selectedEdge, IriTerm(i=e), G))
        out.append(triple(e, TG.edge, quoted(edge.s, edge.p, edge.o), G))
        out.append(triple(e, TG.reasoning, text(edge.reasoning), G))
        out.append(triple(e, RDF.type, TG.EdgeSelection, G))
    return out


def synthesis_rows(synthesis: str, parent_uri: str, content: str) -> list[Row]:
    """Synthesis: the answer, derived from the focus (GraphRAG) or exploration (DocumentRAG)."""
    return [
        *type_rows(synthesis, G, PROV.Entity, TG.Synthesis),
        derived_row(synthesis, parent_uri, G),
        row(synthesis, TG.content, content, G),
        *answer_extra_rows(synthesis, "Synthesis"),
    ]


def citation_triples(synthesis: str, cited: Sequence[str]) -> list[Triple]:
    """``tg:cites``: the evidence the answer cites, beside SPEC's synthesis triples; each is a
    focus edge ``…/focus/e{n}`` (GraphRAG) or a selected chunk's URI (DocumentRAG)."""
    return [triple(synthesis, TG.cites, IriTerm(i=uri), G) for uri in dict.fromkeys(cited)]


def answer_extra_rows(uri: str, name: str) -> list[Row]:
    """What TrustGraph writes on an answer beside the SPEC triples: ``tg:Answer``, a label and
    ``tg:document``, the librarian document its tools fetch the text from."""
    return [
        row(uri, RDF.type, TG.Answer, G),
        label_row(uri, name),
        row(uri, TG.document, iri_term(answer_document_uri(uri)), G),
    ]


answer_extras = as_triples(answer_extra_rows)
docrag_question_triples = as_triples(docrag_question_rows)
docrag_exploration_triples = as_triples(docrag_exploration_rows)
synthesis_triples = as_triples(synthesis_rows)
