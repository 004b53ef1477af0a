"""Evidence down to the sentence, beside SPEC.md's triples (docs/provenance.md).

An extracted edge's **span**: the sentence of its chunk that states it. SPEC's
``{chunk}/subgraph tg:contains << s p o >>`` is unchanged; beside it, one entity per
(edge, quote) names the edge, the quoted text and where it lies — ``tg:charOffset`` /
``tg:charLength`` within the chunk (the reference's names, as on a chunk within its page)
and ``tg:pageCharOffset`` within the page (or page-less document). A quote that is not
found verbatim in the chunk is kept with ``tg:located false`` and no offsets: it is never
placed by guess.

An answer's **claims**: each sentence of a synthesis is a ``tg:Claim`` entity derived from
the Synthesis (``{synthesis}/claim{n}``, in ``urn:graph:retrieval``), with its text, its
place in the answer and one ``tg:cites`` per evidence item it rests on (a focus edge or a
chunk, as the Synthesis's own ``tg:cites``). SPEC's synthesis triples are unchanged. Where
a cited chunk holds the claim's sentence verbatim (up to layout), a ``tg:ClaimSpan``
``{claim}/in{k}`` derived from the claim says where: ``tg:inChunk`` and ``tg:charOffset`` /
``tg:charLength`` within it, ``tg:quote`` the chunk's own text there.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from trustgraph_base.provenance.common import (
    derived,
    integer_literal,
    plain_integer,
    text,
    triple,
    types,
)
from trustgraph_base.provenance.extraction import Edge
from trustgraph_base.provenance.namespaces import GRAPH_RETRIEVAL, GRAPH_SOURCE, PROV, RDFS, TG
from trustgraph_base.rdf.terms import IriTerm, Triple, lit, quoted

G = GRAPH_SOURCE


def span_uri(subgraph: str, n: int) -> str:
    """The ``n``-th (from 1) edge span of a chunk's subgraph."""
    return f"{subgraph}/s{n}"


@dataclass(frozen=True)
class EdgeSpan:
    """Where an edge was stated: ``offset``/``length`` in the chunk (None: not located)."""

    edge: Edge
    quote: str
    offset: int | None
    length: int | None
    chunk_offset: int  # the chunk's own offset in its page

    @property
    def page_offset(self) -> int | None:
        return None if self.offset is None else self.chunk_offset + self.offset


def edge_span_triples(subgraph: str, chunk: str, spans: list[EdgeSpan]) -> list[Triple]:
    """One ``tg:Span`` entity per edge span, derived from the chunk, in ``urn:graph:source``."""
    out: list[Triple] = []
    for n, span in enumerate(spans, start=1):
        uri = span_uri(subgraph, n)
        out += [
            *types(uri, G, PROV.Entity, TG.Span),
            derived(uri, chunk, G),
            triple(uri, TG.edge, quoted(*span.edge), G),
            triple(uri, TG.quote, text(span.quote), G),
        ]
        if span.offset is None or span.length is None:
            out.append(triple(uri, TG.located, lit(False), G))
            continue
        out += [
            triple(uri, TG.charOffset, plain_integer(span.offset), G),
            triple(uri, TG.charLength, plain_integer(span.length), G),
            triple(uri, TG.pageCharOffset, integer_literal(span.chunk_offset + span.offset), G),
        ]
    return out


def text_layer_triples(page: str) -> list[Triple]:
    """A PDF page without a text layer (scanned): nothing on it can be located."""
    return [triple(page, TG.textLayer, lit(False), G)]


def claim_uri(synthesis: str, n: int) -> str:
    """The ``n``-th (from 1) claim of a synthesis."""
    return f"{synthesis}/claim{n}"


@dataclass(frozen=True)
class ClaimSpec:
    """A sentence of the answer: its text, its place in the answer, what it cites."""

    text: str
    offset: int
    length: int
    cited: tuple[str, ...] = ()


def claim_triples(synthesis: str, claims: Sequence[ClaimSpec]) -> list[Triple]:
    """One ``tg:Claim`` per sentence of the answer, derived from the Synthesis."""
    g = GRAPH_RETRIEVAL
    out: list[Triple] = []
    for n, claim in enumerate(claims, start=1):
        uri = claim_uri(synthesis, n)
        out += [
            *types(uri, g, PROV.Entity, TG.Claim),
            triple(uri, RDFS.label, text(f"Claim {n}"), g),
            derived(uri, synthesis, g),
            triple(uri, TG.content, text(claim.text), g),
            triple(uri, TG.charOffset, plain_integer(claim.offset), g),
            triple(uri, TG.charLength, plain_integer(claim.length), g),
            *(triple(uri, TG.cites, IriTerm(i=c), g) for c in dict.fromkeys(claim.cited)),
        ]
    return out


@dataclass(frozen=True)
class ClaimSpan:
    """Where claim ``claim`` (from 1) lies in a chunk it cites: offset/length in the chunk."""

    claim: int
    chunk: str
    offset: int
    length: int
    quote: str


def claim_span_triples(synthesis: str, spans: Sequence[ClaimSpan]) -> list[Triple]:
    """One ``tg:ClaimSpan`` per (claim, chunk) place, derived from its claim."""
    g = GRAPH_RETRIEVAL
    out: list[Triple] = []
    count: dict[int, int] = {}
    for span in spans:
        count[span.claim] = count.get(span.claim, 0) + 1
        claim = claim_uri(synthesis, span.claim)
        uri = f"{claim}/in{count[span.claim]}"
        out += [
            *types(uri, g, PROV.Entity, TG.ClaimSpan),
            derived(uri, claim, g),
            triple(uri, TG.inChunk, IriTerm(i=span.chunk), g),
            triple(uri, TG.quote, text(span.quote), g),
            triple(uri, TG.charOffset, plain_integer(span.offset), g),
            triple(uri, TG.charLength, plain_integer(span.length), g),
        ]
    return out
