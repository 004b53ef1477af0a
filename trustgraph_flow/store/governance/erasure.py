"""Removal that follows lineage: a document goes, and the traces that used it are marked or purged.

Before the document's provenance and unshared facts are deleted (``deletion.py``), the
reverse-lineage index names every trace link into it (focus edges extracted from it,
selected chunks of it). Kept traces are marked with PROV in ``urn:graph:retrieval``:

    <urn:trustgraph:erasure:{uuid}> a prov:Activity, tg:Erasure ;
        prov:startedAtTime …, prov:endedAtTime … ; tg:reason "…" ;
        tg:removedDocument <doc> ; tg:removedSource <chunk> … .
    <doc> prov:wasInvalidatedBy <erasure> .       <chunk> prov:wasInvalidatedBy <erasure> .
    <…/focus/e1> prov:wasInvalidatedBy <erasure> . <…/exploration> prov:wasInvalidatedBy <erasure> .

With ``purge_traces`` the top-level traces (and their sub-traces) are deleted instead.
"""

from __future__ import annotations

import uuid

import pyoxigraph as ox

from trustgraph_base.provenance import now_iso
from trustgraph_base.provenance.namespaces import PROV, RDF, TG, XSD
from trustgraph_base.schema.explain import RemovalReport
from trustgraph_flow.store.core.backend import Handle
from trustgraph_flow.store.core.convert import named
from trustgraph_flow.store.governance import deletion
from trustgraph_flow.store.governance.seal import Seal
from trustgraph_flow.store.views.lookup import RETRIEVAL, n

ERASURE_PREFIX = "urn:trustgraph:erasure:"


def links_into(handle: Handle, doc: ox.NamedNode) -> list[tuple[str, str, str, str]]:
    """(entity, chunk, kind, top) of every trace link into the document's chunks and edges."""
    return handle.index.document_links(doc.value)


def erasure_quads(
    doc: str, reason: str, links: list[tuple[str, str, str, str]]
) -> tuple[str, list[ox.Quad]]:
    """The erasure activity and the invalidation of the document, chunks and trace entities it hit."""
    erasure = named(ERASURE_PREFIX + str(uuid.uuid4()))
    when = ox.Literal(now_iso(), datatype=named(XSD.dateTime))
    invalidated = n(PROV.wasInvalidatedBy)
    quads = [
        ox.Quad(erasure, n(RDF.type), n(PROV.Activity), RETRIEVAL),
        ox.Quad(erasure, n(RDF.type), n(TG.Erasure), RETRIEVAL),
        ox.Quad(erasure, n(PROV.startedAtTime), when, RETRIEVAL),
        ox.Quad(erasure, n(PROV.endedAtTime), when, RETRIEVAL),
        ox.Quad(erasure, n(TG.removedDocument), named(doc), RETRIEVAL),
        ox.Quad(named(doc), invalidated, erasure, RETRIEVAL),
    ]
    if reason:
        quads.append(ox.Quad(erasure, n(TG.reason), ox.Literal(reason), RETRIEVAL))
    for entity, chunk, _, _ in links:
        quads.append(ox.Quad(named(entity), invalidated, erasure, RETRIEVAL))
        quads.append(ox.Quad(named(chunk), invalidated, erasure, RETRIEVAL))
        quads.append(ox.Quad(erasure, n(TG.removedSource), named(chunk), RETRIEVAL))
    return erasure.value, quads


def remove_document(
    handle: Handle, doc_uri: str, *, reason: str, purge_traces: bool, seal: Seal | None = None
) -> RemovalReport | None:
    """Delete the document (``deletion``) and mark or purge the traces that used it; None if unknown."""
    doc = ox.NamedNode(doc_uri)
    if not deletion.exists(handle.store, doc):
        return None
    if seal is not None:
        seal.settle(handle)  # the traces it marks are signed before they are marked
    links = links_into(handle, doc)
    tops = list(dict.fromkeys(top for *_, top in links))
    edges = deletion.delete_known(handle.store, doc)
    if seal is not None:  # its signed provenance is gone: its entries say why
        seal.erase(handle, [doc_uri], "document removed" + (f": {reason}" if reason else ""))
    # Its links go: a document loaded later under the same URI is not what these answers read.
    handle.index.forget_document(doc_uri)
    if not links:
        return RemovalReport(document=doc_uri, edges_removed=edges)
    if purge_traces:
        purged = [t for t in tops if handle.index.get(t) is not None]
        for top in purged:
            why = f"document {doc_uri} removed" + (f": {reason}" if reason else "")
            deletion.delete_trace(handle, top, seal, why)
        return RemovalReport(document=doc_uri, purged=purged, edges_removed=edges)
    erasure, quads = erasure_quads(doc_uri, reason, links)
    handle.store.extend(quads)
    if seal is not None:  # the marked traces changed: signed again, saying why
        seal.after_write(handle, quads, reason=f"erasure {erasure} of {doc_uri}")
    return RemovalReport(document=doc_uri, erasure=erasure, marked=tops, edges_removed=edges)
