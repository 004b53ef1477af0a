"""Deleting a document (its provenance in urn:graph:source and the facts only it supports) or a trace.

Removal is quad by quad (pyoxigraph has no multi-statement transaction short of SPARQL
text, and user strings never become query text), in an order that keeps a retry complete
after a crash: facts first, then the derived entities and activities, the document
entity last, so the document stays findable until everything under it is gone.
"""

from __future__ import annotations

import pyoxigraph as ox

from trustgraph_base.provenance.namespaces import PROV, RDFS, TG
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


def derived(store: QuadStore, doc: ox.NamedNode) -> list[ox.NamedNode]:
    """The document and every entity derived from it, transitively (pages, chunks, subgraphs)."""
    found, pending = [doc], [doc]
    seen = {doc.value}
    while pending:
        parent = pending.pop()
        for q in store.quads_for_pattern(None, n(PROV.wasDerivedFrom), parent, SOURCE):
            child = q.subject
            if isinstance(child, ox.NamedNode) and child.value not in seen:
                seen.add(child.value)
                found.append(child)
                pending.append(child)
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
    """Edges contained by the given subgraphs and by no other subgraph."""
    out: list[ox.Triple] = []
    seen: set[ox.Triple] = set()
    for sg in subgraphs:
        for q in store.quads_for_pattern(ox.NamedNode(sg), n(TG.contains), None, SOURCE):
            edge = q.object
            if not isinstance(edge, ox.Triple) or edge in seen:
                continue
            seen.add(edge)
            holders = store.quads_for_pattern(None, n(TG.contains), edge, SOURCE)
            if all(
                isinstance(h.subject, ox.NamedNode) and h.subject.value in subgraphs
                for h in holders
            ):
                out.append(edge)
    return out


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
    holders = (TG.Subgraph, TG.KnowledgeCore)
    subgraphs = {e.value for e in entities if any(has_type(store, e, c, SOURCE) for c in holders)}
    removed = remove_facts(store, orphaned_edges(store, subgraphs))
    owned = activities(store, entities) + entities[1:][::-1] + [doc]  # deepest first, document last
    links = (n(PROV.wasDerivedFrom), USED)  # how an entity, and an activity, are found
    for subject in owned:
        quads = list(store.quads_for_pattern(subject, None, None, SOURCE))
        # The link last (one by one embedded; one request, so all or nothing, on a server):
        # an interrupted deletion leaves the subject reachable for the retry.
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
