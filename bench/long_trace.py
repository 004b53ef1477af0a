"""A long agent trace, built with the provenance builders, for the viewer bench and the CLI test."""

from __future__ import annotations

from trustgraph_base.provenance import (
    SelectedEdge,
    agent_call_triples,
    agent_final_triples,
    agent_iteration_triples,
    agent_observation_triples,
    agent_session_triples,
    graph_rag_focus_triples,
    graph_rag_question_triples,
    synthesis_triples,
    uris,
)
from trustgraph_base.rdf.terms import Triple, iri
from trustgraph_base.schema import Metadata, Triples


def long_agent_trace(
    session_id: str,
    steps: int,
    *,
    sub_every: int,
    started_at: str = "2026-01-01T00:00:00Z",
    user: str = "trustgraph",
) -> list[Triples]:
    """Agent trace ``session_id`` of ``steps`` steps ("seen part n"), every ``sub_every``-th of
    which ran a GraphRAG sub-trace with one edge ("asked about it"); answer "every part seen".
    In messages of 5,000 triples."""
    trace = uris.agent_session_uri(session_id)
    triples: list[Triple] = agent_session_triples(trace, "Walk every part", started_at)
    previous = trace
    for n in range(1, steps + 1):
        step = uris.agent_iteration_uri(trace, n)
        triples += agent_iteration_triples(
            step, previous, f"think about part {n}", "search", {"part": n}, f"seen part {n}"
        )
        if n % sub_every == 0:
            triples += _sub_trace(f"{session_id}-sub{n}", step, n, started_at)
        previous = step
    triples += agent_final_triples(uris.agent_final_uri(trace), previous, "every part seen")
    return [
        Triples(metadata=Metadata(id=f"{session_id}-{i}", user=user), triples=triples[i : i + 5000])
        for i in range(0, len(triples), 5000)
    ]


def graph_agent_trace(session_id: str, steps: int, user: str = "trustgraph") -> list[Triples]:
    """Agent trace ``session_id`` of ``steps`` steps that is a graph (SPEC.md, the agent graph):
    every 10th step calls two tools at once; every 7th uses only the observation of the step
    five before it (so the four between are dead ends); the others the step before, as the
    seed's chain. Answer "walked the graph", from the last step."""
    trace = uris.agent_session_uri(session_id)
    triples: list[Triple] = agent_session_triples(trace, "Walk the graph", "2026-01-01T00:00:00Z")
    previous: str | list[str] = trace
    for n in range(1, steps + 1):
        step = uris.agent_iteration_uri(trace, n)
        if n % 7 == 0 and n > 5:  # what step n - 5 observed (its first call's, if it made two)
            back = uris.agent_iteration_uri(trace, n - 5)
            previous = [
                uris.agent_observation_uri(back if (n - 5) % 10 else uris.agent_call_uri(back, 1))
            ]
        seen = f"seen part {n}"
        triples += agent_iteration_triples(
            step, previous, f"think about part {n}", "search", {"part": n}, seen, step=n
        )
        if n % 10 == 0:
            triples += agent_call_triples(
                uris.agent_call_uri(step, 1), step, "search", {"part": n}, seen
            )
            triples += agent_call_triples(
                uris.agent_call_uri(step, 2), step, "lookup", {"part": n}, seen
            )
        else:
            triples += agent_observation_triples(uris.agent_observation_uri(step), step)
        previous = step
    triples += agent_final_triples(uris.agent_final_uri(trace), previous, "walked the graph")
    return [
        Triples(metadata=Metadata(id=f"{session_id}-{i}", user=user), triples=triples[i : i + 5000])
        for i in range(0, len(triples), 5000)
    ]


def _sub_trace(session_id: str, step: str, n: int, started_at: str) -> list[Triple]:
    q = uris.graph_rag_question_uri(session_id)
    edge = SelectedEdge(
        iri(uris.entity_uri(f"part{n}")),
        iri(uris.relation_uri("follows")),
        iri(uris.entity_uri(f"part{n - 1}")),
        "asked about it",
    )
    return [
        *graph_rag_question_triples(q, f"part {n}?", started_at, step),
        *graph_rag_focus_triples(uris.focus_uri(q), uris.exploration_uri(q), q, [edge]),
        *synthesis_triples(uris.synthesis_uri(q), uris.focus_uri(q), f"part {n}"),
    ]
