"""The explain service: trace listing, server-side trace assembly, deletion."""

from __future__ import annotations

import base64
import binascii
import json
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime

import pyoxigraph as ox

from trustgraph_base.errors import ErrorType, ServiceError
from trustgraph_base.gcpause import gc_paused
from trustgraph_base.provenance.namespaces import RDF, TG
from trustgraph_base.provenance.uris import (
    agent_final_uri,
    agent_step_index,
    is_exploration_chunk_uri,
    is_session_id,
    session_trace_uris,
    trace_kind,
)
from trustgraph_base.rdf.terms import check_iri
from trustgraph_base.schema.explain import (
    AgentStepView,
    ChunkView,
    ExplainRequest,
    StageMetrics,
    TraceSummary,
    TraceView,
)
from trustgraph_flow.store.core.backend import Handle, QuadStore, subject_quads
from trustgraph_flow.store.core.convert import OxObject, named, value_of
from trustgraph_flow.store.core.rows import TraceFilter, TraceRow, sort_key
from trustgraph_flow.store.views.claims import claim_views
from trustgraph_flow.store.views.lookup import (
    RETRIEVAL,
    as_int,
    chunk_source,
    edge_sources,
    edge_view,
    fetch_chunk_sources,
    fetch_edge_sources,
    fetch_labels,
)
from trustgraph_flow.store.views.prefetch import Prefetch
from trustgraph_flow.store.views.removals import fetch_removals, removals

# entity URI → predicate IRI → objects (an agent step's from the index's read model: strings)
Props = dict[str, dict[str, list[OxObject | str]]]
_MAX_DEPTH = 4


def list_traces(handle: Handle | None, limit: int) -> list[TraceSummary]:
    """The newest top-level traces (sub-traces excluded), newest first."""
    if handle is None:
        return []
    return [_summary(r) for r in handle.index.newest(limit)]


def page_traces(
    handle: Handle | None, req: ExplainRequest
) -> tuple[list[TraceSummary], str | None]:
    """One page of the trace list, narrowed by the request's filters, and the next page's cursor."""
    flt = TraceFilter(
        search=req.search or "",
        kind=req.type,
        status=req.status,
        since=_instant("since", req.since),
        until=_instant("until", req.until),
    )
    after = _decode_cursor(req.cursor) if req.cursor else None
    if handle is None:
        return [], None
    rows, last = handle.index.page(req.limit, flt, after)
    return [_summary(r) for r in rows], _encode_cursor(last) if last else None


def _summary(r: TraceRow) -> TraceSummary:
    return TraceSummary(id=r.id, type=r.kind, question=r.question, time=r.time, status=r.status)


def _instant(name: str, value: str | None) -> str | None:
    if not value:
        return None
    try:
        datetime.fromisoformat(value)
    except ValueError:
        raise ServiceError(
            ErrorType.BAD_REQUEST,
            f"{name} {value!r} is not a date-time (e.g. 2026-01-31T12:00:00Z)",
        ) from None
    return sort_key(value)


def _encode_cursor(last: tuple[str, str]) -> str:
    return base64.urlsafe_b64encode(json.dumps(list(last)).encode()).decode()


def _decode_cursor(cursor: str) -> tuple[str, str]:
    try:
        key, last = json.loads(base64.urlsafe_b64decode(cursor.encode()))
        if isinstance(key, str) and isinstance(last, str):
            return key, last
    except (ValueError, TypeError, binascii.Error):
        pass
    raise ServiceError(
        ErrorType.BAD_REQUEST, "malformed cursor: pass back the cursor of the previous page"
    )


def candidates(trace_id: str) -> list[str]:
    """The question URIs an id may name: a trace URI itself, or a bare session id under each prefix."""
    if trace_kind(trace_id) is not None:
        try:
            check_iri(trace_id)
        except ValueError as exc:
            raise ServiceError(ErrorType.BAD_REQUEST, f"malformed trace id: {exc}") from None
        return [trace_id]
    if is_session_id(trace_id):
        return session_trace_uris(trace_id)
    raise ServiceError(
        ErrorType.BAD_REQUEST,
        f"malformed trace id {trace_id!r}: expected a trace URI (urn:trustgraph:agent:…, "
        "urn:trustgraph:question:…, urn:trustgraph:docrag:…) or a session id",
    )


