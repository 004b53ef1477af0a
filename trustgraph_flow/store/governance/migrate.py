"""Existing stores brought to the reference's forms our builders adopted (docs/conformance.md),
at the store's start, collection by collection, on every backend.

Adopted so far: on each extraction activity ``{entity}/activity/{stage}``, ``prov:used`` the
entity it read (the one it is named under) and ``rdfs:label`` "{component} extraction" (its
agent's label). ``tg:componentVersion`` is not written on an old activity: which version made
it is not known, and is not invented.

A document whose provenance was already signed (docs/audit.md) is signed again over the
migrated form, under the rule every late write to signed provenance follows (``Seal.sign_all``
with the quads added): only if nothing but the migration changed it since it was signed, so a
migration never launders an edit. The facts and a pending mark per signed document go in one
atomic write (graph ``urn:tg:migration``); the mark is removed once the document is signed
again, so a migration killed between the two signs at the next start. Idempotent: a migrated
collection has nothing left to add, and costs four pattern reads.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

import pyoxigraph as ox

from trustgraph_base.provenance.namespaces import PROV, RDF, RDFS
from trustgraph_base.provenance.uris import doc_of
from trustgraph_flow.store.core.backend import Backend, Handle, remove_quads
from trustgraph_flow.store.governance import log
from trustgraph_flow.store.governance.documents import document_groups
from trustgraph_flow.store.governance.seal import Seal
from trustgraph_flow.store.views.lookup import SOURCE, n

logger = logging.getLogger(__name__)
GRAPH = ox.NamedNode("urn:tg:migration")
PENDING = ox.NamedNode("urn:tg:migration:pending")
STEP = ox.Literal("activity-facts")
REASON = "migrated: the reference's prov:used and rdfs:label on extraction activities"
SUFFIX = " extraction"


def migrate(stores: Backend, seal: Seal | None) -> int:
    """Migrate every collection; how many activities were given the adopted facts."""
    done = 0
    for user, collection in stores.scopes():
        with stores.lease(user, collection) as handle:
            if handle is not None:
                done += migrate_collection(handle, seal)
    if done:
        logger.warning("migrated %d extraction activities to the reference's form", done)
    return done


def migrate_collection(handle: Handle, seal: Seal | None) -> int:
    """Add the adopted facts to the collection's activities that lack them, then sign again
    the signed documents they belong to (and any a killed migration left pending)."""
    added = activity_facts_missing(handle)
    docs = sorted({d for q in added if (d := doc_of(_iri(q.subject)))})
    signed = [d for d in docs if seal is not None and log.of_subject(handle.store, d)]
    marks = [ox.Quad(ox.NamedNode(d), PENDING, STEP, GRAPH) for d in signed]
    if added:
        handle.store.extend([*added, *marks])  # one atomic write: the facts and their marks
    pending = list(handle.store.quads_for_pattern(None, PENDING, STEP, GRAPH))
    if seal is not None:
        for mark in pending:
            doc = _iri(mark.subject)
            facts = set(activity_facts_present(handle, doc))
            seal.sign_all(handle, [doc], REASON, facts, quads_of=document_groups, kind="document")
    if seal is not None and pending:
        remove_quads(handle.store, pending)
    return len({q.subject for q in added})


def _iri(node: object) -> str:
    return node.value if isinstance(node, ox.NamedNode) else ""


def _activities(handle: Handle) -> list[ox.NamedNode]:
    """Our extraction activities: named ``{entity}/activity/{stage}``."""
    found = handle.store.quads_for_pattern(None, n(RDF.type), n(PROV.Activity), SOURCE)
    return [
        q.subject
        for q in found
        if type(q.subject) is ox.NamedNode and "/activity/" in q.subject.value
    ]


def _objects(handle: Handle, predicate: ox.NamedNode) -> dict[ox.NamedNode, list[object]]:
    out: dict[ox.NamedNode, list[object]] = {}
    for q in handle.store.quads_for_pattern(None, predicate, None, SOURCE):
        if type(q.subject) is ox.NamedNode:
            out.setdefault(q.subject, []).append(q.object)
    return out


def activity_facts_missing(handle: Handle) -> list[ox.Quad]:
    """``prov:used`` and the label for each activity that has not got them."""
    used, labels = _objects(handle, n(PROV.used)), _objects(handle, n(RDFS.label))
    agents = _objects(handle, n(PROV.wasAssociatedWith))
    out: list[ox.Quad] = []
    for activity in _activities(handle):
        if activity not in used:
            owner = activity.value.rpartition("/activity/")[0]
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
    """The adopted facts on the document's activities, as they are now (a resumed migration
    signs with these as what it added)."""
    for activity in _activities(handle):
        if doc_of(activity.value) != doc:
            continue
        yield from handle.store.quads_for_pattern(activity, n(PROV.used), None, SOURCE)
        for q in handle.store.quads_for_pattern(activity, n(RDFS.label), None, SOURCE):
            if isinstance(q.object, ox.Literal) and q.object.value.endswith(SUFFIX):
                yield q
