"""RDF 1.1 forms of RDF 1.2 statements: each triple term becomes an ``rdf:Statement`` node.

For readers without triple terms (rdflib, RDF/XML and JSON-LD clients, the ``prov``
package): ``<< s p o >>`` in object position is replaced by
``urn:trustgraph:statement:{sha256}`` with ``rdf:subject``, ``rdf:predicate`` and
``rdf:object`` (a triple term inside a triple term likewise), in the same graph. The node's
IRI is a hash of the triple, so the same edge is the same node in every answer.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

import pyoxigraph as ox

from trustgraph_base.provenance.namespaces import RDF
from trustgraph_flow.store.core.convert import named

STATEMENT_PREFIX = "urn:trustgraph:statement:"


def statement_iri(edge: ox.Triple) -> ox.NamedNode:
    return ox.NamedNode(STATEMENT_PREFIX + hashlib.sha256(str(edge).encode()).hexdigest()[:32])


def statement_quads(
    edge: ox.Triple, graph: ox.NamedNode | ox.BlankNode | ox.DefaultGraph
) -> tuple[ox.NamedNode, list[ox.Quad]]:
    """The node standing for ``edge`` and the quads that describe it (nested terms too)."""
    node = statement_iri(edge)
    obj = edge.object
    out = [
        ox.Quad(node, named(RDF.type.i), named(RDF.Statement.i), graph),
        ox.Quad(node, named(RDF.subject.i), edge.subject, graph),
        ox.Quad(node, named(RDF.predicate.i), edge.predicate, graph),
    ]
    if isinstance(obj, ox.Triple):
        obj, nested = statement_quads(obj, graph)
        out += nested
    out.append(ox.Quad(node, named(RDF.object.i), obj, graph))
    return node, out


def rdf11(quads: Iterable[ox.Quad]) -> list[ox.Quad]:
    """The quads with every triple-term object replaced by its statement node, in a stable order."""
    out: set[ox.Quad] = set()
    for q in quads:
        if not isinstance(q.object, ox.Triple):
            out.add(q)
            continue
        node, described = statement_quads(q.object, q.graph_name)
        out.add(ox.Quad(q.subject, q.predicate, node, q.graph_name))
        out.update(described)
    return sorted(out, key=str)
