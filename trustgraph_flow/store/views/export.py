"""Export one trace with the source chain it points at, as TriG, Turtle, JSON-LD, PROV-N or PROV-JSON.

What is exported (the same statements in every format):

- ``urn:graph:retrieval``: every entity of the trace and of its sub-traces, the erasure
  activities that invalidated any of them (docs/lineage.md) and their marks on the used
  chunks;
- ``urn:graph:source``: for each used chunk and each chunk a focus edge was extracted
  from: the chunk, its page and document, their generating activities, and the
  subgraph with only the ``tg:contains`` of the edges the trace used;
- the default graph: each used edge as a fact, with the ``rdfs:label`` of its IRIs.

TriG keeps the named graphs and RDF 1.2 triple terms; Turtle is the same statements in
one graph. JSON-LD, PROV-N and PROV-JSON have no triple terms: each quoted edge becomes an
``rdf:Statement`` node ``urn:trustgraph:statement:{sha256}`` (``rdf:subject``,
``rdf:predicate``, ``rdf:object``; also a ``prov:Entity``) in the graph that quoted it,
and a ``prov:SoftwareAgent`` is also typed ``prov:Agent`` (as PROV-O entails) so PROV readers keep it. PROV-N and PROV-JSON are
made by the ``prov`` package from that RDF (one bundle per named graph).
"""

from __future__ import annotations

import logging

import pyoxigraph as ox

from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.provenance.namespaces import PREFIXES, PROV, RDFS, TG
from trustgraph_flow.store.core.backend import Handle, QuadStore
from trustgraph_flow.store.core.convert import DEFAULT_GRAPH, named, serialized
from trustgraph_flow.store.core.reify import rdf11
from trustgraph_flow.store.views.lookup import RETRIEVAL, SOURCE, n, stated_facts
from trustgraph_flow.store.views.prov_export import prov_document, reified, typed_times
from trustgraph_flow.store.views.traces import resolve

FORMATS = {
    "trig": "application/trig",
    "turtle": "text/turtle",
    "jsonld": "application/ld+json",
    "provn": "text/provenance-notation",
    "provjson": "application/json",
}
log = logging.getLogger(__name__)


def roots_of(handle: Handle, root: str) -> list[str]:
    """The trace and every sub-trace under it, recursively."""
    out, pending = [], [root]
    while pending:
        current = pending.pop()
        out.append(current)
        pending.extend(s.id for s in handle.index.subtraces(current) if s.id not in out)
    return out


def _subject(store: QuadStore, s: ox.NamedNode, g: ox.NamedNode | ox.DefaultGraph) -> list[ox.Quad]:
    return list(store.quads_for_pattern(s, None, None, g))


def retrieval_part(handle: Handle, root: str) -> tuple[list[ox.Quad], set[str], list[ox.Triple]]:
    """The trace's quads, with the chunks it selected and the edges it quoted."""
    store = handle.store
    quads: list[ox.Quad] = []
    chunks: set[str] = set()
    edges: list[ox.Triple] = []
    erasures: set[str] = set()
    for r in roots_of(handle, root):
        for uri in handle.index.entities(r):
            for q in _subject(store, named(uri), RETRIEVAL):
                quads.append(q)
                if q.predicate == n(TG.selectedChunk) and isinstance(q.object, ox.NamedNode):
                    chunks.add(q.object.value)
                elif q.predicate == n(TG.edge) and isinstance(q.object, ox.Triple):
                    edges.append(q.object)
                elif q.predicate == n(PROV.wasInvalidatedBy) and isinstance(q.object, ox.NamedNode):
                    erasures.add(q.object.value)
    for e in sorted(erasures):
        quads += _subject(store, named(e), RETRIEVAL)
    for c in sorted(chunks):
        quads += [
            q
            for q in store.quads_for_pattern(named(c), n(PROV.wasInvalidatedBy), None, RETRIEVAL)
            if isinstance(q.object, ox.NamedNode) and q.object.value in erasures
        ]
    return quads, chunks, edges


def source_part(store: QuadStore, chunks: set[str], edges: list[ox.Triple]) -> list[ox.Quad]:
    """The source chain of the used chunks and edges, and the edges as facts with their labels."""
    quads: list[ox.Quad] = []
    derived, contains = n(PROV.wasDerivedFrom), n(TG.contains)
    chain: set[str] = set(chunks)
    for edge in edges:
        for q in store.quads_for_pattern(None, contains, edge, SOURCE):
            if isinstance(q.subject, ox.NamedNode):
                quads.append(q)
                quads += [x for x in _subject(store, q.subject, SOURCE) if x.predicate != contains]
                chain.update(  # its chunk, and the extraction activity that made it
                    x.object.value
                    for x in store.quads_for_pattern(q.subject, None, None, SOURCE)
                    if x.predicate in (derived, n(PROV.wasGeneratedBy))
                    and isinstance(x.object, ox.NamedNode)
                )
    seen: set[str] = set()
    pending = sorted(chain)
    while pending:
        uri = pending.pop()
        if uri in seen:
            continue
        seen.add(uri)
        for q in _subject(store, named(uri), SOURCE):
            quads.append(q)
            if q.predicate in (
                derived,
                n(PROV.wasGeneratedBy),
                n(PROV.wasAssociatedWith),
            ) and isinstance(q.object, ox.NamedNode):
                pending.append(q.object.value)
    facts, iris = stated_facts(store, edges)
    quads += facts
    for iri in iris:
        quads += store.quads_for_pattern(iri, n(RDFS.label), None, DEFAULT_GRAPH)
    return quads


def trace_dataset(handle: Handle | None, trace_id: str) -> list[ox.Quad]:
    """Every statement the export of a trace holds, in a stable order, without duplicates."""
    root = resolve(handle, trace_id)
    assert handle is not None
    quads, chunks, edges = retrieval_part(handle, root)
    quads += source_part(handle.store, chunks, edges)
    return sorted(set(quads), key=str)


def export_trace(
    handle: Handle | None, trace_id: str, fmt: str, *, rdf_11: bool = False
) -> tuple[str, str]:
    """The export text and its media type; ``rdf_11``: TriG and Turtle with each triple term
    an ``rdf:Statement`` node (``core.reify``) instead of RDF 1.2, and each plain start time
    typed as PROV-O's range says, for RDF 1.1 and PROV-O readers."""
    if fmt not in FORMATS:
        raise ServiceError(
            ErrorType.BAD_REQUEST, f"unknown export format {fmt!r}: one of {', '.join(FORMATS)}"
        )
    quads = trace_dataset(handle, trace_id)
    if rdf_11 and fmt in ("trig", "turtle"):
        quads = typed_times(rdf11(quads))
    if fmt == "trig":
        text = serialized(quads, ox.RdfFormat.TRIG, prefixes=PREFIXES).decode()
    elif fmt == "turtle":
        triples = sorted({ox.Triple(q.subject, q.predicate, q.object) for q in quads}, key=str)
        text = serialized(triples, ox.RdfFormat.TURTLE, prefixes=PREFIXES).decode()
    elif fmt == "jsonld":
        text = serialized(reified(quads), ox.RdfFormat.JSON_LD).decode()
    elif fmt == "provn":
        text = prov_document(quads).get_provn()  # type: ignore[attr-defined]
    else:
        text = prov_document(quads).serialize(format="json")  # type: ignore[attr-defined]
    return text, FORMATS[fmt]
