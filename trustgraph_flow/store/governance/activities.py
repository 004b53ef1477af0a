"""Extraction activities (decode, chunk, extract) and the documents they belong to.

An activity is found by the entity it read, its ``prov:used`` (the document a decode read,
the page or document a chunking read, the chunk an extraction read), never by its URI: the
reference's activity URIs (docs/conformance.md) carry no document. The entity it used does
(``uris.doc_of``). What a document's signature covers, its removal and the migration's owners
go this way.
"""

from __future__ import annotations

from collections.abc import Iterable

import pyoxigraph as ox

from trustgraph_base.provenance.namespaces import PROV
from trustgraph_base.provenance.uris import doc_of, is_activity_uri
from trustgraph_flow.store.core.backend import QuadStore, object_quads
from trustgraph_flow.store.views.lookup import SOURCE, n

USED = n(PROV.used)


def _used(quads: Iterable[ox.Quad]) -> dict[ox.NamedNode, ox.NamedNode]:
    return {
        q.subject: q.object
        for q in quads
        if q.predicate == USED
        and type(q.subject) is ox.NamedNode
        and type(q.object) is ox.NamedNode
        and is_activity_uri(q.subject.value)
    }


def used_by(store: QuadStore) -> dict[ox.NamedNode, ox.NamedNode]:
    """Each extraction activity in ``urn:graph:source`` with the entity it used (one scan)."""
    return _used(store.quads_for_pattern(None, USED, None, SOURCE))


def activities(store: QuadStore, entities: list[ox.NamedNode]) -> list[ox.NamedNode]:
    """The extraction activities that used one of ``entities`` (a lookup per entity, batched on
    a server, so a document's cost does not grow with the collection).

    Not by following ``prov:wasGeneratedBy``: the document's decode is linked from no entity
    once its pages are gone (a removal interrupted half way)."""
    return list(_used(object_quads(store, entities, USED, SOURCE)))


def documents_of(store: QuadStore, quads: Iterable[ox.Quad]) -> set[str]:
    """The documents whose extraction provenance ``quads`` are about: a subject's by its URI,
    an activity's by the entity it used (named in ``quads`` or, failing that, in the store)."""
    quads = list(quads)
    subjects = {q.subject for q in quads if type(q.subject) is ox.NamedNode}
    docs = {d for s in subjects if (d := doc_of(s.value))}
    acts = {s for s in subjects if is_activity_uri(s.value) and not doc_of(s.value)}
    if not acts:
        return docs
    used = _used(quads)
    for activity in acts - set(used):  # one lookup each, only for those the batch does not say
        used.update(_used(store.quads_for_pattern(activity, USED, None, SOURCE)))
    return docs | {d for a in acts if a in used and (d := doc_of(used[a].value))}