def resolve(handle: Handle | None, trace_id: str) -> str:
    """The question URI of a trace, or ServiceError not-found."""
    return resolve_row(handle, trace_id).id


def resolve_row(handle: Handle | None, trace_id: str) -> TraceRow:
    """The index row of a trace, or ServiceError not-found."""
    options = candidates(trace_id)
    if handle is not None:
        for uri in options:
            if (row := handle.index.get(uri)) is not None:
                return row
    raise ServiceError(ErrorType.NOT_FOUND, f"no trace {trace_id!r} in this collection")


def list_one(handle: Handle | None, trace_id: str) -> TraceSummary:
    """The list row of one trace (not-found as ``resolve``)."""
    root = resolve(handle, trace_id)
    assert handle is not None
    r = handle.index.get(root)
    assert r is not None
    return TraceSummary(id=r.id, type=r.kind, question=r.question, time=r.time, status=r.status)


def gather(handle: Handle, root: str, only: list[str] | None = None) -> Props:
    """Every retrieval-graph triple of a trace's entities (or of ``only``), by subject and predicate."""
    uris = handle.index.entities(root) if only is None else only
    props: Props = {uri: {} for uri in uris}
    # One request per few hundred entities on a server (one per entity was 20,000 requests
    # for a long trace, more than oxigraph serve's --timeout-s threads allow).
    for q in subject_quads(handle.store, (named(uri) for uri in uris), RETRIEVAL):
        if isinstance(q.subject, ox.NamedNode):
            props[q.subject.value].setdefault(q.predicate.value, []).append(q.object)
    return props


def step_props(handle: Handle, root: str, steps: list[str]) -> Props:
    """The shown facts of agent steps ``steps`` of ``root``: from the index's read model
    (a range of sqlite rows) where it keeps one, else from the store's quads."""
    kept = handle.index.step_facts(root, steps)
    if kept is None:
        return gather(handle, root, steps)
    return kept  # type: ignore[return-value]  # dict is invariant: str values are OxObject | str


def text(props: Props, uri: str, pred: object) -> str | None:
    values = props.get(uri, {}).get(pred.i, [])  # type: ignore[attr-defined]
    if not values:
        return None
    first = values[0]
    return first if isinstance(first, str) else value_of(first)


def metrics(props: Props, root: str) -> dict[str, StageMetrics]:
    """Stage name (``question``, ``i1``, ``focus``…) → the figures recorded on it."""
    out: dict[str, StageMetrics] = {}
    for uri in sorted(props):
        model, tin, tout = (
            text(props, uri, TG.model),
            text(props, uri, TG.inToken),
            text(props, uri, TG.outToken),
        )
        latency = text(props, uri, TG.latencyMs)
        if model is None and tin is None and tout is None and latency is None:
            continue
        stage = "question" if uri == root else uri[len(root) + 1 :]
        out[stage] = StageMetrics(
            model=model,
            in_token=as_int(tin),
            out_token=as_int(tout),
            latency_ms=float(latency) if latency is not None else None,
        )
    return out


def get_trace(handle: Handle | None, trace_id: str, include_provenance: bool) -> TraceView:
    """The whole trace, with its sub-traces nested under the agent steps that ran them."""
    row = resolve_row(handle, trace_id)
    assert handle is not None
    return assemble(handle, row.id, include_provenance, 0, row=row)


def get_trace_window(
    handle: Handle | None, trace_id: str, include_provenance: bool, offset: int, limit: int
) -> tuple[TraceView, int]:
    """The trace with only agent steps ``offset`` to ``offset + limit`` (and their sub-traces),
    and how many steps it has (0 for GraphRAG and DocumentRAG traces, returned whole): a
    20,000-step agent trace is read a window at a time."""
    reader = open_trace(handle, trace_id, include_provenance)
    return reader.window(offset, offset + limit), reader.total


def open_trace(handle: Handle | None, trace_id: str, include_provenance: bool) -> TraceReader:
    """A trace ready to be read a window of agent steps at a time (not-found as ``resolve``)."""
    row = resolve_row(handle, trace_id)
    root = row.id
    assert handle is not None
    if row.kind != "agent":
        return TraceReader(handle, root, include_provenance, [], None)
    subs: dict[str, list[TraceRow]] = defaultdict(list)
    for sub in handle.index.subtraces(root):
        subs[sub.parent or ""].append(sub)
    return TraceReader(handle, root, include_provenance, step_uris(handle, root), subs)


