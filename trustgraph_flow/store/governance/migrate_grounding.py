"""The migration step that gives GraphRAG's grounding the reference's URI
(``urn:trustgraph:question:{id}/grounding`` → ``urn:trustgraph:prov:grounding:{id}``,
docs/conformance.md), wherever it is named in ``urn:graph:retrieval`` (its own facts, and the
exploration's ``prov:wasDerivedFrom``). Owned by its trace, the same before and after
(``uris.trace_root`` maps the new URI to its question by the session id it carries). A
replacement: the trace's signature is renewed as ``migrate.py`` renews a replacement's, the
trace index's read model follows (``Step.indexed``) and the old URI leaves its entity map
(``Step.forgets``).
"""

from __future__ import annotations

import pyoxigraph as ox

from trustgraph_base.provenance.namespaces import TG
from trustgraph_base.provenance.uris import GRAPH_RAG_PREFIX, grounding_uri
from trustgraph_flow.store.governance.replacing import Quads, renames, replacement

OLD = "/grounding"


def _renamed(node: object) -> object:
    """A GraphRAG grounding's old URI as the reference names it; anything else as it is."""
    if not isinstance(node, ox.NamedNode) or not node.value.startswith(GRAPH_RAG_PREFIX):
        return node
    session = node.value[len(GRAPH_RAG_PREFIX) :].removesuffix(OLD)
    if not node.value.endswith(OLD) or not session or "/" in session:
        return node
    return ox.NamedNode(grounding_uri(GRAPH_RAG_PREFIX + session))


def groundings(graph: ox.NamedNode) -> tuple[Quads, Quads]:
    """The step's ``(missing, replaced)`` in ``graph`` (``replacing.py``)."""
    return replacement(renames(TG.Grounding.i, _renamed), graph)
