"""The migration steps of DocumentRAG's ranked chunks (``migrate_steps.py``), owned by their
trace:

- ``chunk-selections``: each reifier of a DocumentRAG exploration's ``tg:selectedChunk``
  triple is also ``a tg:ChunkSelection`` naming its chunk by ``tg:document`` (added facts,
  signed under the late-write rule);
- ``selection-uris``: each reifier renamed to the reference's URI
  (``urn:trustgraph:docrag:{id}/exploration/c{rank}`` → ``urn:trustgraph:prov:chunk:{id}:{rank
  - 1}``), wherever it is named; a replacement, as the grounding's (``migrate_grounding.py``).
"""

from __future__ import annotations

from collections.abc import Iterable

import pyoxigraph as ox

from trustgraph_base.provenance.namespaces import RDF, TG
from trustgraph_base.provenance.uris import DOCRAG_PREFIX, exploration_chunk_uri, trace_root
from trustgraph_flow.store.core.backend import Handle
from trustgraph_flow.store.governance.replacing import Quads, renames, replacement
from trustgraph_flow.store.views.lookup import RETRIEVAL, n


def _selections(handle: Handle) -> list[tuple[ox.NamedNode, ox.NamedNode]]:
    """Each reifier of a ``tg:selectedChunk`` triple, with its chunk."""
    out = []
    for q in handle.store.quads_for_pattern(None, n(RDF.reifies), None, RETRIEVAL):
        stated = q.object
        if (
            type(q.subject) is ox.NamedNode
            and isinstance(stated, ox.Triple)
            and stated.predicate == n(TG.selectedChunk)
            and isinstance(stated.object, ox.NamedNode)
        ):
            out.append((q.subject, stated.object))
    return out


def chunk_selections_missing(handle: Handle) -> list[ox.Quad]:
    typed = {
        q.subject
        for q in handle.store.quads_for_pattern(None, n(RDF.type), n(TG.ChunkSelection), RETRIEVAL)
    }
    out = []
    for reifier, chunk in _selections(handle):
        if reifier not in typed:
            out.append(ox.Quad(reifier, n(RDF.type), n(TG.ChunkSelection), RETRIEVAL))
            out.append(ox.Quad(reifier, n(TG.document), chunk, RETRIEVAL))
    return out


def chunk_selections_present(handle: Handle, root: str) -> Iterable[ox.Quad]:
    for reifier, chunk in _selections(handle):
        if trace_root(reifier.value) == root:
            yield ox.Quad(reifier, n(RDF.type), n(TG.ChunkSelection), RETRIEVAL)
            yield ox.Quad(reifier, n(TG.document), chunk, RETRIEVAL)


def _renamed(node: object) -> object:
    """A reifier's old URI (``{question}/exploration/c{rank}``) as the reference names it."""
    if not isinstance(node, ox.NamedNode) or not node.value.startswith(DOCRAG_PREFIX):
        return node
    exploration, _, rank = node.value.rpartition("/c")
    if not exploration.endswith("/exploration") or not rank.isdigit() or int(rank) < 1:
        return node
    return ox.NamedNode(exploration_chunk_uri(exploration, int(rank)))


def selection_uris(graph: ox.NamedNode) -> tuple[Quads, Quads]:
    """The ``selection-uris`` step's ``(missing, replaced)`` in ``graph`` (``replacing.py``)."""
    return replacement(renames(TG.ChunkSelection.i, _renamed), graph)
