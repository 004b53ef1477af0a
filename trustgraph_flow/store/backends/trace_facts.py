"""What a batch's retrieval-graph quads tell a trace index, read in one pass; both indexes
(``embedded/trace_index.py`` in sqlite, ``server/graph_index.py`` in a named graph) store it.

A trace's row (kind, question, time, parent, status), its entities' root, its source links
and citations, and the read models' rows of agent steps and RAG facts.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

import pyoxigraph as ox

from trustgraph_base.provenance.agent import FAILED_RUN
from trustgraph_base.provenance.namespaces import GRAPH_RETRIEVAL, PROV, RDF, TG
from trustgraph_base.provenance.uris import (
    agent_step_of,
    is_conclusion_uri,
    trace_kind,
    trace_root,
)
from trustgraph_base.rdf.nquads import from_ox, term_text
from trustgraph_flow.store.core.backend import QuadStore
from trustgraph_flow.store.core.convert import OxObject, named
from trustgraph_flow.store.core.rows import Use, edge_key, sort_key

# A stage's cost figures (metrics_triples), as the views read them (views/props.metrics); and
# tg:model, their old name, kept so that the migration renaming it drops its rows (unrecord)
METRIC_PREDICATES = (
    TG.model,
    TG.llmModel,
    TG.embeddingModel,
    TG.inToken,
    TG.outToken,
    TG.llmDurationMs,
    TG.latencyMs,
)

# What the view of an agent step reads (explain.agent_parts and explain.metrics): kept
# in ``step_facts`` as they are written, so showing a step reads no quads.
STEP_PREDICATES = frozenset(
    p.i
    for p in (
        TG.thought,
        TG.action,
        TG.arguments,
        TG.observation,
        *METRIC_PREDICATES,
        PROV.wasDerivedFrom,  # what the step used (SPEC.md, the agent graph)
    )
)
StepRow = tuple[str, int, str, str, str]  # root, n, step URI, predicate IRI, value

# What the view of a GraphRAG or DocumentRAG trace reads of its entities' facts
# (explain.assemble, rag_parts, fetch_links, chunk_ranks, metrics): kept in ``rag_facts``.
# Not prov:wasInvalidatedBy: an erasure writes it to the store alone (erasure.py), so the
# view reads it there.
RAG_PREDICATES = frozenset(
    p.i
    for p in (
        TG.error,
        TG.interrupted,
        *METRIC_PREDICATES,
        TG.edgeCount,
        TG.chunkCount,
        TG.selectedChunk,
        RDF.reifies,
        TG.rank,
        TG.score,
        TG.vectorRank,
        TG.lexicalScore,
        TG.selectedEdge,
        TG.edge,
        TG.reasoning,
        TG.cites,
        TG.content,
        TG.charOffset,  # a claim's place in the answer (its text is tg:content)
        TG.charLength,
        TG.verdict,  # a claim's assessment and the answer's verification (docs/provenance.md)
        TG.reason,
        TG.method,
        TG.answerVerdict,
        TG.relevance,
    )
)
RAG_KINDS = frozenset({"graph-rag", "document-rag"})
# root, entity URI, predicate IRI, kind of the object (i: IRI, l: literal, its lexical
# value only, b: blank node, t: triple term in N-Quads syntax), the object
RagRow = tuple[str, str, str, str, str]

_KINDS = {
    TG.AgentQuestion.i: "agent",
    TG.GraphRagQuestion.i: "graph-rag",
    TG.DocRagQuestion.i: "document-rag",
}


def _blank(root: str) -> dict[str, object]:
    unknown = dict.fromkeys(("kind", "question", "time", "sort_time", "parent", "parent_root"))
    return {"id": root, **unknown, "is_question": 0, "complete": 0, "failed": 0}


_TYPE, _QUERY, _STARTED, _DERIVED = (
    RDF.type.i,
    TG.query.i,
    PROV.startedAtTime.i,
    PROV.wasDerivedFrom.i,
)
_ERROR, _INTERRUPTED, _QUESTION = TG.error.i, TG.interrupted.i, TG.Question.i
_SELECTED, _EDGE, _CITES = TG.selectedChunk.i, TG.edge.i, TG.cites.i
_REASON, _FAILED = TG.terminationReason.i, ox.Literal(FAILED_RUN)
_RETRIEVAL = ox.NamedNode(GRAPH_RETRIEVAL)
# The predicates ``facts`` reads on an entity that is not its trace's root (not labels)
_READ = RAG_PREDICATES | STEP_PREDICATES | {_TYPE, _REASON, _SELECTED, _EDGE, _CITES}


def _root_fact(row: dict[str, object], p: str, o: OxObject) -> None:
    """Fold one fact about a question entity into its row."""
    if p == _TYPE and type(o) is ox.NamedNode:
        if o.value == _QUESTION:
            row["is_question"] = 1
        elif o.value in _KINDS:
            row["kind"] = _KINDS[o.value]
    elif p == _QUERY and type(o) is ox.Literal:
        row["question"] = o.value
    elif p == _STARTED and type(o) is ox.Literal:
        row["time"], row["sort_time"] = o.value, sort_key(o.value)
    elif p == _DERIVED and type(o) is ox.NamedNode:
        known = row["parent"]
        # A parallel call's tool derives from the call and from its step: the call is kept.
        if not (isinstance(known, str) and known.startswith(o.value + "/")):
            row["parent"], row["parent_root"] = o.value, trace_root(o.value) or o.value
    elif p == _ERROR:
        row["failed"] = max(1, int(str(row["failed"])))
    elif p == _INTERRUPTED:
        row["failed"] = 2


@dataclass
class Facts:
    """What a batch's retrieval-graph quads tell the index, gathered in one pass."""

    rows: dict[str, dict[str, object]] = field(default_factory=dict)  # trace root → its row
    entities: dict[str, str] = field(default_factory=dict)  # entity → trace root
    uses: list[Use] = field(default_factory=list)  # source links (core/rows.py)
    steps: list[StepRow] = field(default_factory=list)  # the agent-step read model
    rags: list[RagRow] = field(default_factory=list)  # the GraphRAG / DocumentRAG read model
    cites: list[tuple[str, str]] = field(default_factory=list)  # (root, cited URI)
    moved: set[str] = field(default_factory=set)  # roots whose links' top or time may change