@dataclass(frozen=True)
class TraceReader:
    """One trace's step list and sub-traces, looked up once for every window read from it.

    ``subs`` is None for a GraphRAG or DocumentRAG trace, which has no steps: any window of
    it is the whole trace.
    """

    handle: Handle
    root: str
    provenance: bool
    steps: list[str]
    subs: dict[str, list[TraceRow]] | None

    @property
    def total(self) -> int:
        return len(self.steps)

    def window(self, start: int, stop: int) -> TraceView:
        """The trace with agent steps ``start`` to ``stop`` (list positions) only."""
        if self.subs is None:
            return assemble(self.handle, self.root, self.provenance, 0)
        only = [self.root, agent_final_uri(self.root)]
        with gc_paused():
            props = gather(self.handle, self.root, only)
            props.update(step_props(self.handle, self.root, self.steps[start:stop]))
            return assemble(self.handle, self.root, self.provenance, 0, props, self.subs)


def step_uris(handle: Handle, root: str) -> list[str]:
    """An agent trace's step URIs (``…/i{n}``) in step order, from the index alone."""
    found = [
        (n, uri)
        for uri in handle.index.entities(root)
        if (n := agent_step_index(root, uri)) is not None
    ]
    return [uri for _, uri in sorted(found)]


def assemble(
    handle: Handle,
    root: str,
    provenance: bool,
    depth: int,
    props: Props | None = None,
    subs: dict[str, list[TraceRow]] | None = None,
    row: TraceRow | None = None,
) -> TraceView:
    """The view of trace ``root`` (of the entities in ``props``, with ``subs``, its sub-traces
    by calling step, and ``row``, its index row, when the caller has read them already: each
    is a request on a server)."""
    row = row or handle.index.get(root)
    assert row is not None
    if props is None:
        props = rag_props(handle, [row]).get(root) or gather(handle, root)
    view = TraceView(
        id=root,
        type=row.kind,
        question=row.question,
        time=row.time,
        status=row.status,
        parent=row.parent,
        error=text(props, root, TG.error) or text(props, root, TG.interrupted),
        metrics=metrics(props, root),
    )
    if row.kind == "agent":
        parts = agent_parts(handle, props, root, provenance, depth, subs)
        return view.model_copy(update=parts)
    return view.model_copy(update=rag_parts(handle.store, props, root, provenance))


def rag_props(handle: Handle, rows: list[TraceRow]) -> dict[str, Props]:
    """The facts of the GraphRAG and DocumentRAG traces among ``rows`` from the index's read
    model, in one read for all (none where it keeps none: each is then read from the store)."""
    kept = handle.index.rag_facts([r.id for r in rows if r.kind != "agent"])
    return kept or {}  # type: ignore[return-value]  # dict is invariant: RagValue is in OxObject | str


def agent_parts(
    handle: Handle,
    props: Props,
    root: str,
    provenance: bool,
    depth: int,
    by_step: dict[str, list[TraceRow]] | None = None,
) -> dict[str, object]:
    subs: dict[str, list[TraceView]] = defaultdict(list)
    if depth < _MAX_DEPTH:
        if by_step is None:
            by_step = defaultdict(list)
            for sub in handle.index.subtraces(root):
                by_step[sub.parent or ""].append(sub)
        shown = {step: rows for step, rows in by_step.items() if step in props}  # in the window
        facts = rag_props(handle, [r for rows in shown.values() for r in rows])
        for step, rows in shown.items():
            subs[step] = [
                assemble(handle, r.id, provenance, depth + 1, facts.get(r.id), row=r) for r in rows
            ]
    steps = []
    for uri in props:
        n = agent_step_index(root, uri)
        if n is not None:
            steps.append(
                AgentStepView(
                    uri=uri,
                    index=n,
                    thought=text(props, uri, TG.thought) or "",
                    action=text(props, uri, TG.action) or "",
                    arguments=text(props, uri, TG.arguments) or "",
                    observation=text(props, uri, TG.observation),
                    subtraces=subs.get(uri, []),
                )
            )
    return {
        "steps": sorted(steps, key=lambda s: s.index),
        "answer": text(props, agent_final_uri(root), TG.answer),
    }


