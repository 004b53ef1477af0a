"""The migration step that renames our software agents to the reference's URIs
(``urn:trustgraph:component:{name}`` → ``https://trustgraph.ai/agent/{name}``,
docs/conformance.md): in ``urn:graph:source`` (the extraction activities, owned by their
document) and in ``urn:graph:retrieval`` (a verification's agent, owned by its trace). A
replacement: the owners' signatures are renewed as ``migrate.py`` renews a replacement's.
"""

from __future__ import annotations

import pyoxigraph as ox

from trustgraph_base.provenance.document_uris import COMPONENT_PREFIX, OLD_COMPONENT_PREFIX
from trustgraph_base.provenance.namespaces import PROV, RDF
from trustgraph_flow.store.core.backend import Handle
from trustgraph_flow.store.governance.replacing import Quads, replacement
from trustgraph_flow.store.views.lookup import n


def _renamed(node: object) -> object:
    if isinstance(node, ox.NamedNode) and node.value.startswith(OLD_COMPONENT_PREFIX):
        return ox.NamedNode(COMPONENT_PREFIX + node.value[len(OLD_COMPONENT_PREFIX) :])
    return node


def _old_quads(handle: Handle, graph: ox.NamedNode) -> list[tuple[ox.Quad, ox.Quad]]:
    """Each quad naming an old agent URI, with the quad that replaces it (a read for the
    agents, then two per old agent: there are a handful)."""
    typed = handle.store.quads_for_pattern(None, n(RDF.type), n(PROV.SoftwareAgent), graph)
    old = [
        q.subject
        for q in typed
        if isinstance(q.subject, ox.NamedNode) and q.subject.value.startswith(OLD_COMPONENT_PREFIX)
    ]
    out = []
    for agent in old:
        # the links to it first, its own type last: a removal killed half way leaves the
        # agent still found by its type, so the next start finishes it
        own = list(handle.store.quads_for_pattern(agent, None, None, graph))
        about = [
            *handle.store.quads_for_pattern(None, None, agent, graph),
            *sorted(own, key=lambda q: q.predicate == n(RDF.type)),
        ]
        for q in about:
            new = ox.Quad(_renamed(q.subject), q.predicate, _renamed(q.object), graph)  # type: ignore[arg-type]
            out.append((q, new))
    return out


def renamed(graph: ox.NamedNode) -> tuple[Quads, Quads]:
    """The step's ``(missing, replaced)`` in ``graph`` (``replacing.py``)."""
    return replacement(_old_quads, graph)