def rag_row(root: str, uri: str, p: str, o: OxObject) -> RagRow:
    """One ``rag_facts`` row: the object's kind and its value (``RagRow``)."""
    if type(o) is ox.NamedNode:
        return (root, uri, p, "i", o.value)
    if type(o) is ox.Literal:
        return (root, uri, p, "l", o.value)
    if type(o) is ox.BlankNode:
        return (root, uri, p, "b", o.value)
    if type(o.subject) is ox.NamedNode and type(o.object) is ox.NamedNode:  # no wire models
        text = f"<<( <{o.subject.value}> <{o.predicate.value}> <{o.object.value}> )>>"
        return (root, uri, p, "t", text)  # ``term_text``'s form (a chunk's reifier)
    return (root, uri, p, "t", term_text(from_ox(o)))


def facts(quads: Iterable[ox.Quad]) -> Facts:
    """The trace rows, entity → root pairs, source links, agent-step rows and citations of
    a batch's quads (those in ``urn:graph:retrieval`` about a trace entity), in one pass:
    what depends on the subject alone is worked out when it changes (a writer's quads come
    subject by subject); a quad no read model keeps is passed over unread (``_READ``)."""
    out = Facts()
    roots: dict[str, str | None] = {}
    rag: dict[str, bool] = {}  # root → has_rag_facts (a trace's ~20 entities share it)
    concluded: set[str] = set()  # roots whose conclusion (or synthesis) this batch holds
    failed: set[str] = set()  # roots whose conclusion says the run failed: not complete
    named, retrieval = ox.NamedNode, _RETRIEVAL
    last, uri, root, row, is_root, keeps_rag, n = None, "", None, _blank(""), False, False, None
    for q in quads:
        if q.graph_name != retrieval:
            continue
        s = q.subject
        if s != last:
            last = s
            if type(s) is not named:
                root = None
                continue
            uri = s.value
            root = roots[uri] if uri in roots else roots.setdefault(uri, trace_root(uri))
            if root is None:
                continue
            out.entities[uri] = root
            row = out.rows[root] if root in out.rows else out.rows.setdefault(root, _blank(root))
            is_root = uri == root
            keeps_rag = rag[root] if root in rag else rag.setdefault(root, has_rag_facts(root))
            n = agent_step_of(root, uri)
        elif root is None:
            continue
        p = q.predicate.value
        if not is_root and p not in _READ:
            continue
        o = q.object
        if is_root:
            _root_fact(row, p, o)
            if p == _STARTED or p == _DERIVED:
                out.moved.add(root)
        elif p == _TYPE and is_conclusion_uri(root, uri):
            concluded.add(root)
        elif p == _REASON and o == _FAILED and is_conclusion_uri(root, uri):
            failed.add(root)  # an agent run that failed after it began: its conclusion says so
        if keeps_rag and p in RAG_PREDICATES:
            out.rags.append(rag_row(root, uri, p, o))
        if p in STEP_PREDICATES:
            if n is not None and (type(o) is ox.Literal or type(o) is named):
                out.steps.append((root, n, uri, p, o.value))
        elif p == _SELECTED and type(o) is named:
            out.uses.append(Use(uri, o.value, "chunk", root))
            out.moved.add(root)
        elif p == _EDGE and type(o) is ox.Triple:
            out.uses.append(Use(uri, edge_key(o), "edge", root, o))
            out.moved.add(root)
        elif p == _CITES and type(o) is named:
            out.cites.append((root, o.value))
    for root in concluded - failed:
        out.rows[root]["complete"] = 1
    for root in failed:
        out.rows[root]["failed"] = max(1, int(str(out.rows[root]["failed"])))
    return out


def has_rag_facts(root: str) -> bool:
    """Whether ``rag_facts`` keeps the facts of trace ``root`` (by its URI: a GraphRAG or
    DocumentRAG question), as the writer and the reader both decide."""
    return trace_kind(root) in RAG_KINDS


def retrieval_facts(
    store: QuadStore, predicates: Iterable[str]
) -> Iterator[tuple[str, str, str, OxObject]]:
    """``(predicate, subject, its trace root, object)`` of every ``urn:graph:retrieval`` quad
    with one of ``predicates`` whose subject is a trace's entity (for a backfill)."""
    for pred in sorted(predicates):
        for q in store.quads_for_pattern(None, named(pred), None, named(GRAPH_RETRIEVAL)):
            if (
                isinstance(q.subject, ox.NamedNode)
                and (root := trace_root(q.subject.value)) is not None
            ):
                yield pred, q.subject.value, root, q.object
