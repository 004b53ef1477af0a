"""The migration step that writes ``tg:charOffset`` and ``tg:charLength`` in the reference's form
(SPEC.md, "Beside the seed model": "take the reference's (TrustGraph 2.11.1) names and forms:
tg:charOffset / tg:charLength on a chunk"): a plain literal ``"0"`` instead of
``"0"^^xsd:integer``, on chunks and edge spans (``urn:graph:source``, owned by their document)
and on claims and their spans (``urn:graph:retrieval``, owned by their trace). A replacement:
the owners' signatures are renewed as ``migrate.py`` renews a replacement's. The trace index
keeps a literal's lexical form only, the same in both forms: nothing to re-index.
"""

from __future__ import annotations

import pyoxigraph as ox

from trustgraph_base.provenance.namespaces import TG, XSD
from trustgraph_flow.store.core.backend import Handle
from trustgraph_flow.store.governance.replacing import Quads, replacement
from trustgraph_flow.store.views.lookup import n

TYPED = ox.NamedNode(XSD.integer)


def _old_quads(handle: Handle, graph: ox.NamedNode) -> list[tuple[ox.Quad, ox.Quad]]:
    """Each typed offset or length with its plain form (a read per predicate)."""
    out = []
    for p in (TG.charOffset, TG.charLength):
        for q in handle.store.quads_for_pattern(None, n(p), None, graph):
            o = q.object
            if isinstance(o, ox.Literal) and o.datatype == TYPED:
                out.append((q, ox.Quad(q.subject, q.predicate, ox.Literal(o.value), graph)))
    return out


def spans(graph: ox.NamedNode) -> tuple[Quads, Quads]:
    """The step's ``(missing, replaced)`` in ``graph`` (``replacing.py``)."""
    return replacement(_old_quads, graph)
