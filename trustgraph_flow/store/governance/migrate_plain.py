"""The migration steps that write numbers in the reference's form, a plain literal (``"0"``)
instead of a typed one (``"0"^^xsd:integer``), docs/conformance.md:

- ``char-spans``: ``tg:charOffset`` / ``tg:charLength`` (SPEC.md, "Beside the seed model":
  "take the reference's (TrustGraph 2.11.1) names and forms: tg:charOffset / tg:charLength on a
  chunk"), on chunks and edge spans, claims and claim spans;
- ``plain-numbers``: the counts (``tg:inToken``, ``tg:outToken``, ``tg:chunkIndex``,
  ``tg:pageNumber``, ``tg:edgeCount``, ``tg:chunkCount``, ``tg:chunkSize``,
  ``tg:chunkOverlap``) and a ranked chunk's ``tg:score`` (an ``xsd:double``; an assessment's
  ``xsd:decimal`` score, ours, stays);
- ``plain-times``: an extraction activity's ``prov:startedAtTime`` (an ``xsd:dateTime``), in
  the source graph only: a question's start is SPEC's ``xsd:dateTime`` and stays.

In ``urn:graph:source`` (owned by their document) and ``urn:graph:retrieval`` (owned by their
trace). A replacement: the owners' signatures are renewed as ``migrate.py`` renews a
replacement's. The trace index keeps a literal's lexical form only, the same in both forms:
nothing to re-index.
"""

from __future__ import annotations

from collections.abc import Callable

import pyoxigraph as ox

from trustgraph_base.provenance.namespaces import PROV, TG, XSD
from trustgraph_base.rdf.terms import IriTerm
from trustgraph_flow.store.core.backend import Handle
from trustgraph_flow.store.governance.replacing import Pairs, Quads, replacement
from trustgraph_flow.store.views.lookup import n

INTEGER, DOUBLE = ox.NamedNode(XSD.integer), ox.NamedNode(XSD.double)
TIMES = {PROV.startedAtTime: ox.NamedNode(XSD.dateTime)}
SPANS = {TG.charOffset: INTEGER, TG.charLength: INTEGER}
NUMBERS = {
    **{p: INTEGER for p in (TG.inToken, TG.outToken, TG.chunkIndex, TG.pageNumber)},
    **{p: INTEGER for p in (TG.edgeCount, TG.chunkCount, TG.chunkSize, TG.chunkOverlap)},
    TG.score: DOUBLE,
}


def _plain(typed: dict[IriTerm, ox.NamedNode]) -> Pairs:
    def pairs(handle: Handle, graph: ox.NamedNode) -> list[tuple[ox.Quad, ox.Quad]]:
        """Each typed value with its plain form (a read per predicate)."""
        out = []
        for p, datatype in typed.items():
            for q in handle.store.quads_for_pattern(None, n(p), None, graph):
                o = q.object
                if isinstance(o, ox.Literal) and o.datatype == datatype:
                    plain = ox.Quad(q.subject, q.predicate, ox.Literal(o.value), graph)
                    out.append((q, plain))
        return out

    return pairs


def plain(typed: dict[IriTerm, ox.NamedNode]) -> Callable[[ox.NamedNode], tuple[Quads, Quads]]:
    """A step's ``(missing, replaced)`` in a graph (``replacing.py``) for ``typed``'s values."""
    return lambda graph: replacement(_plain(typed), graph)
