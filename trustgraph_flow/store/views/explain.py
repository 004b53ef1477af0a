"""The explain service: trace listing, server-side trace assembly, deletion."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

import pyoxigraph as ox

from trustgraph_base.gcpause import gc_paused
from trustgraph_base.provenance.namespaces import PROV, TG
from trustgraph_base.provenance.uris import (
    agent_final_uri,
    agent_iteration_uri,
    agent_step_index,
    agent_step_of,
)
from trustgraph_base.provenance.verification import (
    abstention_uri,
    assessment_uri,
    verification_uri,
)
from trustgraph_base.schema.explain import TraceView
from trustgraph_flow.store.core.backend import Handle, subject_quads
from trustgraph_flow.store.core.convert import named
from trustgraph_flow.store.core.rows import TraceRow
from trustgraph_flow.store.views.agent_graph import agent_graph, derived
from trustgraph_flow.store.views.lookup import (
    RETRIEVAL,
)
from trustgraph_flow.store.views.props import Props, metrics, text
from trustgraph_flow.store.views.rag_parts import rag_parts
from trustgraph_flow.store.views.traces import (
    resolve_row,
)

_MAX_DEPTH = 4


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
    steps, calls = step_uris(handle, root)
    return TraceReader(handle, root, include_provenance, steps, subs, calls)


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
    calls: dict[str, list[str]] = field(default_factory=dict)  # step → its calls' entities

    @property
    def total(self) -> int:
        return len(self.steps)

    def window(self, start: int, stop: int) -> TraceView:
        """The trace with agent steps ``start`` to ``stop`` (list positions) only."""
        if self.subs is None:
            return assemble(self.handle, self.root, self.provenance, 0)
        final = agent_final_uri(self.root)
        only = [self.root, final, verification_uri(final), abstention_uri(final)]
        with gc_paused():
            props = gather(self.handle, self.root, only)
            # the conclusion's claims and their assessments: what its verification used
            used = props[verification_uri(final)].get(PROV.used.i, [])
            claims = [u.value for u in used if isinstance(u, ox.NamedNode)]
            claims = [u for u in claims if u.startswith(f"{final}/claim")]
            if claims:
                more = claims + [assessment_uri(c) for c in claims]
                props.update(gather(self.handle, self.root, more))
            shown = self.steps[start:stop]
            shown += [c for step in shown for c in self.calls.get(step, [])]
            props.update(step_props(self.handle, self.root, shown))
            return assemble(self.handle, self.root, self.provenance, 0, props, self.subs)


def step_uris(handle: Handle, root: str) -> tuple[list[str], dict[str, list[str]]]:
    """An agent trace's step URIs (``…/i{n}``) in step order, and the entities of the calls
    of each step that called several tools at once, from the index alone."""
    found: list[tuple[int, str]] = []
    calls: dict[str, list[str]] = defaultdict(list)
    for uri in handle.index.entities(root):
        if (n := agent_step_index(root, uri)) is not None:
            found.append((n, uri))
        elif (n := agent_step_of(root, uri)) is not None:
            calls[agent_iteration_uri(root, n)].append(uri)
    return [uri for _, uri in sorted(found)], calls


def step_parents(handle: Handle, root: str, props: Props) -> dict[str, list[str]]:
    """What every step and call of trace ``root`` derives from: the index's read model, or
    the store's links of the steps ``props`` does not hold (a window of a long trace)."""
    kept = handle.index.step_parents(root)
    if kept is not None:
        return kept
    steps, calls = step_uris(handle, root)
    every = steps + [c for found in calls.values() for c in found]
    missing = [uri for uri in every if uri not in props]
    known = {**props, **(gather(handle, root, missing) if missing else {})}
    return {uri: derived(known, uri) for uri in every}


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
    return agent_graph(props, root, subs, step_parents(handle, root, props))
