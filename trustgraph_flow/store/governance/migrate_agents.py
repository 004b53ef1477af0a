"""The migration step that renames our software agents to the reference's URIs
(``urn:trustgraph:component:{name}`` → ``https://trustgraph.ai/agent/{name}``,
docs/conformance.md): in ``urn:graph:source`` (the extraction activities, owned by their
document) and in ``urn:graph:retrieval`` (a verification's agent, owned by its trace). A
replacement: the owners' signatures are renewed as ``migrate.py`` renews a replacement's.
"""

from __future__ import annotations

import pyoxigraph as ox

from trustgraph_base.provenance.document_uris import COMPONENT_PREFIX, OLD_COMPONENT_PREFIX
from trustgraph_base.provenance.namespaces import PROV
from trustgraph_flow.store.governance.replacing import Quads, renames, replacement


def _renamed(node: object) -> object:
    if isinstance(node, ox.NamedNode) and node.value.startswith(OLD_COMPONENT_PREFIX):
        return ox.NamedNode(COMPONENT_PREFIX + node.value[len(OLD_COMPONENT_PREFIX) :])
    return node


def renamed(graph: ox.NamedNode) -> tuple[Quads, Quads]:
    """The step's ``(missing, replaced)`` in ``graph`` (``replacing.py``)."""
    return replacement(renames(PROV.SoftwareAgent.i, _renamed), graph)
