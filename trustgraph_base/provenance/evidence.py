"""Evidence down to the sentence, beside SPEC.md's triples (docs/provenance.md).

An extracted edge's **span**: the sentence of its chunk that states it. SPEC's
``{chunk}/subgraph tg:contains << s p o >>`` is unchanged; beside it, one entity per
(edge, quote) names the edge, the quoted text and where it lies — ``tg:charOffset`` /
``tg:charLength`` within the chunk (the reference's names, as on a chunk within its page)
and ``tg:pageCharOffset`` within the page (or page-less document). A quote that is not
found verbatim in the chunk is kept with ``tg:located false`` and no offsets: it is never
placed by guess.
"""

from __future__ import annotations

from dataclasses import dataclass

from trustgraph_base.provenance.common import derived, integer_literal, text, triple, types
from trustgraph_base.provenance.extraction import Edge
from trustgraph_base.provenance.namespaces import GRAPH_SOURCE, PROV, TG
from trustgraph_base.rdf.terms import Triple, lit, quoted

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
            triple(uri, TG.charOffset, integer_literal(span.offset), G),
            triple(uri, TG.charLength, integer_literal(span.length), G),
            triple(uri, TG.pageCharOffset, integer_literal(span.chunk_offset + span.offset), G),
        ]
    return out


def text_layer_triples(page: str) -> list[Triple]:
    """A PDF page without a text layer (scanned): nothing on it can be located."""
    return [triple(page, TG.textLayer, lit(False), G)]
