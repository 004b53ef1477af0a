"""The migration's steps (``migrate.py``): for each group of the reference's forms adopted
(docs/conformance.md, "Adopted"), which facts an old store lacks, whose provenance they
belong to, and the facts of one owner as they are now (what a resumed migration signs as
added).

- ``activity-facts`` (``migrate_activities.py``): on each extraction activity, ``prov:used``
  the entity it read and ``rdfs:label`` "{component} extraction". Owner: the document.
- ``labels``: a question's label "Question" becomes the reference's "GraphRAG Question",
  "DocumentRAG Question" or "Agent Question", an analysis's "Analysis" becomes "Analysis:
  {action}". Owner: the trace.
- ``agents``: each ``prov:SoftwareAgent`` (the decoder, chunker, extractor, verifier) is also
  the reference's ``prov:Agent``. No owner: an agent is in no signed document or trace.
- ``agent-uris`` (``migrate_agents.py``): our software agents renamed to the reference's URIs,
  in the source graph (owner: the document) and the retrieval graph (owner: the trace).
- ``metrics`` (``migrate_metrics.py``): ``tg:model`` and ``tg:latencyMs`` renamed to the
  reference's ``tg:llmModel`` and ``tg:llmDurationMs`` (whole ms), in both graphs.
- ``char-spans`` and ``plain-numbers`` (``migrate_plain.py``): offsets, lengths, counts and a
  ranked chunk's score as plain literals (the reference's form), in both graphs;
  ``plain-times``: an extraction activity's ``prov:startedAtTime``, in the source graph only
  (a question's stays an ``xsd:dateTime``: SPEC.md decides it).
- ``chunk-selections`` (``migrate_selections.py``): each reifier of a DocumentRAG
  exploration's ``tg:selectedChunk`` triple is also ``a tg:ChunkSelection`` naming its chunk
  by ``tg:document``. Owner: the trace.
- ``grounding-uris`` (``migrate_grounding.py``): GraphRAG's grounding renamed to the
  reference's ``urn:trustgraph:prov:grounding:{id}``; ``selection-uris``
  (``migrate_selections.py``): DocumentRAG's chunk selections renamed to the reference's
  ``urn:trustgraph:prov:chunk:{id}:{index}``. Owner: the trace.
- ``activity-uris`` (``migrate_activities.py``): extraction activities renamed to the
  reference's ``https://trustgraph.ai/activity/{uuid}``, in the source graph (owner: the
  document, found by the entity the activity used); after ``activity-facts``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import pyoxigraph as ox

from trustgraph_base.provenance.namespaces import PROV, RDF
from trustgraph_base.provenance.uris import trace_root
from trustgraph_flow.store.core.backend import Handle
from trustgraph_flow.store.governance.activities import documents_of
from trustgraph_flow.store.governance.documents import document_groups
from trustgraph_flow.store.governance.migrate_activities import (
    activity_facts_missing,
    activity_facts_present,
    activity_uris,
)
from trustgraph_flow.store.governance.migrate_agents import renamed
from trustgraph_flow.store.governance.migrate_grounding import groundings
from trustgraph_flow.store.governance.migrate_labels import (
    labels_missing,
    labels_present,
    labels_replaced,
)
from trustgraph_flow.store.governance.migrate_metrics import metrics
from trustgraph_flow.store.governance.migrate_plain import NUMBERS, SPANS, TIMES, plain
from trustgraph_flow.store.governance.migrate_selections import (
    chunk_selections_missing,
    chunk_selections_present,
    selection_uris,
)
from trustgraph_flow.store.governance.replacing import Quads
from trustgraph_flow.store.governance.seal import Groups, trace_groups
from trustgraph_flow.store.views.lookup import RETRIEVAL, SOURCE, n


@dataclass(frozen=True)
class Step:
    name: str
    reason: str  # of the log entry that signs an owner again
    kind: str  # "document" or "trace": which signatures it renews
    quads_of: Callable[[Handle, str], Groups]
    # the documents or trace roots the quads belong to (whose signatures the step renews)
    owners: Callable[[Handle, list[ox.Quad]], set[str]]
    missing: Callable[[Handle], list[ox.Quad]]
    present: Callable[[Handle, str], Iterable[ox.Quad]]
    # the old facts the step's replace, once their new form is in (None: it only adds)
    replaces: Callable[[Handle], list[ox.Quad]] | None = None
    indexed: bool = False  # whether the trace index's read models keep the facts it changes
    forgets: bool = False  # whether it renames entities (the old ones leave the entity map)


def _documents(handle: Handle, quads: list[ox.Quad]) -> set[str]:
    return documents_of(handle.store, quads)


def _traces(handle: Handle, quads: list[ox.Quad]) -> set[str]:
    return {
        r for q in quads if type(q.subject) is ox.NamedNode and (r := trace_root(q.subject.value))
    }


def _no_owner(handle: Handle, quads: list[ox.Quad]) -> set[str]:
    return set()


def agents_missing(handle: Handle) -> list[ox.Quad]:
    typed = n(RDF.type)
    out = []
    for graph in (SOURCE, RETRIEVAL):
        agents = {
            q.subject for q in handle.store.quads_for_pattern(None, typed, n(PROV.Agent), graph)
        }
        for q in handle.store.quads_for_pattern(None, typed, n(PROV.SoftwareAgent), graph):
            if q.subject not in agents:
                out.append(ox.Quad(q.subject, typed, n(PROV.Agent), graph))
    return out


def in_source_graph(
    name: str, what: str, pairs: Callable[[ox.NamedNode], tuple[Quads, Quads]]
) -> Step:
    """A replacement's step in the source graph (owned by documents): ``{name}-source``."""
    missing, replaced = pairs(SOURCE)
    return Step(f"{name}-source", f"migrated: {what}", "document", document_groups, _documents,
                missing, _nothing, replaced)  # fmt: skip


