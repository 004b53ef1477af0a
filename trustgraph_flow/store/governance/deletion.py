"""Deleting a document (its provenance in urn:graph:source and the facts only it supports) or a trace.

Removal is quad by quad (pyoxigraph has no multi-statement transaction short of SPARQL
text, and user strings never become query text), in an order that keeps a retry complete
after a crash: facts first, then the derived entities and activities, the document
entity last, so the document stays findable until everything under it is gone.
"""

from __future__ import annotations

import pyoxigraph as ox

from trustgraph_base.provenance.namespaces import PROV, RDF, RDFS, TG
from trustgraph_base.provenance.uris import trace_root
from trustgraph_flow.store.core.backend import (
    Handle,
    QuadStore,
    object_quads,
    remove_quads,
    subject_quads,
)
from trustgraph_flow.store.core.convert import DEFAULT_GRAPH, named
from trustgraph_flow.store.governance.activities import USED, activities
from trustgraph_flow.store.governance.seal import Seal
from trustgraph_flow.store.views.export import roots_of
from trustgraph_flow.store.views.lookup import RETRIEVAL, SOURCE, has_type, n, stated_facts
from trustgraph_flow.store.views.traces import resolve

_LABEL = n(RDFS.label)
STEP = 500  # subjects removed a request on a server (each one all or nothing)


def derived(store: QuadStore, doc: ox.NamedNode) -> list[ox.NamedNode]:
    """The document and every entity derived from it, transitively (pages, chunks, subgraphs),
    each after the one it derives from: one batched lookup a level on a server, not one a
    node (a 12,000-chunk document's removal sent ~25,000 queries for this alone)."""
    found, level = [doc], [doc]
    seen = {doc.value}
    while level:
        below = []
        for q in object_quads(store, level, n(PROV.wasDerivedFrom), SOURCE):
            child = q.subject
            if isinstance(child, ox.NamedNode) and child.value not in seen:
                seen.add(child.value)
                below.append(child)
        found += below
        level = below
    return found


def exists(store: QuadStore, doc: ox.NamedNode) -> bool:
    """Whether the store holds the document entity or anything derived from it (or the
    loaded knowledge core ``doc``: ``trustgraph_base.provenance.cores``)."""
    return (
        has_type(store, doc, TG.Document, SOURCE)
        or has_type(store, doc, TG.KnowledgeCore, SOURCE)
        or any(True for _ in store.quads_for_pattern(None, n(PROV.wasDerivedFrom), doc, SOURCE))
    )


def orphaned_edges(store: QuadStore, subgraphs: set[str]) -> list[ox.Triple]:
    """Edges contained by the given subgraphs and by no other subgraph (batched lookups)."""
    held = subject_quads(store, map(ox.NamedNode, subgraphs), SOURCE, n(TG.contains))
    edges = list(dict.fromkeys(q.object for q in held if isinstance(q.object, ox.Triple)))
    elsewhere = {
        h.object
        for h in object_quads(store, edges, n(TG.contains), SOURCE)
        if not (isinstance(h.subject, ox.NamedNode) and h.subject.value in subgraphs)
    }
    return [e for e in edges if e not in elsewhere]


def in_use(store: QuadStore, iri: ox.NamedNode) -> bool:
    """Whether a default-graph edge other than a label still uses ``iri``."""
    as_subject = (
        q for q in store.quads_for_pattern(iri, None, None, DEFAULT_GRAPH) if q.predicate != _LABEL
    )
    return (
        any(True for _ in as_subject)
        or any(True for _ in store.quads_for_pattern(None, iri, None, DEFAULT_GRAPH))
        or any(True for _ in store.quads_for_pattern(None, None, iri, DEFAULT_GRAPH))
    )


def remove_facts(store: QuadStore, edges: list[ox.Triple]) -> int:
    """Remove the edges from the default graph, then the labels of IRIs no edge uses any more."""
    present, iris = stated_facts(store, edges)
    remove_quads(store, present)  # the edges first: the labels below go only if now unused
    labels = [
        q
        for iri in iris
        if not in_use(store, iri)
        for q in store.quads_for_pattern(iri, _LABEL, None, DEFAULT_GRAPH)
    ]
    remove_quads(store, labels)
    return len(present)


def delete_document(store: QuadStore, doc_uri: str) -> bool:
    """Remove a document's provenance and unshared facts; False when the store does not know it."""
    doc = ox.NamedNode(doc_uri)
    if not exists(store, doc):
        return False
    delete_known(store, doc)
    return True


def delete_known(store: QuadStore, doc: ox.NamedNode) -> int:
    """Remove a known document's provenance and unshared facts; the number of facts removed.
    A knowledge core holds its facts itself, as a subgraph does."""
    entities = derived(store, doc)
    holders = {n(TG.Subgraph), n(TG.KnowledgeCore)}
    typed = subject_quads(store, entities, SOURCE, n(RDF.type))
    subgraphs = {
        q.subject.value
        for q in typed
        if q.object in holders and isinstance(q.subject, ox.NamedNode)
    }
    removed = remove_facts(store, orphaned_edges(store, subgraphs))
    owned = activities(store, entities) + entities[1:][::-1] + [doc]  # deepest first, document last
    links = (n(PROV.wasDerivedFrom), USED)  # how an entity, and an activity, are found
    for i in range(0, len(owned), STEP):
        quads = list(subject_quads(store, owned[i : i + STEP], SOURCE))
        # The links last (one by one embedded; one request, so all or nothing, on a server):
        # an interrupted deletion leaves each subject not yet gone reachable for the retry.
        remove_quads(store, sorted(quads, key=lambda q: q.predicate in links))
    return removed


def delete_trace(
    handle: Handle | None,
    trace_id: str,
    seal: Seal | None = None,
    reason: str = "delete-trace request",
) -> list[str]:
    """Remove a trace, its sub-traces and every entity of theirs; returns the roots removed.

    With a ``seal`` each removed root's log entries get a signed tombstone saying ``reason``."""
    root = resolve(handle, trace_id)
    assert handle is not None
    if seal is not None:
        seal.settle(handle)  # an ended trace still waiting to be signed: signed, then erased
    roots = roots_of(handle, root)
    entities = [named(uri) for r in roots for uri in handle.index.entities(r)]
    apart = indexed_apart(handle, roots, entities)
    quads = list(subject_quads(handle.store, entities + [named(a) for a in apart], RETRIEVAL))
    remove_quads(handle.store, quads)  # on a server: one request, not one per quad
    # after the store: a crash here leaves the trace deletable again
    handle.index.forget(roots + apart)
    if seal is not None:
        seal.erase(handle, roots, reason)
    return roots


def indexed_apart(handle: Handle, roots: list[str], entities: list[ox.NamedNode]) -> list[str]:
    """The entities of ``roots`` that an index written before their URIs were known to be
    a trace's (a GraphRAG grounding, a claim's span in a chunk) keeps as traces of their
    own: each derives from an entity of the trace and names it as its root."""
    known, wanted = {e.value for e in entities}, set(roots)
    found = object_quads(handle.store, entities, n(PROV.wasDerivedFrom), RETRIEVAL)
    return sorted(
        {
            q.subject.value
            for q in found
            if type(q.subject) is ox.NamedNode
            and q.subject.value not in known
            and trace_root(q.subject.value) in wanted
        }
    )
