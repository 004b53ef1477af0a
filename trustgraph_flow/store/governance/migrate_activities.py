"""The migration steps of extraction activities (``migrate_steps.py``), owned by their
document:

- ``activity-facts``: on each activity ours named ``{entity}/activity/{stage}``, ``prov:used``
  the entity it read (the one it is named under) and ``rdfs:label`` "{component} extraction"
  (its agent's label); added facts, signed under the late-write rule. ``tg:componentVersion``
  is not written on an old activity: which version made it is not known, and is not invented.
- ``activity-uris``: the activities given the reference's URIs (``{entity}/activity/{stage}``
  → ``https://trustgraph.ai/activity/{uuid}``, the UUID derived from the old name as the
  builders derive it: ``document_uris.activity_uri``), wherever they are named in
  ``urn:graph:source`` (their own facts, and each page's, chunk's and subgraph's
  ``prov:wasGeneratedBy``). The document is found by the entity each used (``activities.py``),
  before and after. A replacement: the documents' signatures are renewed as ``migrate.py``
  renews a replacement's. It runs after ``activity-facts``, which gives an old activity the
  ``prov:used`` it is found by.
"""

from __future__ import annotations

from collections.abc import Iterable

import pyoxigraph as ox

from trustgraph_base.provenance.document_uris import (
    ACTIVITY_PREFIX,
    is_activity_uri,
    reference_activity_uri,
)
from trustgraph_base.provenance.namespaces import PROV, RDF, RDFS
from trustgraph_base.provenance.uris import doc_of
from trustgraph_flow.store.core.backend import Handle
from trustgraph_flow.store.governance.activities import used_by
from trustgraph_flow.store.governance.replacing import Quads, renames, replacement
from trustgraph_flow.store.views.lookup import SOURCE, n

SUFFIX = " extraction"


def _objects(
    handle: Handle, predicate: ox.NamedNode, graph: ox.NamedNode
) -> dict[ox.NamedNode, list[object]]:
    out: dict[ox.NamedNode, list[object]] = {}
    for q in handle.store.quads_for_pattern(None, predicate, None, graph):
        if type(q.subject) is ox.NamedNode:
            out.setdefault(q.subject, []).append(q.object)
    return out


def _activities(handle: Handle) -> list[ox.NamedNode]:
    """Our extraction activities (``uris.is_activity_uri``)."""
    found = handle.store.quads_for_pattern(None, n(RDF.type), n(PROV.Activity), SOURCE)
    return [
        q.subject
        for q in found
        if type(q.subject) is ox.NamedNode and is_activity_uri(q.subject.value)
    ]


def activity_facts_missing(handle: Handle) -> list[ox.Quad]:
    """``prov:used`` and the label for each activity that has not got them."""
    used, labels = _objects(handle, n(PROV.used), SOURCE), _objects(handle, n(RDFS.label), SOURCE)
    agents = _objects(handle, n(PROV.wasAssociatedWith), SOURCE)
    out: list[ox.Quad] = []
    for activity in _activities(handle):
        if activity not in used and not activity.value.startswith(ACTIVITY_PREFIX):
            owner = activity.value.rpartition("/activity/")[0]  # ours before: under what it read
            out.append(ox.Quad(activity, n(PROV.used), ox.NamedNode(owner), SOURCE))
        names = [
            label.value
            for agent in agents.get(activity, [])
            if isinstance(agent, ox.NamedNode)
            for label in labels.get(agent, [])
            if isinstance(label, ox.Literal)
        ]
        if activity not in labels and names:
            out.append(ox.Quad(activity, n(RDFS.label), ox.Literal(names[0] + SUFFIX), SOURCE))
    return out


def activity_facts_present(handle: Handle, doc: str) -> Iterable[ox.Quad]:
    for activity, entity in used_by(handle.store).items():
        if doc_of(entity.value) != doc:
            continue
        yield from handle.store.quads_for_pattern(activity, n(PROV.used), None, SOURCE)
        for q in handle.store.quads_for_pattern(activity, n(RDFS.label), None, SOURCE):
            if isinstance(q.object, ox.Literal) and q.object.value.endswith(SUFFIX):
                yield q


def _renamed(node: object) -> object:
    """An activity's old URI as the reference names it; anything else as it is."""
    if (
        not isinstance(node, ox.NamedNode)
        or not is_activity_uri(node.value)
        or node.value.startswith(ACTIVITY_PREFIX)
    ):
        return node
    return ox.NamedNode(reference_activity_uri(node.value))


def activity_uris(graph: ox.NamedNode) -> tuple[Quads, Quads]:
    """The step's ``(missing, replaced)`` in ``graph`` (``replacing.py``)."""
    return replacement(renames(PROV.Activity.i, _renamed), graph)