def in_both_graphs(
    name: str,
    what: str,
    pairs: Callable[[ox.NamedNode], tuple[Quads, Quads]],
    indexed: bool = False,
) -> tuple[Step, Step]:
    """A replacement's steps in the source graph and the retrieval graph (owned by traces):
    ``{name}-source`` and ``{name}-retrieval``."""
    trace_missing, trace_replaced = pairs(RETRIEVAL)
    return (
        in_source_graph(name, what, pairs),
        Step(f"{name}-retrieval", f"migrated: {what}", "trace", trace_groups, _traces,
             trace_missing, _nothing, trace_replaced, indexed),
    )  # fmt: skip


def _nothing(handle: Handle, owner: str) -> Iterable[ox.Quad]:
    return ()  # a replacement is signed as a new entry, not as facts added


def renaming(name: str, what: str, pairs: Callable[[ox.NamedNode], tuple[Quads, Quads]]) -> Step:
    """A rename of trace entities in the retrieval graph: a replacement whose old URIs also
    leave the trace index's entity map (``Step.forgets``)."""
    missing, replaced = pairs(RETRIEVAL)
    return Step(name, f"migrated: {what}", "trace", trace_groups, _traces, missing, _nothing,
                replaced, indexed=True, forgets=True)  # fmt: skip


STEPS = (
    Step(
        "activity-facts",
        "migrated: the reference's prov:used and rdfs:label on extraction activities",
        "document",
        document_groups,
        _documents,
        activity_facts_missing,
        activity_facts_present,
    ),
    Step(
        "agents",
        "migrated: the reference's prov:Agent on our software agents",
        "document",
        document_groups,
        _no_owner,
        agents_missing,
        _nothing,
    ),
    Step(
        "labels",
        "migrated: the reference's labels of questions and analyses",
        "trace",
        trace_groups,
        _traces,
        labels_missing,
        labels_present,
        labels_replaced,
    ),
    *in_both_graphs("agent-uris", "the reference's URIs of the software agents", renamed),
    Step(
        "chunk-selections",
        "migrated: the reference's tg:ChunkSelection on DocumentRAG's ranked chunks",
        "trace",
        trace_groups,
        _traces,
        chunk_selections_missing,
        chunk_selections_present,
    ),
    *in_both_graphs(
        "metrics", "the reference's tg:llmModel and tg:llmDurationMs", metrics, indexed=True
    ),
    *in_both_graphs(
        "char-spans", "the reference's plain tg:charOffset and tg:charLength", plain(SPANS)
    ),
    *in_both_graphs("plain-numbers", "the reference's plain counts and scores", plain(NUMBERS)),
    in_source_graph(
        "plain-times", "the reference's plain prov:startedAtTime of extraction", plain(TIMES)
    ),
    renaming("grounding-uris", "the reference's URI of GraphRAG's grounding", groundings),
    renaming(
        "selection-uris", "the reference's URIs of DocumentRAG's chunk selections", selection_uris
    ),
    in_source_graph(
        "activity-uris", "the reference's URIs of extraction activities", activity_uris
    ),
)