def rag_parts(store: QuadStore, props: Props, root: str, provenance: bool) -> dict[str, object]:
    exploration, focus, synthesis = f"{root}/exploration", f"{root}/focus", f"{root}/synthesis"
    store = store if isinstance(store, Prefetch) else Prefetch(store)
    fetch_links(store, props, focus, exploration, provenance)
    ranked = chunk_ranks(props, exploration)
    cites = {
        c.value for c in props.get(synthesis, {}).get(TG.cites.i, []) if isinstance(c, ox.NamedNode)
    }
    selected = [
        c
        for c in props.get(exploration, {}).get(TG.selectedChunk.i, [])
        if isinstance(c, ox.NamedNode)
    ]
    chunks = [
        ChunkView(
            uri=c.value,
            score=ranked.get(c.value, (0, None))[1],
            cited=c.value in cites,
            sources=[r for r in [chunk_source(store, c)] if r] if provenance else [],
            removed=removals(store, c),
        )
        for c in sorted(
            selected, key=lambda c: (ranked.get(c.value, (len(selected) + 1, None))[0], c.value)
        )
    ]
    edge_uris = [
        e.value
        for e in props.get(focus, {}).get(TG.selectedEdge.i, [])
        if isinstance(e, ox.NamedNode)
    ]
    edges = []
    for uri in sorted(edge_uris, key=lambda u: (as_int(u.rsplit("/e", 1)[-1]) or 0, u)):
        quoted = props.get(uri, {}).get(TG.edge.i, [])
        if quoted and isinstance(quoted[0], ox.Triple):
            sources = edge_sources(store, quoted[0]) if provenance else []
            edges.append(
                edge_view(
                    store,
                    quoted[0],
                    uri=uri,
                    reasoning=text(props, uri, TG.reasoning),
                    cited=uri in cites,
                    sources=sources,
                    removed=removals(store, named(uri)),  # erasures: in the store only
                )
            )
    return {
        "exploration": exploration if exploration in props else None,
        "edge_count": as_int(text(props, exploration, TG.edgeCount)),
        "chunk_count": as_int(text(props, exploration, TG.chunkCount)),
        "chunks": chunks,
        "focus": focus if focus in props else None,
        "edges": edges,
        "synthesis": synthesis if synthesis in props else None,
        "answer": text(props, synthesis, TG.content),
        "claims": claim_views(props, synthesis),
    }


def fetch_links(
    store: Prefetch, props: Props, focus: str, exploration: str, provenance: bool
) -> None:
    """Everything the trace's chunks and edges link to, a level per request on a server
    (labels, erasures and, with provenance, the source chains), before the views follow them."""
    selected = [
        c
        for c in props.get(exploration, {}).get(TG.selectedChunk.i, [])
        if isinstance(c, ox.NamedNode)
    ]
    edge_uris = [
        e.value
        for e in props.get(focus, {}).get(TG.selectedEdge.i, [])
        if isinstance(e, ox.NamedNode)
    ]
    edges = [
        quoted[0]
        for uri in edge_uris
        if (quoted := props.get(uri, {}).get(TG.edge.i, [])) and isinstance(quoted[0], ox.Triple)
    ]
    invalidated = [named(u) for u in edge_uris]
    fetch_labels(store, edges)
    fetch_removals(store, selected + invalidated)
    if provenance:
        fetch_chunk_sources(store, selected)
        fetch_edge_sources(store, edges)


def chunk_ranks(props: Props, exploration: str) -> dict[str, tuple[int, float | None]]:
    """Chunk URI → (rank, score) from the reifiers of its ``tg:selectedChunk`` triple."""
    ranks: dict[str, tuple[int, float | None]] = {}
    for uri, by_pred in props.items():
        if not is_exploration_chunk_uri(exploration, uri):
            continue
        about = by_pred.get(RDF.reifies.i, [])
        rank = as_int(text(props, uri, TG.rank))
        target = about[0].object if about and isinstance(about[0], ox.Triple) else None
        if target is not None and not isinstance(target, ox.Triple) and rank is not None:
            score = text(props, uri, TG.score)
            ranks[target.value] = (rank, float(score) if score is not None else None)
    return ranks
